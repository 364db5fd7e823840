// swift-tools-version:6.1
import PackageDescription

/// Upcoming features every Tessera target enables (DESIGN §6).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tessera", targets: ["tessera"]),
        .library(name: "TesseraLoop", targets: ["TesseraLoop"]),
        .library(name: "TesseraPostgres", targets: ["TesseraPostgres"]),
        .library(name: "TesseraCrypto", targets: ["TesseraCrypto"]),
        // For the fuzz targets (Tests/Fuzz), which reach the parsers from a package of their own.
        .library(name: "TesseraHTTP", targets: ["TesseraHTTP"]),
        .library(name: "TesseraJSON", targets: ["TesseraJSON"]),
        .library(name: "TesseraRPC", targets: ["TesseraRPC"]),
        .library(name: "TesseraOAuth", targets: ["TesseraOAuth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CHTTPParser", providers: [.apt(["libhttp-parser-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // The executable's allocator (docs/operations.md, "Memory allocator"); no library target links it.
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),

        .target(name: "TesseraJSON", swiftSettings: swiftSettings),
        .target(name: "TesseraMetrics", swiftSettings: swiftSettings),
        .target(name: "TesseraCrypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        .target(name: "TesseraQRCode", dependencies: ["CQRencode"], swiftSettings: swiftSettings),
        .target(
            name: "TesseraLoop",
            dependencies: ["CLibUV", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraHTTP",
            dependencies: [
                "TesseraLoop", "CLibUV", "CHTTPParser", "COpenSSL", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraRPC",
            dependencies: ["TesseraHTTP", "TesseraJSON", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraPostgres",
            dependencies: ["TesseraLoop", "CLibPQ"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraCore",
            dependencies: [
                "TesseraPostgres", "TesseraCrypto", "TesseraJSON", "TesseraHTTP", "TesseraLoop",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MultiFactor",
            dependencies: [
                "TesseraCore", "TesseraPostgres", "TesseraCrypto", "TesseraJSON", "TesseraMetrics",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TOTPFactor",
            dependencies: ["MultiFactor", "TesseraCore", "TesseraCrypto", "TesseraJSON", "TesseraPostgres", "TesseraQRCode"],
            path: "Plugins/TOTPFactor",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RecoveryCodeFactor",
            dependencies: ["MultiFactor", "TesseraCore", "TesseraCrypto", "TesseraJSON"],
            path: "Plugins/RecoveryCodeFactor",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhoneCodes",
            dependencies: ["TesseraCore", "TesseraCrypto", "TesseraJSON", "TesseraPostgres", "TesseraHTTP"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhoneFactor",
            dependencies: ["MultiFactor", "PhoneCodes", "TesseraCore", "TesseraJSON"],
            path: "Plugins/PhoneFactor",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhoneSignIn",
            dependencies: ["MultiFactor", "PhoneCodes", "TesseraCore", "TesseraJSON", "TesseraPostgres"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FactorServices",
            dependencies: [
                "MultiFactor", "TesseraCore", "TesseraCrypto", "TesseraHTTP", "TesseraJSON", "TesseraMetrics",
                "TesseraPostgres", "TesseraRPC", "TesseraLoop", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraOAuth",
            dependencies: [
                "MultiFactor", "PhoneSignIn", "TesseraCore", "TesseraCrypto", "TesseraPostgres", "TesseraHTTP", "TesseraJSON",
                "TesseraLoop",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraServer",
            dependencies: [
                "TesseraLoop", "TesseraHTTP", "TesseraRPC", "TesseraJSON", "TesseraPostgres", "TesseraMetrics", "TesseraCrypto",
                "TesseraCore", "MultiFactor", "TOTPFactor", "RecoveryCodeFactor", "PhoneCodes", "PhoneFactor", "PhoneSignIn",
                "TesseraOAuth",
                "FactorServices", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraServer", "TesseraLoop", "TesseraPostgres", "TesseraCrypto", "TesseraHTTP", "TesseraJSON",
                "TesseraMetrics", "FactorServices", "MultiFactor", "TOTPFactor", "PhoneCodes", "PhoneFactor",
                "TesseraCore", "CMimalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "TesseraJSONTests", dependencies: ["TesseraJSON"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TesseraCryptoTests", dependencies: ["TesseraCrypto", "TesseraTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "TesseraQRCodeTests", dependencies: ["TesseraQRCode"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TesseraPostgresTests", dependencies: ["TesseraPostgres", "TesseraLoop"], swiftSettings: swiftSettings
        ),
        .testTarget(name: "TesseraMetricsTests", dependencies: ["TesseraMetrics"], swiftSettings: swiftSettings),
        .testTarget(name: "TesseraLoopTests", dependencies: ["TesseraLoop"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TesseraHTTPTests",
            dependencies: ["TesseraHTTP", "TesseraLoop", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TesseraRPCTests",
            dependencies: ["TesseraRPC", "TesseraJSON", "TesseraHTTP"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TesseraTestSupport",
            dependencies: [
                "TesseraCore", "TesseraPostgres", "TesseraLoop", "TesseraCrypto", "TesseraJSON", "MultiFactor",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TesseraTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TesseraCoreTests",
            dependencies: [
                "TesseraCore", "TesseraPostgres", "TesseraLoop", "TesseraJSON", "TesseraCrypto", "TesseraTestSupport",
                "TesseraHTTP", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FactorServicesTests",
            dependencies: [
                "FactorServices", "MultiFactor", "TOTPFactor", "TesseraCore", "TesseraCrypto", "TesseraHTTP",
                "TesseraJSON", "TesseraLoop", "TesseraMetrics", "TesseraPostgres", "TesseraTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MultiFactorTests",
            dependencies: [
                "MultiFactor", "TOTPFactor", "RecoveryCodeFactor", "TesseraCore", "TesseraPostgres", "TesseraLoop",
                "TesseraJSON", "TesseraCrypto", "TesseraMetrics", "TesseraTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhoneTestSupport",
            dependencies: [
                "PhoneCodes", "PhoneFactor", "PhoneSignIn", "MultiFactor", "TesseraCore", "TesseraPostgres",
                "TesseraLoop", "TesseraJSON", "TesseraCrypto", "TesseraHTTP", "TesseraTestSupport", "FactorServices",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PhoneTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhoneCodesTests",
            dependencies: [
                "PhoneCodes", "PhoneSignIn", "PhoneTestSupport", "MultiFactor", "TesseraCore", "TesseraJSON",
                "TesseraTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhoneFactorTests",
            dependencies: [
                "PhoneFactor", "PhoneTestSupport", "MultiFactor", "TesseraCore", "TesseraJSON", "TesseraTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhoneSignInTests",
            dependencies: [
                "PhoneSignIn", "PhoneFactor", "PhoneTestSupport", "MultiFactor", "TesseraCore", "TesseraJSON",
                "TesseraTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TesseraOAuthTests",
            dependencies: [
                "TesseraOAuth", "TesseraCore", "TesseraTestSupport", "TesseraPostgres", "TesseraCrypto", "TesseraHTTP",
                "TesseraJSON", "MultiFactor", "TOTPFactor", "PhoneCodes", "PhoneSignIn", "TesseraServer", "TesseraLoop",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TesseraAdminTests",
            dependencies: [
                "tessera", "TesseraJSON", "TesseraHTTP", "TesseraLoop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TesseraServerTests",
            dependencies: [
                "TesseraServer", "TesseraLoop", "TesseraHTTP", "TesseraRPC", "TesseraJSON", "TesseraCore",
                "TesseraMetrics", "PhoneCodes", "MultiFactor", "FactorServices", "TesseraPostgres", "TesseraCrypto",
                "TesseraOAuth", "TesseraTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
