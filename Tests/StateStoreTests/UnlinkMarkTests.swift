import StateStore
import Synchronization
import Testing

@Suite("Unlink marks")
struct UnlinkMarkTests {
    @Test("marks reach the other process in order, after a cursor; the latest time wins", arguments: StoreKind.allCases)
    func cursor(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            try await a.setUnlinkMark(kakaoID: 11, at: 1_000_000)
            try await a.setUnlinkMark(kakaoID: 12, at: 1_000_005)
            let first = try await b.unlinkMarks(after: 0)
            #expect(first.marks == [UnlinkMark(kakaoID: 11, at: 1_000_000), UnlinkMark(kakaoID: 12, at: 1_000_005)])
            #expect(try await b.unlinkMarks(after: first.cursor) == UnlinkMarkPage(marks: [], cursor: first.cursor))

            // An older time for the same user keeps the later one, but the user comes round again.
            try await b.setUnlinkMark(kakaoID: 11, at: 999_000)
            let second = try await a.unlinkMarks(after: first.cursor)
            #expect(second.marks == [UnlinkMark(kakaoID: 11, at: 1_000_000)])
            #expect(second.cursor > first.cursor)

            try await b.setUnlinkMark(kakaoID: 11, at: 1_000_100)
            try await a.setUnlinkMark(kakaoID: 13, at: 1_000_101)
            let third = try await b.unlinkMarks(after: second.cursor)
            #expect(third.marks == [UnlinkMark(kakaoID: 11, at: 1_000_100), UnlinkMark(kakaoID: 13, at: 1_000_101)])
        }
    }

    @Test("recording a mark wakes this process's readers", arguments: StoreKind.allCases)
    func wakesOwnReaders(kind: StoreKind) async throws {
        try await withStores(kind) { a, _ in
            let wakes = WakeCounter(a.markNotifications())
            try await a.setUnlinkMark(kakaoID: 21, at: 1_000_000)
            #expect(await wakes.reaches(1, within: .seconds(5)))
        }
    }

    @Test("PostgreSQL: NOTIFY wakes a listener on another client within a second")
    func notifyAcrossClients() async throws {
        try await withStores(.postgres) { a, b in
            let wakes = WakeCounter(b.markNotifications())
            // The listener wakes its readers once when it starts listening: from then on nothing is missed.
            #expect(await wakes.reaches(1, within: .seconds(30)))
            let before = wakes.wakes
            try await a.setUnlinkMark(kakaoID: 31, at: 1_000_000)
            // Within a second of the commit (setUnlinkMark returns after it).
            #expect(await wakes.reaches(before + 1, within: .seconds(1)))
            #expect(try await b.unlinkMarks(after: 0).marks.contains(UnlinkMark(kakaoID: 31, at: 1_000_000)))
        }
    }
}

/// Counts a stream's wakes as they come.
final class WakeCounter: Sendable {
    private final class Count: Sendable {
        let value = Mutex(0)
    }

    private let count = Count()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Void>) {
        let count = self.count
        task = Task { for await _ in stream { count.value.withLock { $0 += 1 } } }
    }

    deinit { task.cancel() }

    var wakes: Int { count.value.withLock { $0 } }

    /// Whether the count reaches `target` within `limit`.
    func reaches(_ target: Int, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if wakes >= target { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return wakes >= target
    }
}
