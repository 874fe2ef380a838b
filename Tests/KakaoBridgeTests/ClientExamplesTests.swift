import Foundation
import Testing

/// docs/clients.md shows code that runs: its Swift login is the file CI compiles (examples/swift-client, built and
/// tested by .ci/run), word for word, and its Python blocks parse.
@Suite("docs/clients.md")
struct ClientExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/clients.md"), encoding: .utf8)
        return text.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] + "\n" }
    }

    @Test func theSwiftLoginIsTheCompiledFile() throws {
        let file = try String(
            contentsOf: Self.root.appendingPathComponent("examples/swift-client/Sources/KakaoBridgeClient/SignInWithKakao.swift"), encoding: .utf8
        )
        #expect(try Self.blocks("swift").first == file)
    }

    @Test func thePythonBlocksParse() throws {
        let blocks = try Self.blocks("python")
        #expect(blocks.count == 2)
        for block in blocks {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", "import ast, sys; ast.parse(sys.argv[1])", block]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(block)")
        }
    }
}
