import COpenSSL

/// RSA public keys as JSON Web Keys (RFC 7517/7518 §6.3.1): `n` and `e`, unsigned big-endian integers in base64url.
/// Kakao publishes its OpenID Connect signing keys this way, with no certificate around them.
extension RSAPublicKey {
    /// Below this a published key is refused, as `RSAPrivateKey` refuses to sign with one.
    public static let minimumJWKBits = 2048
    /// 16384 bits: anything longer is not a key anyone publishes, only work for whoever verifies with it.
    static let maximumModulusBytes = 2048
    /// Exponents are small (65537 almost always); eight bytes is generous.
    static let maximumExponentBytes = 8

    /// Loads the key of a JWK's `n` and `e` (base64url; trailing `=` padding tolerated, as some publishers add it).
    public init(jwkModulus n: String, exponent e: String) throws(CryptoError) {
        guard let modulus = Self.unsignedBytes(n), let exponent = Self.unsignedBytes(e) else {
            throw CryptoError.invalidInput(call: "JWK", reason: "n and e must be base64url")
        }
        guard !modulus.isEmpty, modulus.count <= Self.maximumModulusBytes else {
            throw CryptoError.invalidInput(call: "JWK", reason: "n must be 1 to \(Self.maximumModulusBytes) bytes")
        }
        guard !exponent.isEmpty, exponent.count <= Self.maximumExponentBytes, exponent.last.map({ $0 & 1 == 1 }) == true else {
            throw CryptoError.invalidInput(call: "JWK", reason: "e must be an odd number of at most \(Self.maximumExponentBytes) bytes")
        }
        let key = try PKey(owning: Self.fromData(modulus: modulus, exponent: exponent))
        guard key.bits >= Self.minimumJWKBits else {
            throw CryptoError.keyTooSmall(call: "EVP_PKEY_fromdata", bits: key.bits, minimum: Self.minimumJWKBits)
        }
        try self.init(key: key, call: "EVP_PKEY_fromdata")
    }

    /// `n` and `e` in base64url without padding: what a JWKS publishes for this key.
    public var jwkComponents: (n: String, e: String) {
        (Base64URL.encode(Self.bigNumberBytes(key, kb_ossl_param_rsa_n())),
         Base64URL.encode(Self.bigNumberBytes(key, kb_ossl_param_rsa_e())))
    }

    private static func unsignedBytes(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        while text.last == "=" { text = text.dropLast() }
        guard var bytes = Base64URL.decode(String(text)) else { return nil }
        // A leading zero byte (a signed encoding) does not change the number.
        while bytes.count > 1, bytes.first == 0 { bytes.removeFirst() }
        return bytes
    }

    private static func fromData(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let n = try OpenSSLCall.check("BN_bin2bn", modulus.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        defer { BN_free(n) }
        let e = try OpenSSLCall.check("BN_bin2bn", exponent.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        defer { BN_free(e) }
        let builder = try OpenSSLCall.check("OSSL_PARAM_BLD_new", OSSL_PARAM_BLD_new())
        defer { OSSL_PARAM_BLD_free(builder) }
        try OpenSSLCall.check("OSSL_PARAM_BLD_push_BN", OSSL_PARAM_BLD_push_BN(builder, kb_ossl_param_rsa_n(), n))
        try OpenSSLCall.check("OSSL_PARAM_BLD_push_BN", OSSL_PARAM_BLD_push_BN(builder, kb_ossl_param_rsa_e(), e))
        let params = try OpenSSLCall.check("OSSL_PARAM_BLD_to_param", OSSL_PARAM_BLD_to_param(builder))
        defer { OSSL_PARAM_free(params) }
        let context = try OpenSSLCall.check("EVP_PKEY_CTX_new_from_name", EVP_PKEY_CTX_new_from_name(nil, "RSA", nil))
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check("EVP_PKEY_fromdata_init", EVP_PKEY_fromdata_init(context))
        var pointer: OpaquePointer?
        try OpenSSLCall.check("EVP_PKEY_fromdata", EVP_PKEY_fromdata(context, &pointer, kb_ossl_selection_public_key(), params))
        return try OpenSSLCall.check("EVP_PKEY_fromdata", pointer)
    }

    /// A key loaded by this module always has `n` and `e`; failing to read them means OpenSSL itself is broken.
    private static func bigNumberBytes(_ key: PKey, _ name: UnsafePointer<CChar>) -> [UInt8] {
        var number: OpaquePointer?
        OpenSSLCall.expect("EVP_PKEY_get_bn_param", EVP_PKEY_get_bn_param(key.pointer, name, &number))
        let bignum = OpenSSLCall.expect("EVP_PKEY_get_bn_param", number)
        defer { BN_free(bignum) }
        var bytes = [UInt8](repeating: 0, count: Int(kb_ossl_bn_num_bytes(bignum)))
        _ = bytes.withUnsafeMutableBufferPointer { BN_bn2bin(bignum, $0.baseAddress) }
        return bytes
    }
}
