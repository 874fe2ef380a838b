import COpenSSL

public enum HMACSHA256 {
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        // HMAC() treats a NULL key as "reuse the previous key"; an empty key needs a real pointer.
        let keyBytes = key.isEmpty ? [0] : key
        let keyLength = Int32(key.count)
        let result = keyBytes.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                HMAC(FetchedDigest.sha256.pointer, k.baseAddress, keyLength, m.baseAddress, m.count, &mac, &length)
            }
        }
        _ = OpenSSLCall.expect("HMAC", result)
        return mac
    }
}
