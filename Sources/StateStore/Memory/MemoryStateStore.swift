import BridgeSupport
import ServiceLifecycle
import Synchronization

/// The default store: this process's memory (docs/operations.md#shared-state, `state.url` empty). Right for one instance, the sandbox
/// and the tests; everything is lost at exit. One lock makes each operation atomic, as a transaction would.
public final class MemoryStateStore: StateStore {
    private struct Tables: ~Copyable {
        var nonces: [[UInt8]: Int64] = [:]
        var marks: [Int64: (at: Int64, changedAt: Int64, seq: Int64)] = [:]
        var markSequence: Int64 = 0
        var events: [String: AccountEvent] = [:]
        var finishedAt: [String: Int64] = [:]
        var locks: [String: (owner: String, expiresAt: Int64)] = [:]
        var disabledByService: [Int64: Int64] = [:]
    }

    private let tables = Mutex(Tables())
    private let notifier = MarkNotifier()
    private let clock: UnixClock

    public init(clock: UnixClock = .system) {
        self.clock = clock
    }

    public func run() async throws {
        // Nothing runs in the background; waiting keeps a ServiceGroup from taking the return for a failure.
        try? await gracefulShutdown()
    }

    public func ping() async throws(StateStoreError) {}

    public func migrate() async throws(StateStoreError) {}

    public func useNonce(id: [UInt8], expiresAt: Int64) async throws(StateStoreError) -> NonceUse {
        tables.withLock { t in
            if t.nonces[id] != nil { return .replayed }
            t.nonces[id] = expiresAt
            return .first
        }
    }

    public func setUnlinkMark(kakaoID: Int64, at: Int64) async throws(StateStoreError) {
        tables.withLock { t in
            t.markSequence += 1
            let known = t.marks[kakaoID]
            t.marks[kakaoID] = (max(at, known?.at ?? at), known?.changedAt ?? 0, t.markSequence)
        }
        notifier.notify()
    }

    public func recordChange(kakaoID: Int64, at: Int64) async throws(StateStoreError) {
        tables.withLock { t in
            t.markSequence += 1
            let known = t.marks[kakaoID]
            t.marks[kakaoID] = (known?.at ?? 0, max(at, known?.changedAt ?? at), t.markSequence)
        }
        notifier.notify()
    }

    public func unlinkMarks(after cursor: Int64) async throws(StateStoreError) -> UnlinkMarkPage {
        tables.withLock { t in
            let newer = t.marks.filter { $0.value.seq > cursor }.sorted { $0.value.seq < $1.value.seq }
            return UnlinkMarkPage(
                marks: newer.map { UnlinkMark(kakaoID: $0.key, at: $0.value.at, changedAt: $0.value.changedAt) },
                cursor: newer.last?.value.seq ?? cursor
            )
        }
    }

    public func markNotifications() -> AsyncStream<Void> { notifier.stream() }

    public func enqueue(_ event: AccountEvent) async throws(StateStoreError) -> Bool {
        tables.withLock { t in
            guard t.events[event.id] == nil else { return false }
            t.events[event.id] = event
            return true
        }
    }

