import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Verifies Firebase ID tokens as the Firebase Admin SDKs do (docs/custom-token.md#id-token-rules), one rule at a time
/// in a fixed order; the first broken rule is the `invalid_id_token` detail. Details never echo the token's own values.
/// The header and signature are checked here; the claims by `IDTokenClaimRules`.
package struct IDTokenVerifier: Sendable {
    package let rules: IDTokenClaimRules
    package let certificates: PublicKeyCache

    /// With the Auth Emulator (docs/api.md#the-auth-emulator): its ID tokens are unsigned (`alg` `none`, no `kid`), and
    /// are taken as the Admin SDKs take them there, claims still checked. Never on against Google.
    package var acceptsEmulatorTokens = false

    package init(rules: IDTokenClaimRules, certificates: PublicKeyCache, acceptsEmulatorTokens: Bool = false) {
        self.rules = rules
        self.certificates = certificates
        self.acceptsEmulatorTokens = acceptsEmulatorTokens
    }

    /// Readiness: the hook is ready once the certificates were fetched at least once (with the emulator: at once).
    package var isReady: Bool { acceptsEmulatorTokens || certificates.isReady }

    package func prefetch() async -> Bool { await certificates.prefetch() }

    package func verify(_ idToken: String, context: CallContext) async throws(Problem) -> VerifiedIDToken {
        if acceptsEmulatorTokens, let payload = Self.unsignedPayload(idToken) {
            if payload["aud"]?.stringValue == CustomTokenMinter.audience {
                throw Self.invalid("A Firebase custom token was given where an ID token is expected; sign in with it first.")
            }
            try rules.check(payload)
            guard let subject = payload["sub"]?.stringValue else { throw Self.invalid("The ID token's sub is missing.") }
            return VerifiedIDToken(subject: subject, claims: payload)
        }
        let parts = try JWTEncoding.splitRS256(idToken, invalid: Self.invalid)
        let header = parts.header
        guard let payload = JSONValue.parse(parts.payload), case .object = payload else {
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
        try rules.check(payload)
        guard let subject = payload["sub"]?.stringValue else { throw Self.invalid("The ID token's sub is missing.") }
        return VerifiedIDToken(subject: subject, claims: payload)
    }

    /// The payload of an emulator token: `header.payload.` with header `alg` `none`; `nil` for anything else, which then
    /// goes through the ordinary rules (a signed token is still checked in full).
    package static func unsignedPayload(_ token: String) -> JSONValue? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[2].isEmpty,
              let headerBytes = Base64URL.decode(String(segments[0])), let header = JSONValue.parse(headerBytes),
              header["alg"]?.stringValue == "none",
              let payloadBytes = Base64URL.decode(String(segments[1])), let payload = JSONValue.parse(payloadBytes),
              case .object = payload
        else { return nil }
        return payload
    }

    private static func invalid(_ detail: String) -> Problem { Problem.invalidIDToken(detail) }
}
