import Logging

/// All four upstreams of the bridge on loopback, signed by a fresh service account: the one set the tests, `kakao-bridge
/// sandbox`, the demo and the benchmark point a real bridge at. Started together so a half-started set never leaks servers.
public final class StandInSet: Sendable {
    public let account: SandboxServiceAccount
    public let keys: SecureTokenKeys
    public let webAPIKey: String

    public let kakao: KakaoStandIn
    public let certificates: CertificatesStandIn
    public let identityToolkit: IdentityToolkitStandIn
    public let backend: BackendStandIn

    public let kakaoServer: StandInServer
    public let certificatesServer: StandInServer
    public let identityToolkitServer: StandInServer
    public let backendServer: StandInServer

    private init(
        account: SandboxServiceAccount, keys: SecureTokenKeys, webAPIKey: String,
        kakao: KakaoStandIn, certificates: CertificatesStandIn, identityToolkit: IdentityToolkitStandIn, backend: BackendStandIn,
        servers: [StandInServer]
    ) {
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

    /// `kakao.api_base_url`
    public var kakaoBaseURL: String { kakaoServer.baseURL }
    /// `firebase.identity_toolkit_url`
    public var identityToolkitBaseURL: String { identityToolkitServer.baseURL }
    /// `firebase.securetoken_certs_url`
    public var certificatesURL: String { CertificatesStandIn.url(on: certificatesServer) }
    /// `backend.login_complete_url`
    public var backendURL: String { BackendStandIn.url(on: backendServer) }

    public var servers: [StandInServer] { [kakaoServer, certificatesServer, identityToolkitServer, backendServer] }

    public static func start(
        appID: Int64,
        webAPIKey: String,
        account: SandboxServiceAccount,
        tenantID: String? = nil,
        logger: Logger? = nil
    ) async throws -> StandInSet {
        let keys = try SecureTokenKeys()
        let kakao = KakaoStandIn(appID: appID)
        let certificates = CertificatesStandIn(keys: keys)
        let identityToolkit = IdentityToolkitStandIn(
            apiKey: webAPIKey, projectID: account.projectID, serviceAccountEmail: account.clientEmail,
            serviceAccountPublicKey: account.publicKey, serviceAccountKeyID: account.privateKeyID, keys: keys,
            tenantID: tenantID
        )
        let backend = BackendStandIn()

        var started: [StandInServer] = []
        do {
            started.append(try await kakao.start(logger: logger))
            started.append(try await certificates.start(logger: logger))
            started.append(try await identityToolkit.start(logger: logger))
            started.append(try await backend.start(logger: logger))
        } catch {
            for server in started { await server.stop() }
            throw error
        }
        return StandInSet(
            account: account, keys: keys, webAPIKey: webAPIKey, kakao: kakao, certificates: certificates,
            identityToolkit: identityToolkit, backend: backend, servers: started
        )
    }

    public func stop() async {
        for server in servers { await server.stop() }
    }
}
