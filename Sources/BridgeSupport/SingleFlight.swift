import Synchronization

/// "One fetch, many waiters": the first caller for a key does the work in its own task, and callers that arrive while it
/// runs wait for that work's value instead of starting their own. No task is spawned per run; a caller that must not be
/// hurt by the leader's cancellation shields its work itself (the key caches do). Serves every cache that fetches:
/// Kakao verifications and Google's certificates.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value?, Never>

    private let pending = Mutex<[Key: [Waiter]]>([:])

    package init() {}

    /// `work`'s value for `key`, from this caller's run or from the run already under way (`joined`).
    /// `work` should look at the caller's cache first: a run that ended just before this one started may have filled it.
    package func run(_ key: Key, _ work: () async -> Value) async -> (value: Value, joined: Bool) {
        let leads = pending.withLock { table in
            guard table[key] == nil else { return false }
            table[key] = []
            return true
        }
        guard leads else {
            if let value = await join(key) { return (value, true) }
            // The run ended between our look and our wait.
            return await run(key, work)
        }
        let value = await work()
        let waiters = pending.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter.resume(returning: value) }
        return (value, false)
    }

    /// Whether a run for `key` is under way.
    package func isRunning(_ key: Key) -> Bool { pending.withLock { $0[key] != nil } }

    /// `nil`: the run ended before this caller could wait for it.
    private func join(_ key: Key) async -> Value? {
        await withCheckedContinuation { (waiter: Waiter) in
            let registered = pending.withLock { table -> Bool in
                guard table[key] != nil else { return false }
                table[key]!.append(waiter)
                return true
            }
            if !registered { waiter.resume(returning: nil) }
        }
    }
}
