import Foundation
import HTTPTypes
import Testing
import Upstreams

/// docs/errors.md's table of codes is the closed set `Problem.Code`: every code the service can answer is listed with
/// its status, and the table lists no code the service cannot answer (the nginx site's own codes have their section).
@Suite("docs/errors.md")
struct ErrorCodesDocumentTests {
    /// `status` and `code` of each row of the section "## Codes".
    static func documentedCodes() throws -> [String: Int] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let section = try #require(document.components(separatedBy: "\n## ").first { $0.hasPrefix("Codes\n") })
        var codes: [String: Int] = [:]
        for row in section.components(separatedBy: "\n") where row.hasPrefix("| ") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let status = Int(cells[0]) else { continue }
            codes[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = status
        }
        return codes
    }

    @Test func everyCodeIsDocumentedWithItsStatusAndNoOther() throws {
        let documented = try Self.documentedCodes()
        for code in Problem.Code.allCases {
            #expect(documented[code.rawValue] == Int(code.status.code), "\(code.rawValue) in docs/errors.md#codes")
        }
        let known = Set(Problem.Code.allCases.map(\.rawValue))
        #expect(Set(documented.keys).subtracting(known).isEmpty, "documented but never answered")
    }
}
