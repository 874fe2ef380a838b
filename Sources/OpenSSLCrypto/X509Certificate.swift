import COpenSSL

/// Just enough X.509 to serve Google-style securetoken certificates from the stand-ins and sandbox.
public enum X509Certificate {
    /// A self-signed v3 certificate for `key` (SHA-256 with RSA), valid from now for `validity`, as PEM.
    public static func selfSigned(
        key: RSAPrivateKey,
        commonName: String,
        validity: Duration
    ) throws(CryptoError) -> String {
        let seconds = validity.components.seconds
        guard seconds > 0, seconds <= Int64(Int.max) else {
            throw CryptoError.invalidInput(call: "X509_gmtime_adj", reason: "validity must be positive")
        }
        let certificate = try OpenSSLCall.check("X509_new", X509_new())
        defer { X509_free(certificate) }

        try OpenSSLCall.check("X509_set_version", X509_set_version(certificate, kb_ossl_x509_version_3()))
        // RFC 5280 wants unique positive serials; 62 random bits is plenty for throwaway certificates.
        let serial = SecureRandom.bytes(count: 8).reduce(0) { ($0 << 8) | Int($1) } & 0x3FFF_FFFF_FFFF_FFFF
        try OpenSSLCall.check(
            "ASN1_INTEGER_set",
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), max(serial, 1))
        )
        _ = try OpenSSLCall.check("X509_gmtime_adj", X509_gmtime_adj(X509_getm_notBefore(certificate), 0))
        _ = try OpenSSLCall.check(
            "X509_gmtime_adj",
            X509_gmtime_adj(X509_getm_notAfter(certificate), Int(seconds))
        )
        try OpenSSLCall.check("X509_set_pubkey", X509_set_pubkey(certificate, key.key.pointer))

        let name = try OpenSSLCall.check("X509_get_subject_name", X509_get_subject_name(certificate))
        let cn = Array(commonName.utf8)
        try OpenSSLCall.check(
            "X509_NAME_add_entry_by_txt",
            X509_NAME_add_entry_by_txt(name, "CN", kb_ossl_mbstring_utf8(), cn, Int32(cn.count), -1, 0)
        )
        try OpenSSLCall.check("X509_set_issuer_name", X509_set_issuer_name(certificate, name))
        try OpenSSLCall.check("X509_sign", X509_sign(certificate, key.key.pointer, EVP_sha256()))

        return MemoryBIO.writing { bio in
            OpenSSLCall.expect("PEM_write_bio_X509", PEM_write_bio_X509(bio, certificate))
        }
    }

    /// The certificate's notAfter as seconds since the Unix epoch.
    public static func notAfter(certificatePEM: String) throws(CryptoError) -> Int64 {
        try MemoryBIO.reading(certificatePEM) { bio throws(CryptoError) in
            let certificate = try OpenSSLCall.check("PEM_read_bio_X509", kb_ossl_read_x509(bio))
            defer { X509_free(certificate) }
            let notAfter = try OpenSSLCall.check("X509_get0_notAfter", X509_get0_notAfter(certificate))
            let epoch = try OpenSSLCall.check("ASN1_TIME_set", ASN1_TIME_set(nil, 0))
            defer { ASN1_STRING_free(epoch) }
            var days: Int32 = 0
            var seconds: Int32 = 0
            try OpenSSLCall.check("ASN1_TIME_diff", ASN1_TIME_diff(&days, &seconds, epoch, notAfter))
            return Int64(days) * 86_400 + Int64(seconds)
        }
    }
}
