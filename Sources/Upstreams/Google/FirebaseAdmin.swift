import BridgeSupport
import Metrics

/// The Admin API as the rest of the service uses it: the credential from `AccessTokenCache` (or `owner` with the Auth
/// Emulator), the configured project and tenant, and the metrics of every call by operation and outcome. Built by
/// `Features.assemble` in front of whatever `FirebaseAdminCalling` it is given.
package struct FirebaseAdmin: Sendable {
    package enum Operation: String, CaseIterable, Sendable {
        case lookup
        case create
        case update
        case delete
    }

    package enum AdminOutcome: String, CaseIterable, Sendable {
        case ok
        /// A lookup that found nobody.
        case notFound = "not_found"
        /// `EMAIL_EXISTS` or `DUPLICATE_LOCAL_ID`.
        case conflict
        /// A problem (refusal, outage, timeout, or no credential).
        case failed
    }

    package let api: any FirebaseAdminCalling
    package let credentials: AccessTokenCache
    package let projectID: String
    package let tenantID: String?
    private let meters = AdminMeters()

    package init(api: any FirebaseAdminCalling, credentials: AccessTokenCache, projectID: String, tenantID: String?) {
        self.api = api
        self.credentials = credentials
        self.projectID = projectID
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
    }

    package func lookUp(_ key: AdminLookup, context: CallContext) async throws(Problem) -> FirebaseUserRecord? {
        try await measured(.lookup, context, outcome: { $0 == nil ? .notFound : .ok }) { scope throws(Problem) in
            try await api.lookUp(key, scope: scope, context: context)
        }
    }

    package func create(_ user: NewFirebaseUser, context: CallContext) async throws(Problem) -> AdminWriteOutcome {
        try await measured(.create, context, outcome: Self.writeOutcome) { scope throws(Problem) in
            try await api.create(user, scope: scope, context: context)
        }
    }

    package func update(_ update: FirebaseUserUpdate, context: CallContext) async throws(Problem) -> AdminWriteOutcome {
        try await measured(.update, context, outcome: Self.writeOutcome) { scope throws(Problem) in
            try await api.update(update, scope: scope, context: context)
        }
    }

    package func delete(uid: String, context: CallContext) async throws(Problem) {
        try await measured(.delete, context, outcome: { _ in .ok }) { scope throws(Problem) in
            try await api.delete(uid: uid, scope: scope, context: context)
        }
    }

    private static func writeOutcome(_ outcome: AdminWriteOutcome) -> AdminOutcome { outcome == .done ? .ok : .conflict }

    private func measured<T>(
        _ operation: Operation, _ context: CallContext, outcome: (T) -> AdminOutcome, _ call: (AdminScope) async throws(Problem) -> T
    ) async throws(Problem) -> T {
        do {
            let bearer = try await credentials.bearer(context: context)
            let value = try await call(AdminScope(bearer: bearer, projectID: projectID, tenantID: tenantID))
            meters.count(operation, outcome(value))
            return value
        } catch {
            meters.count(operation, .failed)
            throw error
        }
    }

}

/// `kakao_bridge_firebase_admin_calls_total{operation, outcome}`, resolved once per label pair (no uid, ever).
package final class AdminMeters: Sendable {
    private let counters = CounterGrid<FirebaseAdmin.Operation, FirebaseAdmin.AdminOutcome>(
        .firebaseAdminCalls, labels: ("operation", "outcome")
    )

    package init() {}

    package func count(_ operation: FirebaseAdmin.Operation, _ outcome: FirebaseAdmin.AdminOutcome) {
        counters.increment(operation, outcome)
    }
}
