import Foundation
import Testing

/// docs/clients.md shows code that runs: its Swift login is the file CI compiles (examples/swift-client, built and
/// tested by .ci/run), word for word, its Python blocks parse, and so do its JavaScript blocks where node is installed.
/// The Kotlin login uses the Firebase modules of BoM 34 and later, and the web login the Firebase JS SDK's modular API.
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

    /// Firebase's Android BoM 34 dropped the `-ktx` modules: `Firebase.auth` is imported from the main modules.
    @Test func theKotlinLoginImportsFirebasesMainModules() throws {
        let blocks = try Self.blocks("kotlin")
        let kotlin = try #require(blocks.first)
        #expect(kotlin.contains("import com.google.firebase.Firebase\n"))
        #expect(kotlin.contains("import com.google.firebase.auth.auth\n"))
        #expect(kotlin.contains("Firebase.auth.signInWithCustomToken("))
        #expect(!kotlin.contains(".ktx"), "\(kotlin)")
    }

    /// The web login: the Kakao token in the Authorization header, then the modular `signInWithCustomToken`.
    @Test func theWebLoginSendsTheTokenInTheHeaderAndSignsInWithTheCustomToken() throws {
        let blocks = try Self.blocks("js")
        let web = try #require(blocks.first(where: { $0.contains("Kakao.Auth.authorize(") }))
        #expect(web.contains(#"import { getAuth, signInWithCustomToken } from "firebase/auth";"#))
        #expect(web.contains("signInWithCustomToken(getAuth(), answer.custom_token)"))
        #expect(web.contains("Authorization: `Bearer ${token}`"))
        #expect(web.contains("problem.request_id"))
        #expect(!web.contains("access_token="), "a token in the URL: \(web)")
    }

    /// Every JavaScript block (the web login, the Node backend) parses as an ES module: `node --check`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/node"), "node is not installed"))
    func theJavaScriptBlocksParse() throws {
        let blocks = try Self.blocks("js")
        #expect(blocks.count == 2)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-clients-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, block) in blocks.enumerated() {
            let file = directory.appendingPathComponent("block\(index).mjs")
            try block.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/node")
            process.arguments = ["--check", file.path]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(block)")
        }
    }
}
