import BridgeSupport
import Upstreams
/// The six-step flow (docs/api.md#the-six-step-flow) from the service's side: verify with the provider (2), keep the
/// Firebase user in step with the profile (docs/api.md#user-sync, between 2 and 3), mint (3), exchange at Identity
/// Toolkit (4–5) and complete the login at the backend (6), each later step only when it is configured. Every step but
/// the second works on the provider's user through `ProviderProfile`, whichever provider it is (`LoginProvider`).
///
/// A class: a login's async frames hold it by one reference while they wait on the provider (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
package final class LoginFlow: Sendable {
    /// Kakao, always on: the default provider.
    package let kakao: KakaoLogin
    /// Present exactly when `naver.client_id` is set.
    package let naver: NaverLogin?
    /// Present exactly when `line.channel_id` is set.
    package let line: LineLogin?
    /// Present unless `firebase.user_sync: off`.
    let userSync: UserSync?
    let minter: CustomTokenMinter
    /// Present exactly when steps 4–5 are on (`firebase.web_api_key` set).
    let identityToolkit: (any IdentityToolkitExchanging)?
    /// Present exactly when step 6 is on (`backend.login_complete_url` set).
    let backend: (any BackendCompleting)?

    init(
        kakao: KakaoLogin, naver: NaverLogin?, line: LineLogin?, userSync: UserSync?, minter: CustomTokenMinter,
        identityToolkit: (any IdentityToolkitExchanging)?, backend: (any BackendCompleting)?
    ) {
        self.kakao = kakao
        self.naver = naver
        self.line = line
        self.userSync = userSync
        self.minter = minter
        self.identityToolkit = identityToolkit
        self.backend = backend
    }

    /// `kakao.uid_prefix`.
    package var uidPrefix: String { kakao.uidPrefix }

    /// Whether `provider` is switched on here (Kakao always is): asked before any upstream call (docs/api.md#providers).
    package func isOn(_ provider: Provider) -> Bool {
        switch provider {
        case .kakao: true
        case .naver: naver != nil
        case .line: line != nil
        }
    }

    package struct Minted<User: ProviderProfile>: Sendable {
        package var uid: String
        package var customToken: String
        package var user: User
        /// The user sync created the Firebase user during this login.
        package var createdUser: Bool
        /// The login signed into an existing account linked by email.
        package var linked = false
    }

    /// Kakao's step 2, as the hook and tests ask it.
    package func verifiedUser(_ bearer: String, idTokens use: KakaoIDTokens.Use?, context: CallContext) async throws(Problem) -> KakaoUser {
        let credentialUse: CredentialUse
        switch use {
        case .none: credentialUse = .legacy
        case .some(.exchange): credentialUse = .exchange
        case .some(.hook): credentialUse = .hook
        }
        return try await kakao.verifiedUser(bearer, use: credentialUse, context: context)
    }

    /// Steps 2–3 with the user sync between them: what the legacy route needs (Kakao access tokens only).
    package func mint(kakaoToken: String, context: CallContext) async throws(Problem) -> Minted<KakaoUser> {
        try await mint(with: kakao, token: kakaoToken, use: .legacy, context: context)
    }

    /// Steps 2–3 with the user sync between them, for any provider. A disabled user gets no custom token.
    package func mint<P: LoginProvider>(with provider: P, token: String, use: CredentialUse, context: CallContext) async throws(Problem) -> Minted<P.User> {
        let user = try await provider.verifiedUser(token, use: use, context: context)
        let providerUID = provider.uidPrefix + user.uidSuffix
        // The sync decides the uid: `kakao:<id>`, or the account it is linked to (docs/api.md#linking-to-an-existing-firebase-account).
        let synced = try await userSync?.sync(uid: providerUID, user: user, context: context)
            ?? UserSync.Account(uid: providerUID, created: false)
        guard minter.signsInProcess else { return try await mintedByCall(synced, user: user, context: context) }
        do {
            let token = try minter.mint(uid: synced.uid, claim: user.claim)
            return Minted(uid: synced.uid, customToken: token, user: user, createdUser: synced.created, linked: synced.linked)
        } catch {
            // Only a broken key gets here; the service cannot go on honestly.
            throw Problem.notReady("The custom token could not be signed.")
        }
    }

    /// Step 3 when the signer is a call (`firebase.signer: iam`, one `signBlob`: docs/api.md#keyless-signing-on-google-cloud).
    private func mintedByCall<User: ProviderProfile>(_ synced: UserSync.Account, user: User, context: CallContext) async throws(Problem) -> Minted<User> {
        let token = try await minter.mint(uid: synced.uid, claim: user.claim, context: context)
        return Minted(uid: synced.uid, customToken: token, user: user, createdUser: synced.created, linked: synced.linked)
    }

    /// Steps 2–6 of a Kakao login.
    package func exchange(kakaoToken: String, context: CallContext) async throws(Problem) -> TokenExchangeResponse<KakaoUser> {
        try await exchange(with: kakao, token: kakaoToken, context: context)
    }

    /// Steps 2–6, for any provider.
    package func exchange<P: LoginProvider>(with provider: P, token: String, context: CallContext) async throws(Problem) -> TokenExchangeResponse<P.User> {
        let minted = try await mint(with: provider, token: token, use: .exchange, context: context)
        return try await stepsFourToSix(minted, providerToken: token, context: context)
    }

    private func stepsFourToSix<User: ProviderProfile>(
        _ minted: Minted<User>, providerToken: String, context: CallContext
    ) async throws(Problem) -> TokenExchangeResponse<User> {
        var response = TokenExchangeResponse(
            uid: minted.uid, customToken: minted.customToken, customTokenExpiresIn: minter.ttl, profile: minted.user
        )
        guard let identityToolkit = identityToolkit else { return response }
        var session = try await identityToolkit.signIn(customToken: minted.customToken, context: context)
        // The sync's create comes first, so Identity Toolkit then sees an existing user; the login still made it.
        // A linked login signs into an account that existed before (docs/api.md#linking-to-an-existing-firebase-account).
        session.isNewUser = !minted.linked && (session.isNewUser || minted.createdUser)
        response.firebase = session
        guard let backend = backend else { return response }
        // Kakao's body is exactly `{"kakao_token", "token"}`, as apps in the field send it; the others name themselves.
        let login = User.provider == .kakao
            ? try await backend.completeLogin(kakaoToken: providerToken, idToken: session.idToken, context: context)
            : try await backend.completeLogin(provider: User.provider, providerToken: providerToken, idToken: session.idToken, context: context)
        guard (200..<300).contains(login.status) else { throw Problem.backendRejected(login) }
        response.login = login
        return response
    }
}

/// The answer of `GET /v1/token-exchange` (docs/api.md#get-v1token-exchange); written in the edge (`Routes/JSONResponse.swift`).
package struct TokenExchangeResponse<User: ProviderProfile>: Sendable {
    package var uid: String
    package var customToken: String
    package var customTokenExpiresIn: Int
    /// The provider's user: the answer's `kakao`, `naver` or `line` object.
    package var profile: User
    package var firebase: FirebaseSession?
    package var login: LoginResult?

    package init(uid: String, customToken: String, customTokenExpiresIn: Int, profile: User, firebase: FirebaseSession? = nil, login: LoginResult? = nil) {
        self.uid = uid
        self.customToken = customToken
        self.customTokenExpiresIn = customTokenExpiresIn
        self.profile = profile
        self.firebase = firebase
        self.login = login
    }
}

extension TokenExchangeResponse where User == KakaoUser {
    package init(uid: String, customToken: String, customTokenExpiresIn: Int, kakao: KakaoUser, firebase: FirebaseSession? = nil, login: LoginResult? = nil) {
        self.init(uid: uid, customToken: customToken, customTokenExpiresIn: customTokenExpiresIn, profile: kakao, firebase: firebase, login: login)
    }

    package var kakao: KakaoUser { profile }
}
