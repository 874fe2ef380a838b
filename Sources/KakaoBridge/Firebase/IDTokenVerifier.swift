import OpenSSLCrypto

/// Verifies Firebase ID tokens as the Firebase Admin SDKs do (contract §2, "ID token rules"), one rule at a time in a fixed
/// order; the first broken rule is the `invalid_id_token` detail. Details never echo the token's own values.
struct IDTokenVerifier: IDTokenVerifying {
    let projectID: String
    /// `nil` when `firebase.tenant_id` is empty.
    let tenantID: String?
    let clockSkewSeconds: Int64
    let clock: UnixClock
    let certificates: SecureTokenCertificates

    init(projectID: String, tenantID: String?, clockSkewSeconds: Int, clock: UnixClock, certificates: SecureTokenCertificates) {
        self.projectID = projectID
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
        self.clockSkewSeconds = Int64(min(max(clockSkewSeconds, 0), 60))
        self.clock = clock
        self.certificates = certificates
    }

    var isReady: Bool { certificates.isReady }

    var issuer: String { "https://securetoken.google.com/" + projectID }

    func verify(_ idToken: String, context: CallContext) async throws(Problem) -> VerifiedIDToken {
        guard let parts = JWTEncoding.split(idToken) else {
            // `alg: none` tokens end in an empty signature segment; name the rule they actually break.
            let segments = idToken.split(separator: ".", omittingEmptySubsequences: false)
            if segments.count == 3, !segments[0].isEmpty, segments[2].isEmpty {
                throw Self.invalid("The ID token is unsigned: alg must be RS256 (alg none is refused).")
            }
            throw Self.invalid("The ID token is not a JWT: it must be three base64url segments.")
        }
        guard let header = try? JSONCoding.decode(JSONValue.self, from: parts.header), case .object = header else {
            throw Self.invalid("The ID token's header is not a JSON object.")
        }
        // The algorithm is fixed here; the header can only agree with it (no `none`, no HS256 keyed with a public key).
        guard header["alg"]?.stringValue == "RS256" else {
            throw Self.invalid("The ID token's header alg must be RS256.")
        }
        guard let payload = try? JSONCoding.decode(JSONValue.self, from: parts.payload), case .object = payload else {
            throw Self.invalid("The ID token's payload is not a JSON object.")
        }
        // Checked before `kid`: a custom token's `kid` is the service account's key id, which would only read "unknown kid".
        if payload["aud"]?.stringValue == CustomTokenMinter.audience {
            throw Self.invalid("A Firebase custom token was given where an ID token is expected; sign in with it first.")
        }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else {
            throw Self.invalid("The ID token's header has no kid.")
        }
        guard let key = try await certificates.key(for: kid, context: context) else {
            throw Self.invalid("The ID token's kid names no current Google securetoken certificate.")
        }
        guard key.verifyRS256(signature: parts.signature, message: parts.signingInput) else {
            throw Self.invalid("The ID token's signature is invalid.")
        }
        try checkClaims(payload)
        guard let subject = payload["sub"]?.stringValue else { throw Self.invalid("The ID token's sub is missing.") }
        return VerifiedIDToken(subject: subject, claims: payload)
    }

    /// The payload rules that follow a valid signature.
    func checkClaims(_ payload: JSONValue) throws(Problem) {
        guard payload["aud"]?.stringValue == projectID else {
            throw Self.invalid("The ID token's aud must be the Firebase project id (\(projectID)).")
        }
        guard payload["iss"]?.stringValue == issuer else {
            throw Self.invalid("The ID token's iss must be \(issuer).")
        }
        guard let subject = payload["sub"]?.stringValue, !subject.isEmpty, subject.count <= 128 else {
            throw Self.invalid("The ID token's sub must be a non-empty string of at most 128 characters.")
        }
        let now = clock.now()
        guard let exp = payload["exp"]?.int64Value else { throw Self.invalid("The ID token's exp must be a number of seconds.") }
        guard exp > now - clockSkewSeconds else { throw Self.invalid("The ID token has expired (exp).") }
        guard let iat = payload["iat"]?.int64Value else { throw Self.invalid("The ID token's iat must be a number of seconds.") }
        guard iat <= now + clockSkewSeconds else { throw Self.invalid("The ID token was issued in the future (iat).") }
        if let authTimeValue = payload["auth_time"] {
            guard let authTime = authTimeValue.int64Value else {
                throw Self.invalid("The ID token's auth_time must be a number of seconds.")
            }
            guard authTime <= now + clockSkewSeconds else {
                throw Self.invalid("The ID token's auth_time is in the future.")
            }
        }
        if let tenantID {
            guard payload["firebase"]?["tenant"]?.stringValue == tenantID else {
                throw Self.invalid("The ID token's firebase.tenant must be the configured tenant (\(tenantID)).")
            }
        }
    }

    private static func invalid(_ detail: String) -> Problem { Problem.invalidIDToken(detail) }
}
