import Foundation

/// The command line's own output (not logs): what a person at the terminal reads.
enum Console {
    static func out(_ line: String) { write(line + "\n", to: FileHandle.standardOutput) }
    static func error(_ line: String) { write(line + "\n", to: FileHandle.standardError) }

    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}
