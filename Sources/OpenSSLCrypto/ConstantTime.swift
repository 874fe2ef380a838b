import COpenSSL

/// Compares secrets without leaking where they differ. A length mismatch returns false, but the
/// contents are still compared so timing does not depend on where the first difference lies.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    let count = max(a.count, b.count)
    guard count > 0 else { return true }
    var left = [UInt8](repeating: 0, count: count)
    var right = [UInt8](repeating: 0, count: count)
    left.replaceSubrange(0..<a.count, with: a)
    right.replaceSubrange(0..<b.count, with: b)
    let same = left.withUnsafeBytes { l in
        right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, count) == 0 }
    }
    return same && a.count == b.count
}
