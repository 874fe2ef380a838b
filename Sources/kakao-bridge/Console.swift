#if canImport(Glibc)
import Glibc
#endif

/// The command line's own output (not logs): what a person at the terminal reads.
enum Console {
    static func out(_ line: String) { write(line + "\n", to: 1) }
    static func error(_ line: String) { write(line + "\n", to: 2) }

    /// Plain write(2): a closed pipe (`demo | head`) makes it fail with EPIPE (SIGPIPE is ignored), and the output
    /// simply stops, where a trap would end the process.
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
