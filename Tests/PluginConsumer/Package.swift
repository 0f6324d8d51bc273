// swift-tools-version:6.1
// A package outside modelgen's own package graph that uses ModelGenPlugin as a user would.
// PluginTests copies it to a temporary directory next to a link named `modelgen` to the
// modelgen checkout, builds it, edits its model and builds again.
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
        )
    ]
)
