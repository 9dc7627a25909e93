// swift-tools-version:6.2
// transfertop: a terminal transfer monitor, and TransferKit, the URLSession model on libcurl.
import PackageDescription

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
    .product(name: "NIOHTTP2", package: "swift-nio-http2"),
]

let package = Package(
    name: "transfertop",
    products: [
        .library(name: "TransferKit", targets: ["TransferKit"]),
        .executable(name: "transfertop", targets: ["transfertop"]),
        .executable(name: "transferbench", targets: ["transferbench"]),
    ],
    // `--otlp`: traces through swift-otel, whose build takes minutes. On by default; the
    // sanitizer builds of scripts/test pass --disable-default-traits (DECISIONS 187).
    traits: [
        .trait(name: "OpenTelemetry", description: "Export tasks as OpenTelemetry traces over OTLP/HTTP (--otlp)"),
        .default(enabledTraits: ["OpenTelemetry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // Property-based tests (random input never crashes a parser).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // Job files, themes and key bindings are TOML 1.0: toml++ through TOMLKit.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // Tests read our CSV exports back with an RFC 4180 reader we did not write.
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // `--prometheus`: /metrics in the Prometheus text format.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Diagnostics: `--log-file`, `--log-level`, `--trace`.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The command line: parsing, help, completions, man page.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The background-session journal: SQLite in WAL mode through GRDB.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // End-of-run percentiles per host and phase: HDR histograms (bounded relative error,
        // constant memory per histogram whatever the number of transfers).
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // `--otlp`: tasks as traces, OTLP over HTTP only (the gRPC exporter's build is far larger).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // C shims: libcurl's variadic calls as typed functions, OpenSSL TLS facts, SHA-256 and MD5.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CNcurses", path: "Sources/CNcurses", pkgConfig: "ncursesw",
            providers: [.apt(["libncursesw5-dev"])]),
        // Value types and logic: states, metrics, errors, exports, resume data. No file or
        // network I/O and no C (its few short digests are its own, DECISIONS 181); StatePaths
        // reads the environment.
        .target(name: "TransferModel"),
        // SHA-256 and MD5 through CCurl's OpenSSL calls: file names, segment digests, bodies.
        .target(name: "Digest", dependencies: ["CCurl", "TransferModel"]),
        // A run as evidence, pure: per-host phase histograms and their percentile table and
        // JSON, budgets (`--slo`) and their checks, `compare` of two exports (CSV or HAR), and
        // `report`'s model and pages (Report/).
        .target(name: "RunEvidence", dependencies: ["TransferModel", .product(name: "Histogram", package: "hdrhistogram-swift")]),
        // The daemon's wire, on Foundation and TransferModel: socket paths, the daemon lock,
        // JSON lines, the library's requests, starting the daemon on demand. TransferKit, the
        // daemon and the CLI share it.
        .target(name: "BackgroundWire", dependencies: ["TransferModel"]),
        // The engine: sessions, tasks and the libcurl transfer thread.
        .target(name: "TransferKit", dependencies: ["TransferModel", "Digest", "BackgroundWire", "CCurl"]),
        // A loopback HTTP/1.1 + HTTPS + HTTP/2 server for tests, benchmarks and the demo.
        .target(name: "LoopbackServer", dependencies: nio + ["TransferModel", "Digest"]),
        // The monitor's pure parts: cell grid, layout, bars, waterfall, themes, key table.
        .target(name: "TransferTopUI", dependencies: ["TransferModel", .product(name: "TOMLKit", package: "TOMLKit")]),
        // Background sessions' durable record: sessions, tasks, events, delivery bookmarks.
        .target(name: "BackgroundJournal", dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
        // Tasks as traces: a pure map from a task's metrics to span descriptions (always built),
        // and the OTLP/HTTP exporter through swift-otel (only with the OpenTelemetry trait).
        .target(name: "TransferTopTelemetry", dependencies: [
            "TransferModel",
            .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
        ]),
        // What a run is, for line mode, the monitor and the daemon alike: options and their
        // checks, job files, the plan, the Runner (file placement, resume and completion
        // stores), observability (logs, --trace, Prometheus /metrics over NIO), the version.
        .target(name: "TransferTopRun", dependencies: [
            "TransferKit", "TransferTopUI", "BackgroundWire", "RunEvidence", "TransferTopTelemetry",
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Logging", package: "swift-log"),
        ] + nio, plugins: ["VersionStamp"]),
        // The background daemon: its socket, the sessions it runs through the Runner, the
        // journal's use, and the client the CLI talks to it with. No terminal, no parser.
        .target(name: "TransferTopDaemon", dependencies: [
            "TransferTopRun", "TransferKit", "BackgroundJournal", "BackgroundWire",
        ]),
        // The command line (argument-parser), the monitor and its ncurses backend, the demo and
        // the background commands' client side, as a testable library.
        .target(name: "TransferTopCLI", dependencies: [
            "TransferTopRun", "TransferTopDaemon", "TransferKit", "TransferTopUI", "LoopbackServer", "CNcurses",
            "BackgroundWire", "RunEvidence",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // `transfertop --version`: git describe (or VERSION, or "unknown") stamped at build time.
        .plugin(name: "VersionStamp", capability: .buildTool()),
        // Linked without exporting its symbols (swiftc asks the linker for -export-dynamic):
        // nothing looks them up, and at start-up the Swift runtime's dladdr walked all 50,000
        // of them, 6 % of a one-URL run (DECISIONS 195).
        .executableTarget(name: "transfertop", dependencies: ["TransferTopCLI"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]),
        // Benchmark driver: TransferKit vs Foundation's URLSession, run by scripts/bench.
        .executableTarget(name: "transferbench", dependencies: ["TransferKit", "LoopbackServer"]),
        // A fixed monitor model shared by the UI golden tests and the off-screen ncurses tests.
        .target(name: "MonitorFixtures", dependencies: ["TransferTopUI"], path: "Tests/MonitorFixtures"),
        // Test helpers shared by the test targets: blocking work off the cooperative pool, waits.
        .target(name: "TestSupport", dependencies: ["TransferModel", .product(name: "CSV", package: "CSV.swift")], path: "Tests/TestSupport",
                exclude: ["announced.py", "ftp_server.py", "otlp_receiver.py"]),
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        // Digest too: TransferModel's own SHA-256 is checked against OpenSSL's.
        .testTarget(name: "TransferModelTests", dependencies: ["TransferModel", "Digest", "TestSupport"]),
        .testTarget(name: "RunEvidenceTests", dependencies: ["RunEvidence", "TransferModel"]),
        .testTarget(name: "TransferTopTelemetryTests", dependencies: ["TransferTopTelemetry", "TransferModel", "TestSupport"]),
        .testTarget(name: "TransferKitTests", dependencies: ["TransferKit", "BackgroundWire", "LoopbackServer", "TestSupport"]),
        .testTarget(name: "LoopbackServerTests", dependencies: ["LoopbackServer", "TransferModel", "TestSupport"]),
        // GRDB directly too: the tests write foreign and future-schema SQLite files and read pragmas.
        .testTarget(name: "BackgroundJournalTests", dependencies: [
            "BackgroundJournal", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "TransferTopUITests", dependencies: ["TransferTopUI", "MonitorFixtures"], exclude: ["Golden"]),
        .testTarget(name: "TransferTopCLITests", dependencies: [
            "TransferTopCLI", "TransferTopRun", "TransferTopDaemon", "Digest", "BackgroundJournal", "BackgroundWire",
            "LoopbackServer", "MonitorFixtures", "TestSupport", "CTestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ], exclude: ["Golden"]),
    ]
)
