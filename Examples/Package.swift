// swift-tools-version: 6.1
import PackageDescription

// Examples that use Perimeter as another package would: through its products, from the repository
// root by path. `swift run --package-path Examples QuickStart` runs the README's quick start.
let package = Package(
    name: "PerimeterExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Perimeter", path: ".."),
    ],
    targets: [
        // README "The library": its quick start, byte for byte (a test checks it).
        .executableTarget(
            name: "QuickStart",
            dependencies: [
                .product(name: "Perimeter", package: "Perimeter"),
                .product(name: "PerimeterIO", package: "Perimeter"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
