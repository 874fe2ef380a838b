import KakaoBridge

/// The command line's own output (not logs): what a person at the terminal reads.
public enum Console {
    public static func out(_ line: String) { write(line + "\n", to: 1) }
    public static func error(_ line: String) { write(line + "\n", to: 2) }

    /// Unbuffered, like the log lines; a closed pipe (`demo | head`) just ends the output (`Descriptor.writeAll`).
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { Descriptor.writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }
}
