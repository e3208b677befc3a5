// swift-tools-version: 6.1
// libFuzzer targets for Perimeter's readers, its evaluate path (issue 33) and its index image reader.
// A package of its own, so that the root package's `swift build` / `swift test` never see them. Build
// and run through `scripts/fuzz.sh` (see Fuzz/README.md).
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name (`perimeter` in a clone, anything in a
// worktree), which `.product(name:package:)` must spell.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent.lowercased()

let engine: [Target.Dependency] = [
    .product(name: "Perimeter", package: rootIdentity),
    .product(name: "PerimeterIO", package: rootIdentity),
]

let package = Package(
    name: "PerimeterFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's driver, called from each target's `main` (SwiftPM links its own `main`).
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: engine + ["CLibFuzzer"]),
        .executableTarget(name: "fuzz-conditions", dependencies: engine + ["FuzzSupport"]),
        .executableTarget(name: "fuzz-jsonl", dependencies: engine + ["FuzzSupport"]),
        .executableTarget(name: "fuzz-csv", dependencies: engine + ["FuzzSupport"]),
        .executableTarget(name: "fuzz-evaluate", dependencies: engine + ["FuzzSupport"]),
        .executableTarget(name: "fuzz-index-image", dependencies: engine + ["FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
