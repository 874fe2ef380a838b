import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The sandbox and the demo are a binary of their own, `kakao-bridge-sandbox`, so that the production binary links no
/// stand-in of Kakao or Google (ARCHITECTURE.md). `kakao-bridge sandbox` and `kakao-bridge demo` (and `kakao-bridge`
/// with no configuration) run it from the same directory, with the arguments they were given.
public enum SandboxExecutable {
    public static let name = "kakao-bridge-sandbox"

    /// Replaces this process with the sandbox binary's `subcommand`; returns only by throwing when it cannot.
    public static func exec(_ subcommand: String, _ arguments: [String]) throws -> Never {
        let path = siblingPath()
        guard access(path, X_OK) == 0 else {
            Console.error(
                "kakao-bridge: the sandbox is a binary of its own, \(name), and there is none beside this one (\(path)); "
                    + "build it with `swift build --product \(name)` (scripts/run does), or run `kakao-bridge serve`."
            )
            throw ExitCode(69)
        }
        let argv = [name, subcommand] + arguments
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(path, cArguments)
        Console.error("kakao-bridge: execv(\(path)) failed: \(String(cString: strerror(errno)))")
        throw ExitCode(71)
    }

    /// `kakao-bridge-sandbox` in the directory of the running executable.
    static func siblingPath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return name }
        let own = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/" + name
    }
}
