import BridgeSupport
import Logging
import StateStore

extension SharedState {
    /// The store `state.url` names (docs/operations.md#shared-state). A SQLite file is opened and its tables made here;
    /// PostgreSQL is reached once the store runs, and the service starts (not ready) while it cannot be.
    public static func open(_ config: BridgeConfig, logger: Logger, clock: UnixClock = .system) async throws(StartupFailure) -> SharedState {
        let url: StateStoreURL
        do {
            url = try StateStoreURL(parsing: config.state.url)
        } catch {
            throw StartupFailure("state.url: \(error.description)")
        }
        do {
            let password = config.state.password.isEmpty ? nil : config.state.password
            let store = try await StateStores.open(url: url, password: password, logger: logger, clock: clock)
            return SharedState(store: store, isDurable: url.isDurable, clock: clock)
        } catch {
            throw StartupFailure("state.url (\(url.description)): \(error.description)")
        }
    }

    /// Whether the store answers within `limit`, with its tables ready (`check-config`, `kakao-bridge unlinks`): runs the
    /// store meanwhile, as the service would.
    public func whileRunning<T: Sendable>(
        _ body: @Sendable (any StateStore) async throws(StateStoreError) -> T
    ) async throws(StateStoreError) -> T {
        let store = self.store
        let runner = Task { try? await store.run() }
        defer { runner.cancel() }
        return try await body(store)
    }
}
