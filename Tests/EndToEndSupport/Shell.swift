import Foundation

package enum Shell {
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        let errors = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 || executable.hasSuffix("curl") else {
            let message = String(decoding: errorData, as: UTF8.self)
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(output)\(message)")
        }
        return output
    }

    package static func which(_ name: String) throws -> String {
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin"] {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw HarnessError("\(name) is not installed (scripts/nginx-test.sh installs it)")
    }
}
