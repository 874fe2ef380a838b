import BridgeSupport
import Logging

/// Opens the store `state.url` names (docs/operations.md#shared-state).
public enum StateStores {
    /// A SQLite file is opened and migrated here, so a path that cannot be used fails at start. PostgreSQL is not
    /// reached here: its store connects (and migrates) once `run()` runs, and keeps trying while it cannot.
    public static func open(
        url: StateStoreURL, password: String?, logger: Logger, clock: UnixClock = .system
    ) async throws(StateStoreError) -> any StateStore {
        switch url {
        case .memory:
            return MemoryStateStore(clock: clock)
        case .sqlite(let path):
            return try await SQLiteStateStore.open(path: path, logger: logger, clock: clock)
        case .postgres(let location):
            return try PostgresStateStore(location: location, password: password, logger: logger, clock: clock)
        }
    }
}
