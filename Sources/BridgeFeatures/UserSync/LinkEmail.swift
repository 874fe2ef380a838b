/// How linking compares emails (docs/api.md#linking-to-an-existing-firebase-account): ASCII letters without regard to
/// case, nothing else. Unicode case folding would let two different mailboxes (`ß` and `ss`, the Kelvin sign and `k`)
/// count as one, so an address with any non-ASCII character never links.
enum LinkEmail {
    /// The address as linking compares it; `nil` when it has a non-ASCII character (or is empty).
    static func comparable(_ email: String) -> String? {
        guard !email.isEmpty, email.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: email.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Kakao's address and the account holder's are the same mailbox by this rule.
    static func same(_ kakao: String, _ holder: String?) -> Bool {
        guard let holder, let left = comparable(kakao), let right = comparable(holder) else { return false }
        return left == right
    }
}
