import COpenSSL

public enum SecureRandom {
    /// Cryptographically secure bytes from OpenSSL's DRBG. A failing RNG stops the process:
    /// continuing would hand out predictable secrets.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: invalid count")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        OpenSSLCall.expect("RAND_bytes", RAND_bytes(&out, Int32(count)))
        return out
    }
}
