import COpenSSL

public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = data.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, FetchedDigest.sha256.pointer, nil)
        }
        OpenSSLCall.expect("EVP_Digest", result)
        return digest
    }
}

/// Lower-case hexadecimal, two digits per byte.
public func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}
