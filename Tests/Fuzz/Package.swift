// swift-tools-version:6.1
import PackageDescription

/// libFuzzer targets over Tessera's parsers, apart from the main package so that `make test` never builds them.
/// `make fuzz` builds them with `-sanitize=fuzzer,address` and runs each against its corpus in `Corpus/`.
let package = Package(
    name: "TesseraFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Tessera", path: "../..")
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "TesseraFuzz",
            dependencies: [
                "CFuzzDriver",
                .product(name: "TesseraHTTP", package: "Tessera"),
                .product(name: "TesseraJSON", package: "Tessera"),
                .product(name: "TesseraRPC", package: "Tessera"),
                .product(name: "TesseraCrypto", package: "Tessera"),
                .product(name: "TesseraOAuth", package: "Tessera"),
            ],
        ),
    ]
)
