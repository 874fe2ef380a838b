import COpenSSL

/// MD5, for one use only: Naver derives the key of its unlink callback from the client secret with it
/// (docs/api.md#navers-unlink-callback). Never a digest of ours to trust.
public enum MD5 {
    public static let byteCount = 16

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let md = OpenSSLCall.expect("EVP_MD_fetch", EVP_MD_fetch(nil, "MD5", nil))
        defer { EVP_MD_free(md) }
        let result = data.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, md, nil)
        }
        OpenSSLCall.expect("EVP_Digest", result)
        return digest
    }
}
