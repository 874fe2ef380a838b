import BridgeSupport
import Logging
import StateStore

/// Mirrors every instance's unlink marks (docs/api.md#kakaos-unlink-webhook, step 4) into `SharedState.unlinkedUsers`
/// and hands each new one to `onMark`, which drops that user's cached verifications. Woken by the store when it can
/// tell (PostgreSQL's NOTIFY), and asking at least every `interval` anyway: that bounds how late a mark arrives, and is
/// the store's health check for `/readyz`.
public struct UnlinkMarkFollower: Sendable {
    let shared: SharedState
    let logger: Logger
    let interval: Duration
    let onMark: @Sendable (Int64) -> Void

    public init(shared: SharedState, logger: Logger, interval: Duration = .milliseconds(500), onMark: @escaping @Sendable (Int64) -> Void) {
        self.shared = shared
        self.logger = logger
        self.interval = interval
        self.onMark = onMark
    }

    /// Until cancelled.
    public func run() async {
        let notifications = shared.store.markNotifications()
        var cursor: Int64 = 0
        await withTaskGroup(of: Void.self) { group in
            let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            group.addTask {
                for await _ in notifications { wake.yield() }
            }
            group.addTask { [interval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    wake.yield()
                }
                wake.finish()
            }
            cursor = await follow(from: cursor)
            for await _ in wakes {
                if Task.isCancelled { break }
                cursor = await follow(from: cursor)
            }
            group.cancelAll()
        }
    }

    /// One round: every mark after `cursor`, applied; the cursor to ask with next. A round that has not come back within
    /// `SharedState.storeLimit` is given up (the store goes on unawaited) and the store counts as unreachable: a stopped
    /// database must not leave `/readyz` and the requests believing it answers.
    func follow(from cursor: Int64) async -> Int64 {
        let store = shared.store
        let page: UnlinkMarkPage
        do {
            page = try await withDeadline(SharedState.storeLimit) { () async throws -> UnlinkMarkPage in
                try await store.unlinkMarks(after: cursor)
            }
        } catch {
            let reason = switch error {
            case let error as StateStoreError: error.description
            case is DeadlinePassed: "state store unavailable: no answer within \(SharedState.storeLimit)"
            default: "state store unavailable: \(type(of: error))"
            }
            if shared.health.failed(reason) != .unreachable {
                logger.error(
                    "the state store cannot be reached; requests that need it answer 503 state_unavailable until it answers",
                    metadata: ["reason": "\(reason)"]
                )
            }
            return cursor
        }
        for mark in page.marks {
            if mark.endsSessions {
                shared.unlinkedUsers.record(mark.kakaoID, at: mark.at)
            } else {
                shared.unlinkedUsers.recordChange(mark.kakaoID)
            }
            onMark(mark.kakaoID)
        }
        if shared.health.succeeded() == .unreachable { logger.info("the state store answers again") }
        return page.cursor
    }
}
