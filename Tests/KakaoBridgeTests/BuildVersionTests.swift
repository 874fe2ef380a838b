import BridgeJSON
import BuildVersion
import Foundation
@testable import KakaoBridge
import Testing
import EndToEndSupport
import UpstreamFakes

/// docs/operations.md#versions: the release and the commit of the build, said by the first log line, `/readyz` and
/// `kakao_bridge_build_info` (`--version` in `CLITests`), and the release kept equal to CHANGELOG.md's newest.
@Suite("The build's version")
struct BuildVersionTests {
    @Test func theReleaseIsCHANGELOGsNewestAndTheCommitIsFromGit() throws {
        let changelog = try String(contentsOf: CLIProcess.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(newest?.hasPrefix("## [\(BuildVersion.version)] - ") == true, "CHANGELOG.md's newest release: \(newest ?? "none")")
        // A test run is always a build in a clone: the plugin found the commit.
        #expect(BuildVersion.commit.count == 12 && BuildVersion.commit.allSatisfy(\.isHexDigit), "\(BuildVersion.commit)")
        #expect(BuildVersion.description == "\(BuildVersion.version) (commit \(BuildVersion.commit))")
    }

    @Test func readinessMetricsAndTheFirstLogLineNameTheBuild() async throws {
        try await RouterWorld.with { world async throws in
            let ready = try await world.get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.json?["version"] == .string(BuildVersion.version))
            #expect(ready.json?["commit"] == .string(BuildVersion.commit))

            let metrics = try await world.get("/metrics").text
            let line = #"kakao_bridge_build_info{version="\#(BuildVersion.version)",commit="\#(BuildVersion.commit)"} 1.0"#
            #expect(metrics.split(separator: "\n").contains { $0 == line }, "\(line) not in:\n\(metrics)")

            let first = try #require(world.logs.lines.first.flatMap { JSONValue.parse(Array($0.utf8)) })
            #expect(first["message"] == "starting")
            #expect(first["version"] == .string(BuildVersion.version), "\(first.serializedString)")
            #expect(first["commit"] == .string(BuildVersion.commit))
        }
    }
}
