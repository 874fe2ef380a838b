import BridgeSupport
import Foundation
@testable import KakaoBridge
import Testing
import EndToEndSupport
import UpstreamFakes

/// Every metric of `/metrics` has a `# HELP` line before its `# TYPE` (docs/operations.md#scraping), from the one table
/// of metric names (`MetricName`), whose types the exposition agrees with.
@Suite struct OpsMetricsHelpTests {
    /// `# TYPE name kind` lines, each with the line before it.
    static func typeLines(_ text: String) -> [(name: String, kind: String, previous: String)] {
        let lines = text.split(separator: "\n").map(String.init)
        return lines.indices.compactMap { index in
            let fields = lines[index].split(separator: " ")
            guard fields.count == 4, fields[0] == "#", fields[1] == "TYPE" else { return nil }
            return (String(fields[2]), String(fields[3]), index > 0 ? lines[index - 1] : "")
        }
    }

    @Test func everyTypeLineOfAScrapeHasItsHelpLineFromTheTable() async throws {
        try await TestWorld.with(TestWorld.Options(firebase: true, hook: true)) { world in
            // Traffic that makes most metrics: requests, upstream calls, the caches, the user sync, a rate-limit-free 404.
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.get("/no/such/path").status == 404)
            let text = try await world.get("/metrics").text
            let types = Self.typeLines(text)
            #expect(types.count >= 15, "\(types.map(\.name))")
            for (name, kind, previous) in types {
                let metric = MetricName(rawValue: name)
                #expect(metric != nil, "\(name) is not in MetricName")
                #expect(previous == "# HELP \(name) \(metric?.help ?? "?")", "\(name): \(previous)")
                #expect(kind == metric?.kind.rawValue, "\(name) is a \(kind)")
            }
            for process in [MetricName.processCPUSeconds, .processResidentMemory, .processVirtualMemory, .processOpenFDs, .processMaxFDs,
                            .processStartTime] {
                #expect(types.contains { $0.name == process.rawValue }, "\(process.rawValue) missing")
            }
            // Exactly one HELP line per metric, and none without its TYPE after it.
            let helps = text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }
            #expect(helps.count == types.count)
        }
    }

    @Test func everyNameInTheTableHasOneLineOfHelpAndAPrometheusName() {
        for metric in MetricName.allCases {
            #expect(!metric.help.isEmpty && !metric.help.contains("\n") && !metric.help.contains("\\"), "\(metric)")
            #expect(metric.rawValue.hasPrefix("kakao_bridge_") || metric.rawValue.hasPrefix("process_"))
            #expect(metric.rawValue.allSatisfy { $0.isASCII && ($0.isLowercase || $0 == "_") })
            // Prometheus's naming: counters end in _total, nothing else does.
            #expect((metric.kind == .counter) == metric.rawValue.hasSuffix("_total"), "\(metric)")
        }
    }

    /// A metric made with a name of its own would have no help text: every metric of the service is named by the table.
    @Test func noMetricIsMadeWithANameOutsideTheTable() throws {
        let sources = OpsMetricsHelpTests.root.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        var offenders: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") && !path.hasPrefix("StandIns") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            // A metric's label as a string literal, on the line of its type or the next.
            let literal = #"(Counter|Timer|Meter|Gauge|Recorder)\(\s*label:\s*""#
            if let range = text.range(of: literal, options: .regularExpression) {
                offenders.append("\(path): \(text[range])")
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
