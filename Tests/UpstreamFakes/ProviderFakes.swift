import BridgeJSON
import BridgeSupport
import OpenSSLCrypto
import StandIns
import Synchronization
import Upstreams

/// Naver and LINE for router-level tests: tables of issued tokens that count their calls. What Naver and LINE answer on
/// the wire (resultcodes, verify, profile) is the stand-ins' business and the end-to-end tests'.
package final class FakeProvider<User: Sendable>: Sendable {
    private struct State {
        var tokens: [String: Result<User, Problem>] = [:]
        var calls = 0
        var next = 0
    }

    private let state = Mutex(State())
    private let unknown: @Sendable () -> Problem

    package init(unknown: @escaping @Sendable () -> Problem) { self.unknown = unknown }

    package func issue(_ outcome: Result<User, Problem>) -> String {
        state.withLock { state in
            state.next += 1
            let token = "fake-provider-token-\(state.next)"
            state.tokens[token] = outcome
            return token
        }
    }

    package func answer(_ token: String) throws(Problem) -> User {
        let outcome = state.withLock { state -> Result<User, Problem>? in
            state.calls += 1
            return state.tokens[token]
        }
        return try (outcome ?? .failure(unknown())).get()
    }

    package var calls: Int { state.withLock { $0.calls } }
}

package final class FakeNaver: NaverVerifying {
    package init() {}
    package let provider = FakeProvider<NaverUser> { Problem.invalidNaverToken("Naver does not accept the token (resultcode 024).") }

    package func verify(accessToken: String, context: CallContext) async throws(Problem) -> NaverUser { try provider.answer(accessToken) }
    package func issue(_ user: NaverUser) -> String { provider.issue(.success(user)) }
    package var calls: Int { provider.calls }
}

package final class FakeLine: LineVerifying, LineKeySetFetching {
    package let provider = FakeProvider<LineUser> { Problem.invalidLineToken("LINE does not accept the token (invalid_request).") }
    /// The stand-in's keys and signer: ID tokens the fake's JWKS verifies.
    package let standIn: LineStandIn

    package init(standIn: LineStandIn = LineStandIn()) { self.standIn = standIn }

    package func verify(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedProviderToken<LineUser> {
        VerifiedProviderToken(user: try provider.answer(accessToken), expiresIn: expiresIn)
    }

    /// What LINE's verify says of every token's remaining lifetime.
    package var expiresIn: Int64? {
        get { lifetime.withLock { $0 } }
        set { lifetime.withLock { $0 = newValue } }
    }

    private let lifetime = Mutex<Int64?>(2_591_659)
    package func issue(_ user: LineUser) -> String { provider.issue(.success(user)) }
    package var calls: Int { provider.calls }

    package func fetchKeys(context: CallContext) async throws(Problem) -> LineKeySet {
        let jwk = standIn.publishedKey
        guard let key = try? P256PublicKey(jwkX: jwk.x, y: jwk.y) else { throw Problem.lineUnavailable("no key") }
        return LineKeySet(keys: [jwk.kid: key], maxAge: 3600)
    }
}
