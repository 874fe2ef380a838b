import BridgeSupport
import Upstreams
/// The six-step flow (docs/api.md#the-six-step-flow) from the service's side: verify with Kakao (2), keep the Firebase user in
/// step with the profile (docs/api.md#user-sync, between 2 and 3), mint (3), exchange at Identity Toolkit (4–5) and
/// complete the login at the backend (6), each later step only when it is configured.
struct LoginFlow: Sendable {
    let state: BridgeState

    struct Minted: Sendable {
        var uid: String
        var customToken: String
        var user: KakaoUser
        /// The user sync created the Firebase user during this login.
        var createdUser: Bool
        /// The login signed into an existing account linked by email.
        var linked = false
    }

    /// Step 2: who the bearer is. A Kakao ID token (docs/api.md#kakao-id-tokens) is verified locally, with no call to
    /// Kakao; only where `idTokens` says how one is used (the token exchange, the hook), and refused elsewhere. Anything
    /// else is an access token, verified by Kakao.
    func verifiedUser(_ bearer: String, idTokens use: KakaoIDTokens.Use?, context: CallContext) async throws(Problem) -> KakaoUser {
        if KakaoIDTokens.looksLikeIDToken(bearer) {
            // The legacy route takes access tokens only: an ID token there is refused before Kakao or the cache is asked,
            // since only the exchange and the hook check its nonce and the unlink mark (docs/api.md#kakao-id-tokens).
            guard let use else {
                throw Problem.invalidKakaoToken("This route takes Kakao access tokens only; send a Kakao ID token to GET /v1/token-exchange.")
            }
            guard let idTokens = state.kakaoIDTokens else {
                throw Problem.invalidKakaoIDToken(
                    "This service does not accept Kakao ID tokens (kakao.oidc.audiences is empty); send the Kakao access token."
                )
            }
            return try await idTokens.verify(bearer, use: use, context: context)
        }
        return try await state.kakao.verify(accessToken: bearer, context: context)
    }

    /// Steps 2–3 with the user sync between them: what the legacy route needs (access tokens only). A disabled user gets
    /// no custom token.
    func mint(kakaoToken: String, idTokens use: KakaoIDTokens.Use? = nil, context: CallContext) async throws(Problem) -> Minted {
        let user = try await verifiedUser(kakaoToken, idTokens: use, context: context)
        let kakaoUID = state.config.kakao.uidPrefix + String(user.id)
        // The sync decides the uid: `kakao:<id>`, or the account it is linked to (docs/api.md#linking-to-an-existing-firebase-account).
        let synced = try await state.userSync?.sync(uid: kakaoUID, user: user, context: context)
            ?? UserSync.Result(uid: kakaoUID, created: false)
        do {
            let token = try state.minter.mint(uid: synced.uid, kakaoID: user.id)
            return Minted(uid: synced.uid, customToken: token, user: user, createdUser: synced.created, linked: synced.linked)
        } catch {
            // Only a broken key gets here; the service cannot go on honestly.
            throw Problem.notReady("The custom token could not be signed.")
        }
    }

    /// Steps 2–6.
    func exchange(kakaoToken: String, context: CallContext) async throws(Problem) -> TokenExchangeResponse {
        let minted = try await mint(kakaoToken: kakaoToken, idTokens: .exchange, context: context)
        return try await stepsFourToSix(minted, kakaoToken: kakaoToken, context: context)
    }

    /// Apart from `exchange`, so that the answer being built is not in the frame that waits on Kakao: that frame is
    /// held by every login in flight.
    @inline(never)
    private func stepsFourToSix(_ minted: Minted, kakaoToken: String, context: CallContext) async throws(Problem) -> TokenExchangeResponse {
        var response = TokenExchangeResponse(
            uid: minted.uid, customToken: minted.customToken, customTokenExpiresIn: state.minter.ttl, kakao: minted.user
        )
        guard let identityToolkit = state.identityToolkit else { return response }
        var session = try await identityToolkit.signIn(customToken: minted.customToken, context: context)
        // The sync's create comes first, so Identity Toolkit then sees an existing user; the login still made it.
        // A linked login signs into an account that existed before (docs/api.md#linking-to-an-existing-firebase-account).
        session.isNewUser = !minted.linked && (session.isNewUser || minted.createdUser)
        response.firebase = session
        guard let backend = state.backend else { return response }
        let login = try await backend.completeLogin(kakaoToken: kakaoToken, idToken: session.idToken, context: context)
        guard (200..<300).contains(login.status) else { throw Problem.backendRejected(login) }
        response.login = login
        return response
    }
}

/// The answer of `GET /v1/token-exchange` (docs/api.md#get-v1token-exchange); written by `AnswerWriting`.
struct TokenExchangeResponse: Sendable {
    var uid: String
    var customToken: String
    var customTokenExpiresIn: Int
    var kakao: KakaoUser
    var firebase: FirebaseSession?
    var login: LoginResult?
}
