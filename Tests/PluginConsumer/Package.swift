// swift-tools-version:6.1
// A package outside modelgen's own package graph that uses modelgen's plugins as a user would:
// Shop and Catalog generate their code at build time (ModelGenPlugin; Catalog is a Swift 6
// program with the catch forms users write); Inventory commits its generated code in
// Sources/Inventory/Generated, written and checked by `swift package generate-model-code`
// (ModelGenCommand). PluginTests copies it to a temporary directory next to a link named
// `modelgen` to the modelgen checkout, builds it, edits its models and builds again.
import PackageDescription

let package = Package(
    name: "PluginConsumer",
    dependencies: [
        .package(path: "../modelgen")
    ],
    targets: [
        .executableTarget(
            name: "Shop",
            dependencies: [.product(name: "ModelGenRuntime", package: "modelgen")],
            exclude: ["Shop.xcdatamodeld", "modelgen.json"],
            plugins: [.plugin(name: "ModelGenPlugin", package: "modelgen")]
        ),
        .executableTarget(
            name: "Catalog",
            dependencies: [.product(name: "ModelGenRuntime", package: "modelgen")],
            exclude: ["Catalog.xcdatamodeld"],
            plugins: [.plugin(name: "ModelGenPlugin", package: "modelgen")]
        ),
        .executableTarget(
            name: "Inventory",
            dependencies: [.product(name: "ModelGenRuntime", package: "modelgen")],
            exclude: ["Inventory.xcdatamodeld", "modelgen.json"]
        ),
    ]
)
