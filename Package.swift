// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Perimeter",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Perimeter", targets: ["Perimeter"]),
        .library(name: "PerimeterIO", targets: ["PerimeterIO"]),
        .executable(name: "perimeter", targets: ["perimeter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Property-based tests with shrinking (the test targets only).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // SQLite, for the store of named monitors and resumable runs (needs libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `swift package generate-documentation`: the DocC catalogs of Perimeter and PerimeterIO.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libgeos's C API through a shim that hides the non-reentrant functions.
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"])]
        ),
        // OpenSSL's libcrypto, for SHA-256 only (the index cache's digests; needs libssl-dev).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Compiler builtins Swift does not expose: the prefetch hint and sincos (inline functions).
        .target(name: "CBuiltins"),
        // The engine: conditions, observations, state machines, authorization. No I/O.
        .target(
            name: "Perimeter",
            dependencies: ["CGEOS", "CBuiltins"]
        ),
        // Readers (GeoJSON, JSON Lines, CSV), the event writer, and the store of monitors (SQLite).
        .target(
            name: "PerimeterIO",
            dependencies: ["Perimeter", "COpenSSL", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "perimeter",
            dependencies: [
                "Perimeter", "PerimeterIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Deterministic randomness shared by the tests and the benchmarks (not a product).
        .target(name: "PerimeterTestSupport"),
        // Scenario generators and runners shared by the property tests of both test targets (not a product).
        .target(
            name: "PerimeterPropertySupport",
            dependencies: ["Perimeter", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // `swift package benchmark`: the package-benchmark suites.
        .executableTarget(
            name: "PerimeterBenchmarks",
            dependencies: [
                "Perimeter", "PerimeterIO", "PerimeterTestSupport",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PerimeterBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Perimeter's side of the peer comparison (Benchmarks/peers/compare.py).
        .executableTarget(
            name: "perimeter-bench",
            dependencies: ["Perimeter", "PerimeterIO"]
        ),
        .testTarget(
            name: "PerimeterTests",
            dependencies: [
                "Perimeter", "CGEOS", "PerimeterTestSupport", "PerimeterPropertySupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PerimeterIOTests",
            dependencies: [
                "Perimeter", "PerimeterIO", "PerimeterTestSupport", "PerimeterPropertySupport", "perimeter",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
