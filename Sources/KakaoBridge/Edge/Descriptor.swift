#if canImport(Glibc)
import Glibc
#endif

/// Plain write(2) to an open descriptor: the log lines (`LogSink`) and the command line's own output (`Console`).
public enum Descriptor {
    /// Writes all of `bytes`, again after a signal interrupts the call; stops at the first error, such as EPIPE from a
    /// closed pipe (`demo | head`, SIGPIPE being ignored), where a trap would end the process.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
