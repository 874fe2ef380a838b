/// The service's whole configuration (docs/configuration.md#keys), with its defaults; `ConfigLoader` fills it from YAML and
/// `BRIDGE_*` variables, and `ConfigLoader.validate` is the single place that decides what is acceptable.
public struct BridgeConfig: Sendable, Equatable {
    public struct Server: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// Peers whose `X-Forwarded-For` is believed; everyone else is identified by the socket address.
        public var trustedProxies: [CIDR] = []
        public var shutdownGraceSeconds = 10
        /// How long a client may take to send one whole request (head and body); a slow sender is cut off.
        public var requestTimeoutSeconds = 30
        /// Open connections this instance accepts; past it a new connection gets a fast 503 problem and is closed.
        public var maxConnections = 4096
        /// Open connections one client address may hold (addresses in `trustedProxies` are exempt); 0 means a quarter of
        /// `maxConnections`. Past it a new connection from that address gets a fast 429 problem and is closed.
        public var maxConnectionsPerClient = 0
        /// How long a new connection may stay silent before its first request byte; then it is closed.
        public var firstRequestTimeoutSeconds = 5
        /// A second listener for `/healthz`, `/readyz` and `/metrics` (the public one then answers them 404); `nil`: none,
        /// they are served on the public port (docs/operations.md#the-admin-port).
        public var adminPort: Int?
        /// Where the admin listener listens; loopback unless the probes and the scrape come from elsewhere (a pod's IP).
        public var adminHost = "127.0.0.1"
        /// Web origins that may call the token exchange and the nonce route from a browser (CORS), matched exactly;
        /// empty: none (docs/api.md#web-clients-cors).
        public var corsOrigins: [String] = []
        public init() {}
    }

    public struct Kakao: Sendable, Equatable {
        /// Required, > 0: tokens issued to any other Kakao app are refused.
        public var appID: Int64 = 0
        public var apiBaseURL = "https://kapi.kakao.com"
        public var uidPrefix = "kakao:"
        /// 0 turns the verified-token cache off.
        public var cacheSeconds = 60
        /// Kakao's admin key of our app; empty switches the unlink webhook off (docs/api.md#kakaos-unlink-webhook). A secret.
        public var adminKey = ""
        /// What an unlink does to the Firebase user: `revoke`, `disable`, `delete` or `none`.
        public var unlinkAction = UnlinkAction.revoke
        /// The webhook's steps all finish inside this; Kakao waits 3 s for its 200.
        public var unlinkDeadlineMS = 2500
        /// How long an unlink step that keeps failing is retried before its event is marked failed; a number of hours.
        public var unlinkRetryHours = 72.0
        /// After this, an unlink event an instance took and did not finish is taken by another.
        public var unlinkLeaseSeconds = 30
        /// Kakao ID tokens (docs/api.md#kakao-id-tokens); `KakaoOIDCConfig.swift`.
        public var oidc = OIDC()
        /// Kakao's security events (docs/api.md#kakaos-security-events); `KakaoEventsConfig.swift`.
        public var events = Events()
        public init() {}
    }

    public struct Firebase: Sendable, Equatable {
        /// Required with `signer: key_file`; must be empty with `signer: iam`.
        public var serviceAccountFile = ""
        /// Empty means "the service account file's `project_id`" (with `signer: iam`, the metadata server's project).
        public var projectID = ""
        /// Who signs custom tokens (docs/api.md#keyless-signing-on-google-cloud): the key file's private key, or the IAM
        /// Credentials API as the account the service runs as.
        public var signer = Signer.keyFile
        /// With `signer: iam`: the account that signs; empty means the metadata server's default account.
        public var serviceAccountEmail = ""
        public var iamCredentialsURL = "https://iamcredentials.googleapis.com"
        /// Empty means `http://` + `GCE_METADATA_HOST`, or Google's own address (`effectiveMetadataURL`).
        public var metadataURL = ""
        /// `GCE_METADATA_HOST` (or its older name `GCE_METADATA_ROOT`) as the loader found it: not a key, the variable
        /// Google's auth libraries read, honoured the same way.
        public var metadataHost = ""
        /// Empty switches steps 4–5 off. A secret: never logged or echoed.
        public var webAPIKey = ""
        public var identityToolkitURL = "https://identitytoolkit.googleapis.com"
        public var securetokenCertsURL =
            "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
        public var customTokenTTLSeconds = 3600
        public var clockSkewSeconds = 0
        public var tenantID = ""
        /// `off`, `best_effort` or `required`: keeping the Firebase user in step with the Kakao profile (docs/api.md#user-sync).
        public var userSync = UserSyncMode.bestEffort
        /// How long a user found in step is trusted without an Admin call; 0 to 3600.
        public var userCacheSeconds = 300
        /// `host:port` of the Firebase Auth Emulator; `FIREBASE_AUTH_EMULATOR_HOST` sets it too. Empty: Google itself.
        public var emulatorHost = ""
        /// The emulator accepts unsigned tokens, so only a loopback one is used unless this says otherwise.
        public var emulatorAllowRemote = false
        public init() {}

        /// The metadata server's base URL: `metadata_url`, else `http://` + `GCE_METADATA_HOST`, else Google's link-local
        /// name (docs/configuration.md#keyless-signing).
        public var effectiveMetadataURL: String {
            if !metadataURL.isEmpty { return metadataURL }
            if !metadataHost.isEmpty { return "http://" + metadataHost }
            return Self.defaultMetadataURL
        }

        /// Where Google's libraries find the metadata server when nothing says otherwise.
        public static let defaultMetadataURL = "http://metadata.google.internal"

        /// Whether the Auth Emulator replaces Google (docs/api.md#the-auth-emulator).
        public var usesEmulator: Bool { !emulatorHost.isEmpty }

        /// Where Identity Toolkit and the Admin API are called: Google's URL, or the emulator's
        /// `http://host:port/identitytoolkit.googleapis.com`, as the Admin SDKs build it.
        public var effectiveIdentityToolkitURL: String {
            usesEmulator ? "http://\(emulatorHost)/identitytoolkit.googleapis.com" : identityToolkitURL
        }
    }

    public struct Backend: Sendable, Equatable {
        /// Empty switches step 6 off.
        public var loginCompleteURL = ""
        /// Empty: the backend is not told about unlinks (docs/api.md#kakaos-unlink-webhook).
        public var unlinkURL = ""
        /// Empty: the backend is not told about Kakao's security events (docs/api.md#kakaos-security-events).
        public var eventsURL = ""
        public init() {}
    }

    public struct Hook: Sendable, Equatable {
        /// Empty switches `POST /v1/login-complete` off. Secrets: never logged or echoed. More than one during a rotation:
        /// each is accepted from the backend; the first is the one the service sends (docs/configuration.md#rotating-the-hook-secret).
        public var secrets: [String] = []
        /// As `verifyIdToken(token, true)`: the user is looked up and a revoked session or disabled user refused.
        public var checkRevoked = false
        public init() {}

        /// The first secret: the one the service sends on its own calls to the backend; empty when the hook is off.
        /// Setting it replaces the list with this one secret.
        public var secret: String {
            get { secrets.first ?? "" }
            set { secrets = newValue.isEmpty ? [] : [newValue] }
        }
    }

    public struct Legacy: Sendable, Equatable {
        public var enabled = true
        public init() {}
    }

    public struct Linking: Sendable, Equatable {
        /// A first Kakao login with a verified email signs into the existing Firebase user of that verified email
        /// (docs/api.md#linking-to-an-existing-firebase-account).
        public var byVerifiedEmail = false
        public init() {}
    }

    /// Account deletion (docs/api.md#deleting-an-account). `POST /v1/users/delete` is on with `hook.secret`.
    public struct Delete: Sendable, Equatable {
        /// `POST /v1/me/delete`: the app deletes its signed-in person's account with their Firebase ID token.
        public var selfService = false
        /// How old the ID token's sign-in (`auth_time`) may be for `POST /v1/me/delete`.
        public var maxAuthAgeSeconds = 300
        public init() {}
    }

    public struct Upstream: Sendable, Equatable {
        public var timeoutMS = 5000
        public var maxInFlight = 256
        /// Plain-HTTP upstream URLs off loopback are refused unless this is set: a plain-HTTP certificate URL would let
        /// anyone on the path forge ID tokens.
        public var allowInsecure = false
        public init() {}
    }

    public struct RateLimit: Sendable, Equatable {
        /// 0 turns rate limiting off.
        public var perClientPerMinute = 600
        /// All calls of the routes authenticated by the hook secret, per instance; 0 turns it off. Those routes are
        /// not subject to the per-client limit: the backend calls them from a few addresses for all users.
        public var hookPerMinute = 0
        public init() {}
    }

    /// Where what must outlive a request is kept (docs/operations.md#shared-state).
    public struct State: Sendable, Equatable {
        /// Empty: this process's memory; `sqlite:///path/state.db`; `postgres://user@host:5432/db?sslmode=require`.
        public var url = ""
        /// The PostgreSQL password. A secret.
        public var password = ""
        public init() {}
    }

    public struct Log: Sendable, Equatable {
        public var level = "info"
        public var format = "json"
        public init() {}
    }

    /// Spans of each request and its upstream calls over OTLP/HTTP (docs/operations.md#tracing).
    public struct Tracing: Sendable, Equatable {
        /// Empty: off (no tracer, no spans). Otherwise the base URL of an OTLP/HTTP collector, e.g.
        /// `http://otel-collector:4318`; spans are sent to its `/v1/traces` (OTLP/HTTP, protobuf).
        public var otlpEndpoint = ""
        /// The `service.name` resource attribute of every span.
        public var serviceName = "kakao-bridge"
        public init() {}
    }

    public var server = Server()
    public var kakao = Kakao()
    public var naver = Naver()
    public var line = Line()
    public var firebase = Firebase()
    public var backend = Backend()
    public var hook = Hook()
    public var legacy = Legacy()
    public var linking = Linking()
    public var delete = Delete()
    public var upstream = Upstream()
    public var rateLimit = RateLimit()
    public var state = State()
    public var log = Log()
    public var tracing = Tracing()

    public init() {}
}
