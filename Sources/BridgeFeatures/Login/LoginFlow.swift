import BridgeSupport
import Upstreams
/// The six-step flow (docs/api.md#the-six-step-flow) from the service's side: verify with Kakao (2), keep the Firebase user in
/// step with the profile (docs/api.md#user-sync, between 2 and 3), mint (3), exchange at Identity Toolkit (4–5) and
/// complete the login at the backend (6), each later step only when it is configured.
///
/// A class: a login's async frames hold it by one reference while they wait on Kakao (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
package final class LoginFlow: Sendable {
    /// Kakao's token info and profile, behind the verification cache when `kakao.cache_seconds` > 0.
    let kakao: any KakaoVerifying
    /// Present exactly when `kakao.oidc.audiences` is not empty (docs/api.md#kakao-id-tokens).
    let kakaoIDTokens: KakaoIDTokens?
    /// Present unless `firebase.user_sync: off`.
    let userSync: UserSync?
    let minter: CustomTokenMinter
    /// Present exactly when steps 4–5 are on (`firebase.web_api_key` set).
    let identityToolkit: (any IdentityToolkitExchanging)?
    /// Present exactly when step 6 is on (`backend.login_complete_url` set).
    let backend: (any BackendCompleting)?
    /// `kakao.uid_prefix`.
    let uidPrefix: String

    init(
        kakao: any KakaoVerifying, kakaoIDTokens: KakaoIDTokens?, userSync: UserSync?, minter: CustomTokenMinter,
        identityToolkit: (any IdentityToolkitExchanging)?, backend: (any BackendCompleting)?, uidPrefix: String
    ) {
        self.kakao = kakao
        self.kakaoIDTokens = kakaoIDTokens
        self.userSync = userSync
        self.minter = minter
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.uidPrefix = uidPrefix
    }

    package struct Minted: Sendable {
        package var uid: String
        package var customToken: String
        package var user: KakaoUser
        /// The user sync created the Firebase user during this login.
        package var createdUser: Bool
        /// The login signed into an existing account linked by email.
        package var linked = false
    }

    /// Step 2: who the bearer is. A Kakao ID token (docs/api.md#kakao-id-tokens) is verified locally, with no call to
    /// Kakao; only where `idTokens` says how one is used (the token exchange, the hook), and refused elsewhere. Anything
    /// else is an access token, verified by Kakao.
    package func verifiedUser(_ bearer: String, idTokens use: KakaoIDTokens.Use?, context: CallContext) async throws(Problem) -> KakaoUser {
        if KakaoCredentialKind(bearer: bearer) == .idToken {
            // The legacy route takes access tokens only: an ID token there is refused before Kakao or the cache is asked,
            // since only the exchange and the hook check its nonce and the unlink mark (docs/api.md#kakao-id-tokens).
            guard let use else {
                throw Problem.invalidKakaoToken("This route takes Kakao access tokens only; send a Kakao ID token to GET /v1/token-exchange.")
            }
            guard let idTokens = kakaoIDTokens else {
                throw Problem.invalidKakaoIDToken(
                    "This service does not accept Kakao ID tokens (kakao.oidc.audiences is empty); send the Kakao access token."
                )
            }
            return try await idTokens.verify(bearer, use: use, context: context)
        }
        return try await kakao.verify(accessToken: bearer, context: context)
    }

    /// Steps 2–3 with the user sync between them: what the legacy route needs (access tokens only). A disabled user gets
    /// no custom token.
    package func mint(kakaoToken: String, idTokens use: KakaoIDTokens.Use? = nil, context: CallContext) async throws(Problem) -> Minted {
        let user = try await verifiedUser(kakaoToken, idTokens: use, context: context)
        let kakaoUID = uidPrefix + String(user.id)
        // The sync decides the uid: `kakao:<id>`, or the account it is linked to (docs/api.md#linking-to-an-existing-firebase-account).
        let synced = try await userSync?.sync(uid: kakaoUID, user: user, context: context)
            ?? UserSync.Result(uid: kakaoUID, created: false)
        guard minter.signsInProcess else { return try await mintedByCall(synced, user: user, context: context) }
        do {
            let token = try minter.mint(uid: synced.uid, kakaoID: user.id)
            return Minted(uid: synced.uid, customToken: token, user: user, createdUser: synced.created, linked: synced.linked)
        } catch {
            // Only a broken key gets here; the service cannot go on honestly.
            throw Problem.notReady("The custom token could not be signed.")
        }
    }

    /// Step 3 when the signer is a call (`firebase.signer: iam`, one `signBlob`: docs/api.md#keyless-signing-on-google-cloud).
    /// Out of line, so that the key file's path keeps its frame: `mint`'s frame is held by every login waiting on Kakao.
    @inline(never)
    private func mintedByCall(_ synced: UserSync.Result, user: KakaoUser, context: CallContext) async throws(Problem) -> Minted {
        let token = try await minter.mint(uid: synced.uid, kakaoID: user.id, context: context)
        return Minted(uid: synced.uid, customToken: token, user: user, createdUser: synced.created, linked: synced.linked)
    }

    /// Steps 2–6.
    package func exchange(kakaoToken: String, context: CallContext) async throws(Problem) -> TokenExchangeResponse {
        let minted = try await mint(kakaoToken: kakaoToken, idTokens: .exchange, context: context)
        return try await stepsFourToSix(minted, kakaoToken: kakaoToken, context: context)
    }

    /// Apart from `exchange`, so that the answer being built is not in the frame that waits on Kakao: that frame is
    /// held by every login in flight.
    @inline(never)
    private func stepsFourToSix(_ minted: Minted, kakaoToken: String, context: CallContext) async throws(Problem) -> TokenExchangeResponse {
        var response = TokenExchangeResponse(
            uid: minted.uid, customToken: minted.customToken, customTokenExpiresIn: minter.ttl, kakao: minted.user
        )
        guard let identityToolkit = identityToolkit else { return response }
        var session = try await identityToolkit.signIn(customToken: minted.customToken, context: context)
        // The sync's create comes first, so Identity Toolkit then sees an existing user; the login still made it.
        // A linked login signs into an account that existed before (docs/api.md#linking-to-an-existing-firebase-account).
        session.isNewUser = !minted.linked && (session.isNewUser || minted.createdUser)
        response.firebase = session
        guard let backend = backend else { return response }
        let login = try await backend.completeLogin(kakaoToken: kakaoToken, idToken: session.idToken, context: context)
        guard (200..<300).contains(login.status) else { throw Problem.backendRejected(login) }
        response.login = login
        return response
    }
}

/// The answer of `GET /v1/token-exchange` (docs/api.md#get-v1token-exchange); written in the edge (`Routes/JSONResponse.swift`).
package struct TokenExchangeResponse: Sendable {
    package var uid: String
    package var customToken: String
    package var customTokenExpiresIn: Int
    package var kakao: KakaoUser
    package var firebase: FirebaseSession?
    package var login: LoginResult?
}
