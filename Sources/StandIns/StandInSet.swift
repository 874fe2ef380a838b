import Logging

/// Every upstream of the bridge on loopback, signed by a fresh service account: Kakao, Identity Toolkit with the Admin API
/// on the same server (one user store, as at Google), Google's certificate and token endpoints, and a backend; with
/// `keyless`, also Google Cloud's metadata server and the IAM Credentials API, signing as the same account with a key of
/// its own that Identity Toolkit trusts (docs/api.md#keyless-signing-on-google-cloud). The one set the tests,
/// `kakao-bridge sandbox`, the demo and the benchmark point a real bridge at. Started together so a half-started set
/// never leaks servers.
public final class StandInSet: Sendable {
    /// Its `token_uri` names the token-endpoint stand-in: write `account.json()` as the bridge's service-account file.
    public let account: SandboxServiceAccount
    public let keys: SecureTokenKeys
    public let webAPIKey: String

    public let kakao: KakaoStandIn
    /// Naver's profile API (`naver.api_base_url`).
    public let naver: NaverStandIn
    public let naverServer: StandInServer
    /// LINE Login's API (`line.api_base_url`): verify, profile and the ID tokens' keys.
    public let line: LineStandIn
    public let lineServer: StandInServer
    public let certificates: CertificatesStandIn
    public let identityToolkit: IdentityToolkitStandIn
    public let backend: BackendStandIn
    public let googleToken: GoogleTokenStandIn
    public let admin: AdminAPIStandIn
    /// The Firebase project's users (Admin API and sign-in alike).
    public var users: FirebaseUserStore { admin.users }

    public let kakaoServer: StandInServer
    public let certificatesServer: StandInServer
    public let identityToolkitServer: StandInServer
    public let backendServer: StandInServer
    public let googleTokenServer: StandInServer
    /// Keyless only: the metadata server and the IAM Credentials API, and their servers.
    public let metadata: MetadataServerStandIn?
    public let iamCredentials: IAMCredentialsStandIn?
    public let metadataServer: StandInServer?
    public let iamCredentialsServer: StandInServer?

    private init(
        account: SandboxServiceAccount, keys: SecureTokenKeys, webAPIKey: String,
        kakao: KakaoStandIn, certificates: CertificatesStandIn, identityToolkit: IdentityToolkitStandIn, backend: BackendStandIn,
        googleToken: GoogleTokenStandIn, admin: AdminAPIStandIn, metadata: MetadataServerStandIn?,
        iamCredentials: IAMCredentialsStandIn?, naver: NaverStandIn, naverServer: StandInServer, line: LineStandIn, lineServer: StandInServer, servers: [StandInServer]
    ) {
        self.line = line
        self.lineServer = lineServer
        self.naver = naver
        self.naverServer = naverServer
        self.metadata = metadata
        self.iamCredentials = iamCredentials
        self.metadataServer = metadata == nil ? nil : servers[5]
        self.iamCredentialsServer = iamCredentials == nil ? nil : servers[6]
        self.googleToken = googleToken
        self.admin = admin
        self.googleTokenServer = servers[4]
        self.account = account
        self.keys = keys
        self.webAPIKey = webAPIKey
        self.kakao = kakao
        self.certificates = certificates
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.kakaoServer = servers[0]
        self.certificatesServer = servers[1]
        self.identityToolkitServer = servers[2]
        self.backendServer = servers[3]
    }

    /// `line.api_base_url`
    public var lineBaseURL: String { lineServer.baseURL }
    /// `naver.api_base_url`
    public var naverBaseURL: String { naverServer.baseURL }

    /// `kakao.api_base_url`
    public var kakaoBaseURL: String { kakaoServer.baseURL }
    /// `kakao.oidc.jwks_url`
    public var kakaoJWKSURL: String { KakaoStandIn.jwksURL(on: kakaoServer) }
    /// `firebase.identity_toolkit_url`
    public var identityToolkitBaseURL: String { identityToolkitServer.baseURL }
    /// `firebase.securetoken_certs_url`
    public var certificatesURL: String { CertificatesStandIn.url(on: certificatesServer) }
    /// `backend.login_complete_url`
    public var backendURL: String { BackendStandIn.url(on: backendServer) }
    /// `backend.unlink_url`
    public var backendUnlinkURL: String { BackendStandIn.unlinkURL(on: backendServer) }
    public var backendEventsURL: String { BackendStandIn.eventsURL(on: backendServer) }

