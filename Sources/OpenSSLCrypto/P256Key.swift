import COpenSSL

/// ECDSA P-256 with SHA-256 (JWS `ES256`, RFC 7518 §3.4): LINE signs its ID tokens this way
/// (docs/api.md#line-id-tokens). A JWS signature is the raw `r ‖ s` (32 bytes each); OpenSSL speaks DER, so the two are
/// converted here and nowhere else.
public struct P256PublicKey: Sendable {
    let key: PKey

    /// The key of a JWK's `x` and `y` (base64url, 32 bytes each) on `crv` P-256.
    public init(jwkX x: String, y: String) throws(CryptoError) {
        guard let x = Base64URL.decode(Self.unpadded(x)), let y = Base64URL.decode(Self.unpadded(y)), x.count == 32, y.count == 32
        else { throw CryptoError.invalidInput(call: "JWK", reason: "x and y must be 32 bytes of base64url each") }
        let point: [UInt8] = [0x04] + x + y
        // The builder keeps pointers to the name and the point until `OSSL_PARAM_BLD_to_param`: both stay alive, in
        // place, for the whole build.
        let group = Array("prime256v1".utf8CString)
        let built: Result<OpaquePointer, CryptoError> = group.withUnsafeBufferPointer { name in
            point.withUnsafeBytes { bytes in Self.fromData(group: name.baseAddress!, point: bytes) }
        }
        let pointer = try built.get()
        key = PKey(owning: pointer)
    }

    private static func fromData(group: UnsafePointer<CChar>, point: UnsafeRawBufferPointer) -> Result<OpaquePointer, CryptoError> {
        do throws(CryptoError) {
            let builder = try OpenSSLCall.check("OSSL_PARAM_BLD_new", OSSL_PARAM_BLD_new())
            defer { OSSL_PARAM_BLD_free(builder) }
            try OpenSSLCall.check("OSSL_PARAM_BLD_push_utf8_string", OSSL_PARAM_BLD_push_utf8_string(builder, kb_ossl_param_group_name(), group, 0))
            try OpenSSLCall.check("OSSL_PARAM_BLD_push_octet_string", OSSL_PARAM_BLD_push_octet_string(builder, kb_ossl_param_pub_key(), point.baseAddress, point.count))
            let params = try OpenSSLCall.check("OSSL_PARAM_BLD_to_param", OSSL_PARAM_BLD_to_param(builder))
            defer { OSSL_PARAM_free(params) }
            let context = try OpenSSLCall.check("EVP_PKEY_CTX_new_from_name", EVP_PKEY_CTX_new_from_name(nil, "EC", nil))
            defer { EVP_PKEY_CTX_free(context) }
            try OpenSSLCall.check("EVP_PKEY_fromdata_init", EVP_PKEY_fromdata_init(context))
            var pointer: OpaquePointer?
            // A point off the curve is refused here.
            try OpenSSLCall.check("EVP_PKEY_fromdata", EVP_PKEY_fromdata(context, &pointer, kb_ossl_selection_public_key(), params))
            return .success(try OpenSSLCall.check("EVP_PKEY_fromdata", pointer))
        } catch {
            return .failure(error)
        }
    }

    init(key: PKey) { self.key = key }

    /// True only for a valid ES256 signature (`r ‖ s`, 64 bytes) of `message` by this key.
    public func verifyES256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let der = try? ECDSASignature.der(fromRaw: signature) else { return false }
        do {
            let context = try OpenSSLCall.check("EVP_MD_CTX_new", EVP_MD_CTX_new())
            defer { EVP_MD_CTX_free(context) }
            try OpenSSLCall.check("EVP_DigestVerifyInit", EVP_DigestVerifyInit(context, nil, FetchedDigest.sha256.pointer, nil, key.pointer))
            try OpenSSLCall.check("EVP_DigestVerify", EVP_DigestVerify(context, der, der.count, message, message.count))
            return true
        } catch {
            return false
        }
    }

    /// `x` and `y` in base64url: what a JWKS publishes for this key.
    public var jwkComponents: (x: String, y: String) {
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        OpenSSLCall.expect("EVP_PKEY_get_octet_string_param",
                           EVP_PKEY_get_octet_string_param(key.pointer, kb_ossl_param_pub_key(), &point, point.count, &length))
        return (Base64URL.encode(Array(point[1..<33])), Base64URL.encode(Array(point[33..<65])))
    }

    private static func unpadded(_ text: String) -> String {
        var text = Substring(text)
        while text.last == "=" { text = text.dropLast() }
        return String(text)
    }
}

/// A P-256 private key that signs ES256: the stand-in that plays LINE, and tests.
public struct P256PrivateKey: Sendable {
    let key: PKey

    public init() {
        key = PKey(owning: OpenSSLCall.expect("EVP_PKEY_Q_keygen", kb_ossl_p256_keygen()))
    }

    public var publicKey: P256PublicKey { P256PublicKey(key: key) }

    /// The raw `r ‖ s` a JWS carries.
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try OpenSSLCall.check("EVP_MD_CTX_new", EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(context) }
        try OpenSSLCall.check("EVP_DigestSignInit", EVP_DigestSignInit(context, nil, FetchedDigest.sha256.pointer, nil, key.pointer))
        var length = 0
        try OpenSSLCall.check("EVP_DigestSign", EVP_DigestSign(context, nil, &length, message, message.count))
        var der = [UInt8](repeating: 0, count: length)
        try OpenSSLCall.check("EVP_DigestSign", EVP_DigestSign(context, &der, &length, message, message.count))
        return try ECDSASignature.raw(fromDER: Array(der.prefix(length)))
    }
}

/// ECDSA signatures between JWS's raw `r ‖ s` and the DER `SEQUENCE { r, s }` OpenSSL takes and makes.
enum ECDSASignature {
    static func der(fromRaw raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        let signature = try OpenSSLCall.check("ECDSA_SIG_new", ECDSA_SIG_new())
        defer { ECDSA_SIG_free(signature) }
        let r = try OpenSSLCall.check("BN_bin2bn", raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) })
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            throw CryptoError.openSSL(call: "BN_bin2bn")
        }
        // Takes both numbers: freed with the signature.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError.openSSL(call: "ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        try OpenSSLCall.check("i2d_ECDSA_SIG", length)
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &next)
        }
        try OpenSSLCall.check("i2d_ECDSA_SIG", written)
        return der
    }

    static func raw(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let signature = try der.withUnsafeBufferPointer { buffer throws(CryptoError) -> OpaquePointer in
            var next: UnsafePointer<UInt8>? = buffer.baseAddress
            return try OpenSSLCall.check("d2i_ECDSA_SIG", d2i_ECDSA_SIG(nil, &next, buffer.count))
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        try raw.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt8>) throws(CryptoError) in
            try OpenSSLCall.check("BN_bn2binpad", BN_bn2binpad(r, buffer.baseAddress, 32))
            try OpenSSLCall.check("BN_bn2binpad", BN_bn2binpad(s, buffer.baseAddress! + 32, 32))
        }
        return raw
    }
}
