import Foundation
import Logging
import Testing
@testable import StateStore

/// The three stores every behaviour is checked against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Two store objects over one storage, as two processes would have (memory: one object twice, since memory is not
/// shared between processes), running as the app would run them; closed afterwards.
func withStores(
    _ kind: StoreKind, clock: TestClock = TestClock(1_000_000), logLabel: String = #function,
    _ body: (_ a: any StateStore, _ b: any StateStore) async throws -> Void
) async throws {
    var logger = Logger(label: "test.\(logLabel)")
    logger.logLevel = .warning
    let stores: [any StateStore]
    var cleanup: (() -> Void)?
    switch kind {
    case .memory:
        let store = MemoryStateStore(clock: clock.unixClock)
        stores = [store, store]
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        cleanup = { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.db").path
        let a = try await SQLiteStateStore.open(path: path, logger: logger, clock: clock.unixClock)
        let b = try await SQLiteStateStore.open(path: path, logger: logger, clock: clock.unixClock)
        stores = [a, b]
    case .postgres:
        let location = try await PostgresTestServer.location.value
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        stores = try (0..<2).map { _ in
            try PostgresStateStore(
                location: location, password: nil, logger: logger, clock: clock.unixClock, schema: schema,
                operationTimeout: .seconds(30), maximumConnections: 4
            )
        }
    }
    let running = stores.map { store in Task { try await store.run() } }
    defer { cleanup?() }
    do {
        try await body(stores[0], stores[1])
    } catch {
        for task in running { task.cancel() }
        for store in stores { await store.close() }
        throw error
    }
    for task in running { task.cancel() }
    for task in running { _ = try? await task.value }
    for store in stores { await store.close() }
}

func randomBytes(_ count: Int = 16) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
