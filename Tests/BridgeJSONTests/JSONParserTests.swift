import BridgeJSON
import Foundation
import Testing
import BridgeTestSupport

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
