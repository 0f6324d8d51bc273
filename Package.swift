// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// The example programs: executable name, directory under Examples/ (named like its model),
/// whether a modelgen.json sits beside the model.
let examples: [(String, String, Bool)] = [
    ("gradebook", "GradeBook", true),
    ("persondata", "PersonData", false),
    ("fruits", "Fruits", false),
    ("businesses", "Businesses", false),
    ("ships-singers-candy", "ShipsSingersCandy", false),
    ("hellocoredata", "HelloCoreData", true),
]

/// The generated code of each model version that wrote a store of ../shared/corpus/stores, one
/// module per version (Scripts/record-coredata-models.sh writes them), for CoreDataStoreTests.
let coreDataStoreModels = [
    "CDSampleModel", "CDSampleModel2", "CDSampleModel3", "CDArtsyPartner5", "CDArtsyFolio14", "CDArtsyFolio15",
    "CDArtsyFolio20", "CDArtsyFolio23", "CDBookmarks1", "CDBookmarks2", "CDBookmarks3", "CDBookmarks4",
    "CDBookmarks5", "CDSyncMetadata3", "CDXCServer120", "CDXCServer200", "CDXCServer201", "CDAppRatingPrompt",
    "CDJournal",
]

let package = Package(
    name: "modelgen",
    products: [
        .executable(name: "modelgen", targets: ["modelgen"]),
        .library(name: "ModelGenRuntime", targets: ["ModelGenRuntime"]),
        .plugin(name: "ModelGenPlugin", targets: ["ModelGenPlugin"]),
        .plugin(name: "ModelGenCommand", targets: ["ModelGenCommand"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // SHA-256 on the x86 SHA extensions, used by ModelGenCore where the processor has them.
        .target(name: "CSHA256"),
        // The C allocator's settings for the executables (BatchMemory).
        .target(name: "CAllocator"),
        .target(
            name: "PredicateSyntax",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Mustache",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ModelGenCore",
            dependencies: ["CLibXML2", "CSHA256", "CAllocator", "PredicateSyntax", "Mustache"],
            // The default templates live in the top-level Templates/ folder, where users find them
            // to copy; GenerateSwift/Templates links to it (SwiftPM embeds only files inside
            // the target's directory).
            resources: [
                "entity", "storage", "description", "properties", "overrides", "initializer", "helpers", "model",
            ].map {
                .embedInCode("GenerateSwift/Templates/\($0).mustache")
            },
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ModelGenRuntime",
            dependencies: ["CSQLite", "CLibPQ", "PredicateSyntax"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "modelgen",
            dependencies: ["ModelGenCore", "ModelGenRuntime"],
            swiftSettings: swiftSettings
        ),
        // Runs `modelgen generate` for each model in a target (options from modelgen.json).
        .plugin(
            name: "ModelGenPlugin",
            capability: .buildTool(),
            dependencies: ["modelgen"]
        ),
        // `swift package generate-model-code [--check]`: writes the generated code into the
        // package (for teams that commit it), or checks that what is committed is current.
        .plugin(
            name: "ModelGenCommand",
            capability: .command(
                intent: .custom(
                    verb: "generate-model-code",
                    description: "Write the Swift code of each Core Data model into its target"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "modelgen writes the generated Swift code into the target's folder")
                ]
            ),
            dependencies: ["modelgen"]
        ),
        .executableTarget(
            name: "modelgen-bench",
            // TestSupport: the throwaway PostgreSQL cluster of `runtime --engine postgres`.
            dependencies: [
                "ModelGenCore", "CLibXML2", "ModelGenRuntime", "CSQLite", "CLibPQ", "CAllocator", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        // The applications of SCENARIOS.md, each built through the plugin from its model
        // (a link to the bundle in Models/).
        .target(
            name: "ExampleSupport", dependencies: ["ModelGenRuntime"], path: "Examples/Support",
            swiftSettings: swiftSettings),
    ]
        + examples.map { name, directory, hasOptions in
            .executableTarget(
                name: name,
                dependencies: ["ExampleSupport", "ModelGenRuntime"],
                path: "Examples/\(directory)",
                exclude: ["\(directory).xcdatamodeld"] + (hasOptions ? ["modelgen.json"] : []),
                swiftSettings: swiftSettings,
                plugins: ["ModelGenPlugin"]
            )
        } + [
            // Child processes of the tests (posix_spawn, inheriting only their standard streams).
            .target(name: "CSpawn", path: "Tests/CSpawn"),
            .target(
                name: "TestSupport", dependencies: ["CSpawn", "CSQLite"], path: "Tests/TestSupport",
                swiftSettings: swiftSettings),
            .testTarget(
                name: "ModelGenCoreTests",
                dependencies: [
                    "TestSupport", "ModelGenCore", "ModelGenRuntime", "PredicateSyntax", "Mustache", "CLibXML2",
                    "CSQLite", "CAllocator",
                ],
                exclude: ["Reference", "Fixtures"],
                swiftSettings: swiftSettings
            ),
            // The reviewed generated code of every model in Models/ (golden output of the Swift
            // generator), used by the runtime tests and the stress tool.
            .target(
                name: "GeneratedModels",
                dependencies: ["ModelGenRuntime"],
                path: "Tests/GeneratedModels",
                swiftSettings: swiftSettings
            ),
            // Child processes for the crash-safety and concurrency tests.
            .executableTarget(
                name: "modelgen-stress",
                dependencies: ["GeneratedModels", "ModelGenRuntime", "CDBookmarks5"],
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "ModelGenRuntimeTests",
                // ModelGenCore: the migration tests make stores of older model versions.
                dependencies: [
                    "TestSupport", "ModelGenRuntime", "GeneratedModels", "modelgen-stress", "CSQLite", "ModelGenCore",
                ],
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "CoreDataStoreTests",
                dependencies: ["TestSupport", "ModelGenRuntime", "CSQLite"]
                    + coreDataStoreModels.map { .target(name: $0) },
                swiftSettings: swiftSettings
            ),
            .testTarget(
                name: "modelgenTests",
                dependencies: ["TestSupport", "modelgen"] + examples.map { .target(name: $0.0) },
                swiftSettings: swiftSettings
            ),
        ]
        + coreDataStoreModels.map { module in
            .target(
                name: module, dependencies: ["ModelGenRuntime"], path: "Tests/CoreDataStoreModels/\(module)",
                swiftSettings: swiftSettings)
        },
    swiftLanguageModes: [.v6]
)
