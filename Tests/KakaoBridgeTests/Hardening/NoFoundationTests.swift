import Foundation
import Testing

/// No module of ours imports Foundation (ARCHITECTURE.md, "No Foundation in our modules"): Foundation maps ICU for the
/// process's life (its cost: docs/benchmarks.md#memory-the-current-figures). PostgresNIO and swift-otel bring it into
/// the binary anyway; the build without them (scripts/bench/no-foundation.patch) must stay without it.
@Suite("No Foundation in the service")
struct NoFoundationTests {
    /// Every module linked into `kakao-bridge` and `kakao-bridge-sandbox`; `bench-upstreams` and the tests are not the
    /// service.
    static let serviceModules = [
        "BridgeCommandLine", "BridgeFeatures", "BridgeJSON", "BridgeSupport", "BuildVersion", "CurlHTTP", "KakaoBridge", "OpenSSLCrypto", "StandIns", "StateStore",
        "Upstreams", "kakao-bridge", "kakao-bridge-sandbox",
    ]

    @Test func noServiceModuleImportsFoundation() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        var offenders: [String] = []
        var files = 0
        for module in Self.serviceModules {
            let folder = sources.appendingPathComponent(module)
            let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let path as String in enumerator where path.hasSuffix(".swift") {
                files += 1
                let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && !["public", "internal", "package"].contains($0) }
                    if words.count >= 2, words[0] == "import", words[1] == "Foundation" {
                        offenders.append("\(module)/\(path)")
                    }
                }
            }
        }
        #expect(files > 100)
        #expect(offenders.isEmpty, "import Foundation in: \(offenders)")
    }

    /// `scripts/bench/no-foundation.patch` builds the service without the two dependencies that import Foundation, to
    /// measure what it costs (docs/benchmarks.md, the crowd's memory bound): it must keep applying to this tree, or the
    /// measurement can no longer be repeated.
    @Test(.enabled(if: isGitCheckout)) func theMeasurementBuildWithoutFoundationStillApplies() throws {
        let (status, output) = try FleetPostgres.run(
            "/usr/bin/env", ["git", "-C", Self.root.path, "apply", "--check", "scripts/bench/no-foundation.patch"]
        )
        #expect(status == 0, "git apply --check: \(output)")
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A source archive has no `.git`; the check needs one (CI runs on a clone).
    static var isGitCheckout: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(".git").path) }
}
