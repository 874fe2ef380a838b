import BridgeSupport
import Foundation
@testable import KakaoBridge
import Testing

/// The `process_*` metrics (docs/operations.md#scraping), read from /proc when `/metrics` is scraped.
@Suite struct ProcessMetricsTests {
    @Test func theStatLineIsReadFromItsLastParenthesis() throws {
        // The command name may hold spaces and parentheses; the fields are counted after the last `)`.
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 1234 0 5 0 250 75 0 0 20 0 9 0 123456 987654321 2048 "
            + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0\n"
        let stat = try #require(ProcessStat(parsing: Array(line.utf8)))
        #expect(stat == ProcessStat(userTicks: 250, systemTicks: 75, startTicks: 123_456, virtualBytes: 987_654_321, residentPages: 2048))
        #expect(ProcessStat(parsing: Array("4242 (cut) S 1 2 3".utf8)) == nil)
        #expect(ProcessStat(parsing: Array("no parenthesis".utf8)) == nil)
    }

    @Test func theBootTimeIsTheBtimeLine() {
        let stat = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 12 0 0\nctxt 99\nbtime 1700000000\nprocesses 5\n"
        #expect(ProcessMetrics.bootTime(procStat: Array(stat.utf8)) == 1_700_000_000)
        #expect(ProcessMetrics.bootTime(procStat: Array("cpu 1 2\n".utf8)) == nil)
    }

    @Test func aSampleOfThisProcessAgreesWithWhatTheKernelSays() throws {
        let sample = ProcessMetrics.sample()
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func kilobytes(_ field: String) throws -> Int {
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
            return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        }
        let resident = try #require(sample.residentBytes)
        let vmRSS = try kilobytes("VmRSS") * 1024
        // The two are read at different moments of a process that allocates: within a quarter of each other.
        #expect(resident > 1 << 20 && abs(resident - vmRSS) < vmRSS / 4, "\(resident) vs VmRSS \(vmRSS)")
        let virtual = try #require(sample.virtualBytes)
        #expect(virtual >= resident)
        let open = try #require(sample.openFDs)
        let listed = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        #expect(open > 2 && abs(open - listed) <= 8, "\(open) vs \(listed)")
        let limit = try #require(sample.maxFDs)
        #expect(limit >= open)
        let cpu = try #require(sample.cpuSeconds)
        #expect(cpu > 0)
        #expect(ProcessMetrics.sample().cpuSeconds ?? 0 >= cpu, "CPU time only grows")
        let start = try #require(sample.startTimeSeconds)
        let now = Date().timeIntervalSince1970
        // This test process started before this test and, on any CI, less than a day ago.
        #expect(start < now && start > now - 86_400, "\(start) vs now \(now)")
    }

    @Test func theLinesAreThoseOfEveryPrometheusClient() {
        let metrics = ProcessMetrics(
            cpuSeconds: 1.5, residentBytes: 4096, virtualBytes: 8192, openFDs: 7, maxFDs: 1024, startTimeSeconds: 1_700_000_000.25
        )
        var text: [UInt8] = []
        metrics.render(into: &text)
        #expect(String(decoding: text, as: UTF8.self) == """
            # HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
            # TYPE process_cpu_seconds_total counter
            process_cpu_seconds_total 1.5
            # HELP process_resident_memory_bytes Resident memory size in bytes.
            # TYPE process_resident_memory_bytes gauge
            process_resident_memory_bytes 4096
            # HELP process_virtual_memory_bytes Virtual memory size in bytes.
            # TYPE process_virtual_memory_bytes gauge
            process_virtual_memory_bytes 8192
            # HELP process_open_fds Number of open file descriptors.
            # TYPE process_open_fds gauge
            process_open_fds 7
            # HELP process_max_fds Maximum number of open file descriptors.
            # TYPE process_max_fds gauge
            process_max_fds 1024
            # HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
            # TYPE process_start_time_seconds gauge
            process_start_time_seconds 1700000000.25

            """)
        // What cannot be read is left out, not reported as 0.
        var partial: [UInt8] = []
        ProcessMetrics(cpuSeconds: nil, residentBytes: nil, virtualBytes: nil, openFDs: 3, maxFDs: nil, startTimeSeconds: nil)
            .render(into: &partial)
        #expect(String(decoding: partial, as: UTF8.self).split(separator: "\n").count == 3)
    }
}
