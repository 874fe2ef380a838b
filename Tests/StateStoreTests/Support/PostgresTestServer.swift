import BridgeSupport
import Foundation
import PostgresTestSupport
import StateStore

/// The PostgreSQL the tests use: `KB_TEST_POSTGRES_URL` when set, otherwise one server per test process started by
/// scripts/postgres-test-server in a temporary directory, stopped and removed at exit.
enum PostgresTestServer {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The server of `ThrowawayPostgres`, as a store location.
    static let location: Task<StateStoreURL.PostgresLocation, any Error> = Task { try location(try await ThrowawayPostgres.url.value) }

    private static func location(_ url: String) throws -> StateStoreURL.PostgresLocation {
        guard case .postgres(let location) = try StateStoreURL(parsing: url) else {
            throw Unavailable(description: "KB_TEST_POSTGRES_URL is not a postgres:// URL")
        }
        return location
    }
}
