/// How a SET's events are named in the queue: `set:<jti>#<n>`, `n` the event's place in the SET (Kakao sends one per
/// SET). The same SET again gives the same ids, so the queue takes each event once.
package enum SecurityEventIDs {
    package static let prefix = "set:"

    package static func eventID(jti: String, index: Int) -> String {
        prefix + jti + "#\(index)"
    }

    /// The `jti` the backend is told (docs/api.md#kakaos-security-events).
    package static func jti(ofEventID id: String) -> String {
        guard id.hasPrefix(prefix), let hash = id.lastIndex(of: "#") else { return id }
        return String(id[id.index(id.startIndex, offsetBy: prefix.count)..<hash])
    }
}