    /// The service account's `token_uri`.
    public var googleTokenURL: String { googleToken.url }

    /// `firebase.metadata_url` (keyless only).
    public var metadataURL: String? { metadataServer?.baseURL }
    /// `firebase.iam_credentials_url` (keyless only).
    public var iamCredentialsURL: String? { iamCredentialsServer?.baseURL }

    public var servers: [StandInServer] {
        [kakaoServer, certificatesServer, identityToolkitServer, backendServer, googleTokenServer]
            + [metadataServer, iamCredentialsServer].compactMap { $0 } + [naverServer, lineServer]
    }

    /// `keyless`: also the metadata server (whose account is `account`'s email, in `account`'s project) and the IAM
    /// Credentials API, for `firebase.signer: iam`; the key file then goes unused.
    public static func start(
        appID: Int64,
        webAPIKey: String,
        account: SandboxServiceAccount,
        tenantID: String? = nil,
        keyless: Bool = false,
        logger: Logger? = nil
    ) async throws -> StandInSet {
        let keys = try SecureTokenKeys()
        let kakao = KakaoStandIn(appID: appID)
        let certificates = CertificatesStandIn(keys: keys)
        let googleToken = GoogleTokenStandIn(account: account)
        let metadata = keyless ? MetadataServerStandIn(email: account.clientEmail, projectID: account.projectID) : nil
        let iamCredentials = try metadata.map { try IAMCredentialsStandIn(accountEmail: account.clientEmail, tokens: $0) }
        let admin = AdminAPIStandIn(
            users: FirebaseUserStore(), projectID: account.projectID, tenantID: tenantID,
            issuers: [googleToken] + (metadata.map { [$0] } ?? [])
        )
        let identityToolkit = IdentityToolkitStandIn(
            apiKey: webAPIKey, projectID: account.projectID, serviceAccountEmail: account.clientEmail,
            serviceAccountPublicKey: account.publicKey, serviceAccountKeyID: account.privateKeyID,
            otherAccountKeys: iamCredentials.map { [(id: $0.keyID, key: $0.publicKey)] } ?? [], keys: keys,
            tenantID: tenantID, admin: admin
        )
        let backend = BackendStandIn()
        let naver = NaverStandIn()
        let line = LineStandIn()

        var started: [StandInServer] = []
        do {
            started.append(try await kakao.start(logger: logger))
            started.append(try await certificates.start(logger: logger))
            started.append(try await identityToolkit.start(logger: logger))
            started.append(try await backend.start(logger: logger))
            started.append(try await googleToken.start(logger: logger))
            if let metadata, let iamCredentials {
                started.append(try await metadata.start(logger: logger))
                started.append(try await iamCredentials.start(logger: logger))
            }
        } catch {
            for server in started { await server.stop() }
            throw error
        }
        let naverServer: StandInServer
        let lineServer: StandInServer
        do {
            naverServer = try await naver.start(logger: logger)
            started.append(naverServer)
            lineServer = try await line.start(logger: logger)
            started.removeLast()
        } catch {
            for server in started { await server.stop() }
            throw error
        }
        var account = account
        account.tokenURI = googleToken.url
        return StandInSet(
            account: account, keys: keys, webAPIKey: webAPIKey, kakao: kakao, certificates: certificates,
            identityToolkit: identityToolkit, backend: backend, googleToken: googleToken, admin: admin, metadata: metadata,
            iamCredentials: iamCredentials, naver: naver, naverServer: naverServer, line: line, lineServer: lineServer, servers: started
        )
    }

    public func stop() async {
        for server in servers { await server.stop() }
    }
}
