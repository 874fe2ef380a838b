/// A type read from JSON: the parser builds a `JSONValue` from the bytes, and the type reads its members from that.
/// The one way the service reads JSON; there is no `Decodable` path beside it.
///
/// Members follow `Decodable`'s rules: a missing or `null` optional is `nil`, a present member of the wrong type is an
/// error, so that a broken answer is never taken for an absent field.
public protocol JSONDecodable {
    init(json: JSONValue) throws(JSONMismatch)
}

/// The bytes are not JSON, or not of the shape the type needs.
public struct JSONMismatch: Error, Sendable {
    public init() {}
}

extension JSONDecodable {
    /// Parses `bytes` and reads the type from them.
    public init(jsonBytes bytes: some Collection<UInt8>) throws(JSONMismatch) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw JSONMismatch()
        }
        try self.init(json: value)
    }
}

extension JSONValue: JSONDecodable {
    public init(json: JSONValue) { self = json }
}

extension JSONValue {
    /// The member `name` of an object; `nil` when absent or `null`. Throws when `self` is not an object.
    public func member(_ name: String) throws(JSONMismatch) -> JSONValue? {
        guard case .object(let members) = self else { throw JSONMismatch() }
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    public func required<T>(_ name: String, _ read: (JSONValue) -> T?) throws(JSONMismatch) -> T {
        guard let value = try member(name), let typed = read(value) else { throw JSONMismatch() }
        return typed
    }

    public func optional<T>(_ name: String, _ read: (JSONValue) -> T?) throws(JSONMismatch) -> T? {
        guard let value = try member(name) else { return nil }
        guard let typed = read(value) else { throw JSONMismatch() }
        return typed
    }
}
