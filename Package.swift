// swift-tools-version:6.2
import PackageDescription

// Strict concurrency is the Swift 6 language mode's default; these keep imports honest.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "kakao-bridge",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "kakao-bridge", targets: ["kakao-bridge"]),
        .executable(name: "kakao-bridge-sandbox", targets: ["kakao-bridge-sandbox"]),
        .library(name: "KakaoBridge", targets: ["KakaoBridge"]),
        .library(name: "StandIns", targets: ["StandIns"]),
    ],
    dependencies: [
        // No default traits: they bring in swift-configuration, which the service does not use.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        // The shared state store's two durable back ends (StateStore). PostgresNIO imports Foundation (ARCHITECTURE.md).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        // Tests only: docs/openapi.yaml parsed and held against the router and its answers (OpenAPIDocumentTests). No
        // default traits: external loading is not needed and builds slower.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        // Tracing (docs/operations.md#tracing): the API for the edge and the upstreams; the OTLP exporter only for the
        // production binary, and only its HTTP trait (the gRPC trait pulls in grpc-swift).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // C libraries: each wrapped once, and only the thin Swift module above it imports it.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // glibc's <malloc.h>, for the one setting the executables make at start (Sources/BridgeCommandLine/MallocArenas.swift).
        .systemLibrary(name: "CGlibcMalloc"),
        // Compiled, not a system library: a load-time constructor that blocks SIGHUP before `main`, and prctl for the
        // core-dump settings (Sources/BridgeCommandLine/ProcessHardening.swift). Only the executables (and the tests) link it.
        .target(name: "CProcessStart"),
        .target(
            name: "CurlHTTP",
            dependencies: ["CCurl", .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: swiftSettings
        ),
        .target(name: "OpenSSLCrypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        // The one JSON path: a byte-level parser into `JSONValue`, one decoding protocol and one writer, shared by the
        // service, the stand-ins and the tests.
        .target(name: "BridgeJSON", swiftSettings: swiftSettings),
        // The release and the commit of this build (docs/operations.md#versions); the plugin reads the commit from git at
        // build time, so a plain `swift build` in a clone needs no flags.
        .target(name: "BuildVersion", swiftSettings: swiftSettings, plugins: ["BuildVersionPlugin"]),
        .plugin(name: "BuildVersionPlugin", capability: .buildTool()),

        // The support layer every other layer uses: the clock, the expiring table, single-flight, the form codec, the
        // metric names and their two tables, and the configuration with its YAML reader. It knows no upstream, feature or
        // route.
        .target(
            name: "BridgeSupport",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"), .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // One folder per outside system (Kakao, Kakao's keys, Identity Toolkit and Google's certificates, Google's token
        // endpoint and the Admin API, the backend), the one call shape they share, the caches in front of them, the
        // tokens the service signs and the problems they fail with. It knows no feature and no route.
        .target(
            name: "Upstreams",
            dependencies: [
                "BridgeJSON",
                "BridgeSupport",
                "CurlHTTP",
                "OpenSSLCrypto",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // The shared, durable state (nonces, unlink marks, the unlink queue, link locks) behind one protocol, kept in
        // memory, a SQLite file or PostgreSQL. It knows no upstream, feature or route.
        .target(
            name: "StateStore",
            dependencies: [
                "BridgeSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The features: each a small service built from the configuration and the upstreams (the login with its user
        // sync, linking and Kakao ID tokens; the hook; revocation; the unlink webhook's work), swapped together on reload.
        // It knows no route, no server and no HTTP framework.
        .target(
            name: "BridgeFeatures",
            dependencies: [
                "BridgeJSON",
                "BridgeSupport",
                "StateStore",
                "Upstreams",
                "CurlHTTP",
                "OpenSSLCrypto",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The edge: the server loop, the connection guard, admission, the route table and its controllers, the one
        // middleware, problem rendering, logs and metrics. The only code that cares about per-connection memory.
        .target(
            name: "KakaoBridge",
            dependencies: [
                "BridgeFeatures",
                "BuildVersion",
                "BridgeJSON",
                "BridgeSupport",
                "Upstreams",
                "CurlHTTP",
                "OpenSSLCrypto",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // Strict loopback stand-ins for Kakao, Identity Toolkit, the certificate endpoint and a backend.
        // Shared by the tests, `kakao-bridge sandbox` and the benchmark.
        .target(
            name: "StandIns",
            dependencies: [
                "BridgeJSON",
                "CurlHTTP",
                "OpenSSLCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both executables share: the command line's output, `--config`, the process's own hardening (core dumps,
        // SIGHUP before the reload handler, malloc arenas) and the sandbox binary's whereabouts.
        .target(
            name: "BridgeCommandLine",
            dependencies: [
                "KakaoBridge",
                "BuildVersion",
                "BridgeSupport",
                "Upstreams",
                "CGlibcMalloc",
                "CProcessStart",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Production's binary: serve, check-config. It links no stand-in; `sandbox` and `demo` run the binary below.
        .executableTarget(
            name: "kakao-bridge",
            dependencies: [
                "KakaoBridge",
                "BuildVersion",
                "BridgeFeatures",
                "BridgeJSON",
                "StateStore",
                .product(name: "Logging", package: "swift-log"),
                "BridgeCommandLine",
                "BridgeSupport",
                "CurlHTTP",
                "Upstreams",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Only here: the OTLP exporter, bootstrapped by `serve` when `tracing.otlp_endpoint` is set.
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // The sandbox and the demo: the service against the stand-ins, for a fresh machine with no accounts.
        .executableTarget(
            name: "kakao-bridge-sandbox",
            dependencies: [
                "KakaoBridge",
                "BuildVersion",
                "BridgeFeatures",
                "BridgeCommandLine",
                "BridgeJSON",
                "BridgeSupport",
                "StandIns",
                "Upstreams",
                "CurlHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The benchmark's upstreams (scripts/bench/run): the stand-ins in a process of their own, so that the service
        // under load is measured alone. Not part of the service.
        .executableTarget(
            name: "bench-upstreams",
            dependencies: ["StandIns", "OpenSSLCrypto", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),

        // The throwaway PostgreSQL the store's tests and the fleet's use (scripts/postgres-test-server); not part of the
        // service.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "CurlHTTPTests", dependencies: ["CurlHTTP", .product(name: "Hummingbird", package: "hummingbird")], swiftSettings: swiftSettings),
        .testTarget(
            name: "StateStoreTests",
            dependencies: ["StateStore", "BridgeSupport", "PostgresTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "OpenSSLCryptoTests", dependencies: ["OpenSSLCrypto"], swiftSettings: swiftSettings),
        // One test target per library (Tests/<Library>Tests), each depending on its library, the layers below it and
        // the support it uses. What every layer's tests share: the hand-moved clock, Foundation's JSON as the parser's
        // reference, the smallest configuration, scratch files with a mode, `/metrics` read as text.
        .target(name: "BridgeTestSupport", dependencies: ["BridgeJSON", "BridgeSupport"], path: "Tests/BridgeTestSupport", swiftSettings: swiftSettings),
        // In-memory fakes of the upstream protocols, for the features' tests and the router-level ones.
        .target(
            name: "UpstreamFakes",
            dependencies: ["Upstreams", "BridgeJSON", "BridgeSupport", "OpenSSLCrypto", "StandIns"],
            path: "Tests/UpstreamFakes",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "BridgeJSONTests", dependencies: ["BridgeJSON", "BridgeTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "BridgeSupportTests", dependencies: ["BridgeSupport", "BridgeJSON", "BridgeTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "UpstreamsTests",
            dependencies: [
                "Upstreams", "BridgeJSON", "BridgeSupport", "CurlHTTP", "OpenSSLCrypto", "StandIns", "BridgeTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BridgeFeaturesTests",
            dependencies: [
                "BridgeFeatures", "BridgeJSON", "BridgeSupport", "StateStore", "Upstreams", "OpenSSLCrypto", "StandIns",
                "BridgeTestSupport", "UpstreamFakes",
            ],
            swiftSettings: swiftSettings
        ),
        // The repository's own documents held to what they claim (docs/dependencies.md against the manifest,
        // docs/clients.md's code against the example client); they test no library.
        .testTarget(name: "DocumentTests", swiftSettings: swiftSettings),
        // The worlds the end-to-end tests start: the stand-ins with the bridge in process (TestWorld), or with the built
        // executables as processes (BridgeProcess, CLIProcess), and the one lock that runs such worlds one at a time.
        .target(
            name: "EndToEndSupport",
            dependencies: [
                "KakaoBridge", "BridgeFeatures", "BridgeJSON", "BridgeSupport", "Upstreams", "CurlHTTP", "OpenSSLCrypto", "StandIns",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/EndToEndSupport",
            swiftSettings: swiftSettings
        ),
        // The built executables run as processes: the command line, signals and reloads, a fleet of two sharing a store,
        // the process's own hardening, the Docker image and the deploy files it agrees with, tracing to an OTLP collector.
        .testTarget(
            name: "ExecutableTests",
            dependencies: [
                "kakao-bridge", "kakao-bridge-sandbox", "BuildVersion", "EndToEndSupport", "BridgeTestSupport", "PostgresTestSupport",
                "KakaoBridge", "BridgeFeatures", "BridgeJSON", "BridgeSupport", "Upstreams", "CurlHTTP", "OpenSSLCrypto", "StandIns",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KakaoBridgeTests",
            dependencies: [
                "KakaoBridge", "BridgeFeatures", "BridgeJSON", "BridgeSupport", "StateStore", "Upstreams", "StandIns", "CurlHTTP", "OpenSSLCrypto",
                "BuildVersion", "BridgeTestSupport", "UpstreamFakes", "EndToEndSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
