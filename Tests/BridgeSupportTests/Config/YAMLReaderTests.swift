import BridgeSupport
import Foundation
import Testing


/// The configuration file's YAML reader (docs/configuration.md#the-yaml-it-reads): what it reads, and that everything
/// else is refused by line and column rather than read in a way the operator did not mean.
@Suite("YAML reader")
struct YAMLReaderTests {
    private func read(_ text: String) throws(YAMLReadingError) -> YAMLValue? { try YAMLReader.read(text) }

    private func mapping(_ entries: KeyValuePairs<String, YAMLValue>) -> YAMLValue {
        .mapping(entries.map { YAMLEntry(key: $0.key, value: $0.value) })
    }

    private func refusal(_ text: String) -> YAMLReadingError? {
        do {
            _ = try YAMLReader.read(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func sectionsKeysCommentsAndBlankLines() throws {
        let text = """
            # kakao-bridge
            ---
            server:
              host: 0.0.0.0   # every interface
              port: 8080

            kakao:
                app_id: "42"
                cache_seconds:
            hook: {}
            """
        #expect(try read(text) == mapping([
            "server": mapping(["host": .text("0.0.0.0"), "port": .text("8080")]),
            "kakao": mapping(["app_id": .text("42"), "cache_seconds": .null]),
            "hook": .mapping([]),
        ]))
    }

    @Test func emptyDocumentsAreNothing() throws {
        #expect(try read("") == nil)
        #expect(try read("# only a comment\n\n   \n") == nil)
        #expect(try read("---\n") == nil)
    }

    @Test func lineEndingsAndByteOrderMark() throws {
        #expect(try read("\u{FEFF}a:\r\n  b: c\r\n") == mapping(["a": mapping(["b": .text("c")])]))
    }

