import ServiceLifecycle

/// What must outlive one request and hold for every instance sharing the store (docs/operations.md#shared-state): used
/// nonces (and security events' `jti`s), unlink marks, the queue of unlink and security events, the users the service
/// disabled, and link locks. Times are Unix seconds. Every write that decides something (a nonce's first use, a claim,
/// a lock) is one atomic step in the store, so two processes sharing it never both win.  A store is also a `Service`:
/// run it under the app's ServiceGroup. PostgreSQL's connection pool and its `LISTEN` live in `run()`; the other stores
/// only wait there for the shutdown.
public protocol StateStore: Service, Sendable {
    /// As `Service.run()`, declared here so that callers need not import ServiceLifecycle.
    func run() async throws

    /// Whether the store answers, with its tables ready (readiness, check-config).
    func ping() async throws(StateStoreError)

    /// Creates the tables or moves them forward; a second call, or another process's at the same time, changes nothing.
    func migrate() async throws(StateStoreError)

    // MARK: Nonces (docs/api.md#kakao-id-tokens)

    /// `.first` for exactly one caller per id across every process sharing the store; the id is remembered until
    /// `expiresAt`.
    func useNonce(id: [UInt8], expiresAt: Int64) async throws(StateStoreError) -> NonceUse

    // MARK: Unlink and change marks (docs/api.md#kakaos-unlink-webhook steps 1 and 4, docs/api.md#kakaos-security-events)

    /// Remembers that `kakaoID` unlinked at `at` (the latest time wins) for `UnlinkMark.lifetimeSeconds`, and wakes
    /// `markNotifications()`.
    func setUnlinkMark(kakaoID: Int64, at: Int64) async throws(StateStoreError)

    /// Remembers that `kakaoID`'s account changed at `at` (docs/api.md#kakaos-security-events: their cached
    /// verifications and user record are dropped everywhere, nothing refused), and wakes `markNotifications()`. An
    /// earlier `setUnlinkMark` stays in force.
    func recordChange(kakaoID: Int64, at: Int64) async throws(StateStoreError)

    /// The marks recorded (or moved forward) after `cursor`, oldest first. Start with 0 for every live mark.
    func unlinkMarks(after cursor: Int64) async throws(StateStoreError) -> UnlinkMarkPage

    /// Yields when a mark may have been recorded; then ask `unlinkMarks(after:)`. A store that cannot hear other
    /// processes (SQLite) yields only for its own writes, so the caller also polls.
    func markNotifications() -> AsyncStream<Void>

    // MARK: The unlink queue (docs/api.md#kakaos-unlink-webhook)

    /// Adds the event; `false` (and no change) when an event with its id is already there.
    @discardableResult
    func enqueue(_ event: AccountEvent) async throws(StateStoreError) -> Bool

    /// Takes up to `limit` pending events that are due and whose lease is free or expired, leased to `owner` until
    /// `now + leaseSeconds`. No event is handed to two owners at once.
    func claimDue(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws(StateStoreError) -> [AccountEvent]

    /// Extends `owner`'s lease while a step runs; `false` when it no longer holds it.
    func renewLease(id: String, owner: String, now: Int64, leaseSeconds: Int64) async throws(StateStoreError) -> Bool

    /// Marks `step` done (and, for `firebase`, keeps the uid it found); `false` when `owner` no longer holds the lease.
    /// The lease stays with `owner` for the next step.
    func completeStep(id: String, step: AccountStep, owner: String, uid: String?) async throws(StateStoreError) -> Bool

    /// Counts a failed attempt of a pending `step`, due again at `nextAttemptAt`, and releases the lease; `false` when
    /// `owner` no longer holds it. A done step stays done.
    func deferStep(id: String, step: AccountStep, owner: String, errorCode: String, nextAttemptAt: Int64) async throws(StateStoreError) -> Bool

    /// The event gave up (its deadline passed): failed, with the code, lease released.
    func markFailed(id: String, errorCode: String) async throws(StateStoreError)

    /// Both steps succeeded: done, lease released; `deleteExpired` removes it a day later.
    func finish(id: String) async throws(StateStoreError)

    /// The event with this id, in whatever state (an account deletion asked again is answered from it), or nil.
    func event(id: String) async throws(StateStoreError) -> AccountEvent?

    /// The events in `state`, oldest first (`kakao-bridge unlinks`).
    func events(state: AccountEventState) async throws(StateStoreError) -> [AccountEvent]

    /// Puts failed events back in the queue, due at `now`, with a new deadline; returns how many.
    @discardableResult
    func requeue(_ which: UnlinkRequeue, now: Int64, newDeadline: Int64) async throws(StateStoreError) -> Int

    func queueCounts() async throws(StateStoreError) -> AccountEventCounts

    // MARK: Users the service disabled (docs/api.md#kakaos-security-events)

    /// Remembers (`true`) or forgets (`false`) that the service disabled `kakaoID`'s Firebase user for Kakao's
    /// `account-disabled`, so that `account-enabled` enables only what the service disabled. Kept until forgotten.
    func setDisabledByService(kakaoID: Int64, _ disabled: Bool, at: Int64) async throws(StateStoreError)

    func isDisabledByService(kakaoID: Int64) async throws(StateStoreError) -> Bool

    // MARK: Link locks (docs/api.md#linking-to-an-existing-firebase-account)

    /// Takes the fleet-wide lock `key` (a Firebase uid) for `owner` until `now + leaseSeconds`: `true` when it was
    /// free, expired or already `owner`'s (then renewed).
    func acquireLinkLock(key: String, owner: String, leaseSeconds: Int64, now: Int64) async throws(StateStoreError) -> Bool

    /// Frees the lock when `owner` still holds it.
    func releaseLinkLock(key: String, owner: String) async throws(StateStoreError)

    // MARK: Sweeping

    /// Deletes used nonces past their expiry, marks older than a day (after the later of their two times), expired lock
    /// rows and events done more than a day ago; returns how many rows went.
    @discardableResult
    func deleteExpired(now: Int64) async throws(StateStoreError) -> Int

    /// Closes connections and files; the store is not used afterwards.
    func close() async
}
