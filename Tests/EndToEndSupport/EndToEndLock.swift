import Foundation
import Testing

/// End-to-end tests run one world at a time. Each starts four stand-ins and a bridge (or a whole process) on loopback
/// and holds deadlines of a second or two; on a 2-core machine several at once would turn those deadlines into flakes.
/// Router-level tests, which wait for nothing, keep running beside them in parallel.
package actor EndToEndLock {
    package static let shared = EndToEndLock()

    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Set while a task (and the tasks it starts) holds the lock: a world started inside another world's test (two
    /// bridges against each other) must not wait for itself.
    @TaskLocal private static var held = false

    package static func run<T>(_ body: () async throws -> T) async throws -> T {
        if held { return try await body() }
        await shared.acquire()
        if ProcessInfo.processInfo.environment["END_TO_END_TRACE"] != nil {
            FileHandle.standardError.write(Data("end-to-end: \(Test.current?.name ?? "?")\n".utf8))
        }
        do {
            let result = try await $held.withValue(true) { try await body() }
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
