import Synchronization

/// Where log lines go: stdout in production, memory in tests (which read back every line to prove no secret is in it).
public final class LogSink: Sendable {
    private enum Target {
        case standardOutput
        case memory
    }

    private let target: Target
    private let captured = Mutex<[String]>([])
    private let writeLock = Mutex<Void>(())

    public static let standardOutput = LogSink(target: .standardOutput)

    public static func memory() -> LogSink { LogSink(target: .memory) }

    private init(target: Target) { self.target = target }

    func write(_ line: String) {
        switch target {
        case .standardOutput:
            writeLock.withLock { _ in
                var data = Array(line.utf8)
                data.append(UInt8(ascii: "\n"))
                // write(2) on fd 1: unbuffered, so a line is never lost or split when the process is stopped.
                data.withUnsafeBytes { Descriptor.writeAll(1, $0) }
            }
        case .memory:
            captured.withLock { $0.append(line) }
        }
    }

    /// Lines written so far (memory sinks only).
    public var lines: [String] { captured.withLock { $0 } }
}
