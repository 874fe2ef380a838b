import BridgeSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `process_*` metrics every Prometheus client library exports, with the same names, types and sources as Go's
/// client (docs/operations.md#scraping): CPU time, resident and virtual memory and the start time from
/// `/proc/self/stat` (and the boot time in `/proc/stat`), open descriptors counted in `/proc/self/fd`, their limit from
/// `getrlimit`. Read when `/metrics` is scraped, on the scrape's thread: no thread samples them in between. Plain POSIX
/// reads, as `FileBytes` does. A value that cannot be read is left out rather than reported as 0.
///
/// The process is not dumpable (deploy/README.md#core-dumps), which makes `/proc/self` belong to root; the kernel still
/// lets a process read its own.
struct ProcessMetrics: Equatable {
    var cpuSeconds: Double?
    var residentBytes: Int?
    var virtualBytes: Int?
    var openFDs: Int?
    var maxFDs: Int?
    var startTimeSeconds: Double?

    static func sample() -> ProcessMetrics {
        let stat = FileBytes.read(path: "/proc/self/stat", limit: 4096).flatMap(ProcessStat.init(parsing:))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        return ProcessMetrics(
            cpuSeconds: stat.map { Double($0.userTicks + $0.systemTicks) / ticks },
            residentBytes: stat.map { $0.residentPages * pageSize },
            virtualBytes: stat?.virtualBytes,
            openFDs: openDescriptors(),
            maxFDs: descriptorLimit(),
            startTimeSeconds: startTime
        )
    }

    /// Boot time plus the start's ticks after boot: constant for the process's life, so read once, at the first scrape.
    static let startTime: Double? = {
        guard let stat = FileBytes.read(path: "/proc/self/stat", limit: 4096).flatMap(ProcessStat.init(parsing:)),
              let boot = FileBytes.read(path: "/proc/stat", limit: 1 << 20).flatMap(bootTime(procStat:))
        else { return nil }
        return Double(boot) + Double(stat.startTicks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()

    /// The entries of `/proc/self/fd`, the directory's own descriptor included, as Go's client counts them.
    static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count
    }

    /// The soft limit on open descriptors (`RLIMIT_NOFILE`), the one `open` fails at.
    static func descriptorLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        // RLIM_INFINITY, all bits set, is a macro Swift cannot import.
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    /// The `btime` line of `/proc/stat`: when the machine booted, in seconds since the epoch.
    static func bootTime(procStat bytes: [UInt8]) -> Int? {
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: "btime ".utf8) {
            return Int(String(decoding: line.dropFirst(6), as: UTF8.self).trimmingSpaces())
        }
        return nil
    }

    /// The exposition lines, `# HELP` and `# TYPE` from the table of metric names (`MetricName`).
    func render(into text: inout [UInt8]) {
        func line(_ metric: MetricName, _ value: String?) {
            guard let value else { return }
            text.append(contentsOf: "# HELP \(metric.rawValue) \(metric.help)\n".utf8)
            text.append(contentsOf: "# TYPE \(metric.rawValue) \(metric.kind.rawValue)\n".utf8)
            text.append(contentsOf: "\(metric.rawValue) \(value)\n".utf8)
        }
        line(.processCPUSeconds, cpuSeconds.map { "\($0)" })
        line(.processResidentMemory, residentBytes.map { "\($0)" })
        line(.processVirtualMemory, virtualBytes.map { "\($0)" })
        line(.processOpenFDs, openFDs.map { "\($0)" })
        line(.processMaxFDs, maxFDs.map { "\($0)" })
        line(.processStartTime, startTimeSeconds.map { "\($0)" })
    }
}

/// The fields of `/proc/self/stat` (proc(5)) the metrics use.
struct ProcessStat: Equatable {
    /// Fields 14 and 15, `utime` and `stime`, in clock ticks.
    var userTicks: Int
    var systemTicks: Int
    /// Field 22, `starttime`: clock ticks after boot.
    var startTicks: Int
    /// Field 23, `vsize`, in bytes.
    var virtualBytes: Int
    /// Field 24, `rss`, in pages.
    var residentPages: Int

    /// The second field, the command name in parentheses, may itself hold spaces and parentheses: the fields are counted
    /// from the last `)`.
    init?(parsing bytes: [UInt8]) {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        // `fields[0]` is field 3, the state.
        func field(_ number: Int) -> Int? {
            let index = number - 3
            guard index < fields.count else { return nil }
            return Int(String(decoding: fields[index], as: UTF8.self))
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23),
              let resident = field(24)
        else { return nil }
        self.init(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }

    init(userTicks: Int, systemTicks: Int, startTicks: Int, virtualBytes: Int, residentPages: Int) {
        self.userTicks = userTicks
        self.systemTicks = systemTicks
        self.startTicks = startTicks
        self.virtualBytes = virtualBytes
        self.residentPages = residentPages
    }
}