    public func claimDue(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws(StateStoreError) -> [AccountEvent] {
        tables.withLock { t in
            let due = t.events.values
                .filter { $0.state == .pending && $0.nextAttemptAt <= now && ($0.leaseOwner == nil || $0.leaseExpiresAt <= now) }
                .sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
                .prefix(max(limit, 0))
            return due.map { event in
                var event = event
                event.leaseOwner = owner
                event.leaseExpiresAt = now + leaseSeconds
                t.events[event.id] = event
                return event
            }
        }
    }

    public func renewLease(id: String, owner: String, now: Int64, leaseSeconds: Int64) async throws(StateStoreError) -> Bool {
        tables.withLock { t in
            guard var event = t.events[id], event.leaseOwner == owner, event.state == .pending else { return false }
            event.leaseExpiresAt = now + leaseSeconds
            t.events[id] = event
            return true
        }
    }

    public func completeStep(id: String, step: AccountStep, owner: String, uid: String?) async throws(StateStoreError) -> Bool {
        tables.withLock { t in
            guard var event = t.events[id], event.leaseOwner == owner else { return false }
            if event[step].state == .pending {
                event[step].state = .done
                event[step].attempts += 1
                event[step].lastErrorCode = nil
                if step == .firebase { event.uid = uid }
            }
            t.events[id] = event
            return true
        }
    }

    public func deferStep(id: String, step: AccountStep, owner: String, errorCode: String, nextAttemptAt: Int64) async throws(StateStoreError) -> Bool {
        tables.withLock { t in
            guard var event = t.events[id], event.leaseOwner == owner else { return false }
            if event[step].state == .pending {
                event[step].attempts += 1
                event[step].lastErrorCode = errorCode
                event[step].nextAttemptAt = nextAttemptAt
                event.nextAttemptAt = nextAttemptAt
            }
            event.leaseOwner = nil
            event.leaseExpiresAt = 0
            t.events[id] = event
            return true
        }
    }

    public func markFailed(id: String, errorCode: String) async throws(StateStoreError) {
        tables.withLock { t in
            guard var event = t.events[id], event.state == .pending else { return }
            event.state = .failed
            event.lastErrorCode = errorCode
            event.leaseOwner = nil
            event.leaseExpiresAt = 0
            t.events[id] = event
        }
    }

    public func finish(id: String) async throws(StateStoreError) {
        let now = clock.now()
        tables.withLock { t in
            guard var event = t.events[id], event.state != .done else { return }
            event.state = .done
            event.leaseOwner = nil
            event.leaseExpiresAt = 0
            t.events[id] = event
            t.finishedAt[id] = now
        }
    }

    public func event(id: String) async throws(StateStoreError) -> AccountEvent? {
        tables.withLock { t in t.events[id] }
    }

    public func events(state: AccountEventState) async throws(StateStoreError) -> [AccountEvent] {
        tables.withLock { t in
            t.events.values.filter { $0.state == state }
                .sorted { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
        }
    }

    public func requeue(_ which: UnlinkRequeue, now: Int64, newDeadline: Int64) async throws(StateStoreError) -> Int {
        tables.withLock { t in
            let ids: [String] = switch which {
            case .ids(let ids): ids
            case .allFailed: t.events.values.filter { $0.state == .failed }.map(\.id)
            }
            var count = 0
            for id in Set(ids) {
                guard var event = t.events[id], event.state == .failed else { continue }
                event = Self.requeued(event, now: now, deadline: newDeadline)
                t.events[id] = event
                count += 1
            }
            return count
        }
    }

    public func queueCounts() async throws(StateStoreError) -> AccountEventCounts {
        tables.withLock { t in
            var pending = 0, failed = 0
            for event in t.events.values {
                if event.state == .pending { pending += 1 } else if event.state == .failed { failed += 1 }
            }
            return AccountEventCounts(pending: pending, failed: failed)
        }
    }

    public func setDisabledByService(kakaoID: Int64, _ disabled: Bool, at: Int64) async throws(StateStoreError) {
        tables.withLock { $0.disabledByService[kakaoID] = disabled ? at : nil }
    }

    public func isDisabledByService(kakaoID: Int64) async throws(StateStoreError) -> Bool {
        tables.withLock { $0.disabledByService[kakaoID] != nil }
    }

    public func acquireLinkLock(key: String, owner: String, leaseSeconds: Int64, now: Int64) async throws(StateStoreError) -> Bool {
        tables.withLock { t in
            if let held = t.locks[key], held.owner != owner, held.expiresAt > now { return false }
            t.locks[key] = (owner, now + leaseSeconds)
            return true
        }
    }

    public func releaseLinkLock(key: String, owner: String) async throws(StateStoreError) {
        tables.withLock { t in
            if t.locks[key]?.owner == owner { t.locks[key] = nil }
        }
    }

    public func deleteExpired(now: Int64) async throws(StateStoreError) -> Int {
        tables.withLock { t in
            var deleted = 0
            for (id, expiresAt) in t.nonces where expiresAt <= now {
                t.nonces[id] = nil
                deleted += 1
            }
            for (kakaoID, mark) in t.marks where max(mark.at, mark.changedAt) <= now - UnlinkMark.lifetimeSeconds {
                t.marks[kakaoID] = nil
                deleted += 1
            }
            for (key, lock) in t.locks where lock.expiresAt <= now {
                t.locks[key] = nil
                deleted += 1
            }
            for (id, finishedAt) in t.finishedAt where finishedAt <= now - StateStoreDefaults.doneEventLifetimeSeconds {
                t.finishedAt[id] = nil
                t.events[id] = nil
                deleted += 1
            }
            return deleted
        }
    }

    public func close() async {
        notifier.finish()
    }

    /// A failed event back in the queue: pending, due now, its pending steps due now, no lease.
    static func requeued(_ event: AccountEvent, now: Int64, deadline: Int64) -> AccountEvent {
        var copy = AccountEvent(
            id: event.id, kakaoID: event.kakaoID, reason: event.reason, receivedAt: event.receivedAt, deadline: deadline,
            state: .pending, firebase: event.firebase, backend: event.backend, uid: event.uid, nextAttemptAt: now,
            lastErrorCode: event.lastErrorCode, leaseOwner: nil, leaseExpiresAt: 0, eventType: event.eventType,
            provider: event.provider, providerID: event.providerID, kind: event.kind, providerUnlink: event.providerUnlink,
            linkRecord: event.linkRecord
        )
        for step in AccountStep.allCases where copy[step].state == .pending { copy[step].nextAttemptAt = now }
        return copy
    }
}
