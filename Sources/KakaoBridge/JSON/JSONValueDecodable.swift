/// A type read straight from a parsed `JSONValue` rather than through `Decodable`; `JSONCoding.decode` takes this path
/// when the type offers it. Members follow `Decodable`'s rules: a missing or `null` optional is `nil`, a present member of
/// the wrong type is an error.
protocol JSONValueDecodable {
    init(json: JSONValue) throws(JSONValue.Mismatch)
}

extension JSONValue {
    struct Mismatch: Error {}

    func member(_ name: String) throws(Mismatch) -> JSONValue? {
        guard case .object(let members) = self else { throw Mismatch() }
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    func required<T>(_ name: String, _ read: (JSONValue) -> T?) throws(Mismatch) -> T {
        guard let value = try member(name), let typed = read(value) else { throw Mismatch() }
        return typed
    }

    func optional<T>(_ name: String, _ read: (JSONValue) -> T?) throws(Mismatch) -> T? {
        guard let value = try member(name) else { return nil }
        guard let typed = read(value) else { throw Mismatch() }
        return typed
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}
