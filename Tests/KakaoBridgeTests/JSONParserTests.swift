import BridgeJSON
import Foundation
import Testing

/// The byte-level parser must read exactly what Foundation reads, and refuse what is not JSON.
@Suite struct JSONParserTests {
    @Test func parserAgreesWithFoundation() throws {
        let samples = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e\"\\\/\n\t\u00e9\ud83d\ude00"},"f":-12.5e3,"g":9223372036854775807}"#,
            #"  [1, 2.0, -0, 1e2, "x", {}, []]  "#,
            #""plain""#,
            #"{"id":1234567890123456789,"big":12345678901234567890}"#,
        ]
        for sample in samples {
            let fast = try JSONParser.parse(Array(sample.utf8))
            #expect(FoundationJSON.sameValue(fast, try FoundationJSON.read(Array(sample.utf8))), "\(sample)")
        }
    }

    @Test func exactIntegersStayExact() throws {
        #expect(try JSONParser.parse(Array(#"{"id":9007199254740993}"#.utf8))["id"] == .int(9_007_199_254_740_993))
        #expect(try JSONParser.parse(Array("9223372036854775807".utf8)) == .int(.max))
        // Written with a fraction or exponent: a number, not an integer (an id must be written as an integer).
        #expect(try JSONParser.parse(Array("2.0".utf8)) == .double(2))
        #expect(try JSONParser.parse(Array("2.0".utf8)).int64Value == 2)
        #expect(try JSONParser.parse(Array("1.2e9".utf8)).intValue == nil)
    }

    @Test func parserRefusesWhatIsNotJSON() {
        let bad = [
            "", "{", #"{"a":}"#, "[1,]", "01", "1.", "-", #""\x""#, #""\ud800""#, "tru", "{} {}", "\"a\nb\"",
            String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        ]
        for sample in bad {
            #expect(throws: (any Error).self, "\(sample)") { try JSONParser.parse(Array(sample.utf8)) }
        }
        #expect(throws: (any Error).self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func decodableMembersFollowDecodableRules() throws {
        struct Sample: JSONDecodable {
            var id: Int64
            var name: String?
            init(json: JSONValue) throws(JSONMismatch) {
                id = try json.required("id", \.int64Value)
                name = try json.optional("name", \.stringValue)
            }
        }
        #expect(try Sample(jsonBytes: Array(#"{"id":7,"name":null}"#.utf8)).name == nil)
        #expect(throws: JSONMismatch.self) { try Sample(jsonBytes: Array(#"{"id":"7"}"#.utf8)) }
        #expect(throws: JSONMismatch.self) { try Sample(jsonBytes: Array(#"{"id":7,"name":5}"#.utf8)) }
        #expect(throws: JSONMismatch.self) { try Sample(jsonBytes: Array("[1]".utf8)) }
    }

    @Test func writerRoundTripsThroughFoundation() throws {
        let value: JSONValue = [
            "s": "R\"y\\a\nn \u{1} / é 😀", "i": .int(-9_007_199_254_740_993), "d": .double(1.5), "b": true, "n": nil,
            "a": [1, "two", [:]], "o": ["k": "v"],
        ]
        let bytes = value.jsonBytes
        #expect(FoundationJSON.sameValue(try FoundationJSON.read(bytes), value))
        #expect(JSONValue.parse(bytes) == value)
        // Slashes stay unescaped; keys come in order.
        #expect(JSONValue.object(["b": "x/y", "a": 1]).serializedString == #"{"a":1,"b":"x/y"}"#)
    }
}

/// What Foundation's `JSONDecoder` reads, as a `JSONValue`: the reference the parser and the writer are held against.
/// Test-only on purpose: the service itself has one JSON path and no `Codable` conformance.
struct FoundationJSON: Decodable {
    let value: JSONValue

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            value = .null
        } else if let flag = try? container.decode(Bool.self) {
            value = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            value = .int(number)
        } else if let number = try? container.decode(Double.self) {
            value = .double(number)
        } else if let text = try? container.decode(String.self) {
            value = .string(text)
        } else if let array = try? container.decode([FoundationJSON].self) {
            value = .array(array.map(\.value))
        } else {
            value = .object(try container.decode([String: FoundationJSON].self).mapValues(\.value))
        }
    }

    /// Equal up to how a number is held: Foundation reads `2.0` as the integer 2, we keep it a double.
    static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
        default: return a == b
        }
    }

    static func read(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        try JSONDecoder().decode(FoundationJSON.self, from: Data(bytes)).value
    }
}
