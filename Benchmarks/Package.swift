// swift-tools-version:6.1
import PackageDescription

/// Benchmarks live apart from the main package so that `make test` never builds them.
let package = Package(
    name: "TesseraBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Tessera", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "TokenCycleBench",
            dependencies: [
                .product(name: "TesseraLoop", package: "Tessera"),
                .product(name: "TesseraPostgres", package: "Tessera"),
            ],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        ),
        .executableTarget(
            name: "OAuthLoad",
            dependencies: [
                .product(name: "TesseraLoop", package: "Tessera"),
                .product(name: "TesseraPostgres", package: "Tessera"),
                .product(name: "TesseraCrypto", package: "Tessera"),
            ],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        ),
        .executableTarget(
            name: "TokenPathSteps",
            dependencies: [
                .product(name: "TesseraCrypto", package: "Tessera"),
                .product(name: "TesseraHTTP", package: "Tessera"),
                .product(name: "TesseraOAuth", package: "Tessera"),
            ]
        ),
    ]
)