    @Test func plainTextKeepsColonsAndHashesThatAreNotSeparators() throws {
        let text = """
            a: https://kapi.kakao.com:443/v1/user/me?x=1#frag
            b: pass#word
            c: it's fine
            d: 10.0.0.0/8
            """
        #expect(try read(text) == mapping([
            "a": .text("https://kapi.kakao.com:443/v1/user/me?x=1#frag"),
            "b": .text("pass#word"),
            "c": .text("it's fine"),
            "d": .text("10.0.0.0/8"),
        ]))
    }

    @Test func quotedText() throws {
        let text = #"""
            single: 'it''s # not a comment: really'
            double: "tab\there \"quoted\" \u00e9\x41 \\ end"
            key with spaces: plain
            "quoted key": 1
            """#
        #expect(try read(text) == mapping([
            "single": .text("it's # not a comment: really"),
            "double": .text("tab\there \"quoted\" éA \\ end"),
            "key with spaces": .text("plain"),
            "quoted key": .text("1"),
        ]))
    }

    @Test func everyNullSpelling() throws {
        let text = "a:\nb: ~\nc: null\nd: Null\ne: NULL\nf: ''\ng: \"\"\nh: nil\ni: 'null'\n"
        #expect(try read(text) == mapping([
            "a": .null, "b": .null, "c": .null, "d": .null, "e": .null,
            // Quoted, it is text: `uid_prefix: ""` is an empty prefix, which validation refuses by name.
            "f": .text(""), "g": .text(""),
            // Not one of YAML's null spellings: text, which the key's own reader judges.
            "h": .text("nil"),
            "i": .text("null"),
        ]))
    }

    @Test func lists() throws {
        let text = """
            indented:
              - 10.0.0.0/8
              - "fd00::/8"
            flush:
            - a
            -   b
            flow: [127.0.0.1, '::1', ]
            empty: []
            items:
              - name: one
                port: 1
              - - nested
            """
        #expect(try read(text) == mapping([
            "indented": .list([.text("10.0.0.0/8"), .text("fd00::/8")]),
            "flush": .list([.text("a"), .text("b")]),
            "flow": .list([.text("127.0.0.1"), .text("::1")]),
            "empty": .list([]),
            "items": .list([
                mapping(["name": .text("one"), "port": .text("1")]),
                .list([.text("nested")]),
            ]),
        ]))
    }

    @Test func oneLineMappings() throws {
        #expect(try read("oidc: {enabled: true, nonce: required, empty: , list: [a, b]}") == mapping([
            "oidc": mapping([
                "enabled": .text("true"), "nonce": .text("required"), "empty": .null,
                "list": .list([.text("a"), .text("b")]),
            ])
        ]))
    }

    /// Each refusal names the line and column of the problem.
    @Test(arguments: [
        ("a:\n\tb: 1\n", 2, "tab"),
        ("a: &anchor 1\nb: *anchor\n", 1, "anchors"),
        ("a: !!str 1\n", 1, "tags"),
        ("a: |\n  text\n", 1, "block values"),
        ("a: >\n  text\n", 1, "block values"),
        ("a: one\n  two\n", 2, "several lines"),
        ("a: 1\na: 2\n", 2, "appears twice"),
        ("a: {b: 1, b: 2}\n", 1, "appears twice"),
        ("a: 'open\n", 1, "close on the same line"),
        ("a: [1, 2\n", 1, "must close on the same line"),
        ("a:\n    b: 1\n  c: 2\n", 3, "indentation"),
        ("%YAML 1.2\n---\na: 1\n", 1, "directives"),
        ("a: 1\n---\nb: 2\n", 2, "one document"),
        ("a: 1\n...\n", 2, "end markers"),
        ("a: \"\\q\"\n", 1, "unknown escape"),
        ("a: b: c\n", 1, "quote it"),
        ("? complex\n: key\n", 1, "complex keys"),
        ("a: - b\n", 1, "a list cannot start"),
        ("a: [b: c]\n", 1, "inside [ ]"),
        ("a: [1] x\n", 1, "unexpected text"),
        (": value\n", 1, "key is missing"),
    ])
    func refusals(text: String, line: Int, problem: String) {
        let error = refusal(text)
        #expect(error?.line == line, "\(text.debugDescription): \(String(describing: error))")
        #expect(error?.problem.contains(problem) == true, "\(text.debugDescription): \(String(describing: error))")
    }

    @Test func nestingIsBounded() {
        let deepFlow = "a: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(refusal(deepFlow)?.problem.contains("nested deeper") == true)
        var deepBlock = ""
        for level in 0..<100 { deepBlock += String(repeating: " ", count: level) + "k\(level):\n" }
        #expect(refusal(deepBlock)?.problem.contains("nested deeper") == true)
    }

    /// A problem is told by position: the offending line may hold a secret, and no message quotes it.
    @Test func problemsNeverQuoteTheLine() {
        let secret = "s3cr3t-hook-value"
        for text in [
            "hook:\n  secret: \(secret): x\n", "hook:\n  secret: '\(secret)\n", "hook:\n  secret: &\(secret) x\n",
            "hook:\n  secret: \"\(secret)\\q\"\n", "hook:\n  secret: [\(secret)\n",
        ] {
            let error = refusal(text)
            #expect(error != nil, "\(text.debugDescription)")
            #expect(error?.problem.contains(secret) == false)
            let problems = ConfigTests.problems(yaml: text)
            #expect(problems.count == 1)
            #expect(problems.allSatisfy { !$0.contains(secret) })
        }
    }

    /// The sample configuration and the sandbox's read. (The Kubernetes ConfigMaps' bridge.yaml is read by the service
    /// itself in scripts/deploy-test, `check-config` on each rendered overlay.)
    @Test func shippedFilesRead() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for path in ["config/bridge.example.yaml", "config/sandbox.yaml"] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            guard case .mapping = try #require(try read(text)) else {
                Issue.record("\(path) is not a mapping")
                continue
            }
        }
    }
}
