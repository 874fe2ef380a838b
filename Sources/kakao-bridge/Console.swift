import Foundation

/// The command line's own output (not logs): what a person at the terminal reads.
enum Console {
    static func out(_ line: String) { write(line + "\n", to: FileHandle.standardOutput) }
    static func error(_ line: String) { write(line + "\n", to: FileHandle.standardError) }

    private static func write(_ text: String, to handle: FileHandle) {
        // `write(contentsOf:)` throws on a closed pipe (`demo | head`) where `write(_:)` would trap.
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
