import ArgumentParser
import BridgeCommandLine
import BridgeFeatures
import BridgeJSON
import BridgeSupport
import KakaoBridge
import Logging
import StateStore

/// `kakao-bridge unlinks`: the unlink queue of a durable store, for operators (docs/operations.md#the-unlink-queue).
struct Unlinks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the pending and failed unlink events and account deletions of the state store as JSON lines; --retry-failed puts the failed ones back.",
        discussion: """
            Needs a durable store (state.url) and reads only the state.* and log.* keys: the other keys, and the secret \
            files they name, are not read. No token or email is printed: the Kakao id, the uid and the steps' codes.
            """
    )

    @OptionGroup var options: ConfigOption

    @Flag(help: "Put every failed event back in the queue, due now, with kakao.unlink_retry_hours from now.")
    var retryFailed = false

    func run() async throws {
        // Only the store's keys (docs/configuration.md#commands): run by hand beside the service, where its other
        // secrets (systemd's credentials) cannot be read.
        let config = try options.load(scope: .stateStore)
        guard !config.state.url.isEmpty else {
            Console.error("kakao-bridge: state.url is empty: the unlink queue lives in the memory of each running instance, which nothing else can read.")
            throw ExitCode(78)
        }
        let quiet = Logger(label: "unlinks") { _ in SwiftLogNoOpLogHandler() }
        let watch = StoreConnectionWatch()
        let shared: SharedState
        do {
            shared = try await SharedState.open(config, logger: watch.watching(quiet, report: false))
        } catch {
            Console.error("kakao-bridge: \(error)")
            throw ExitCode(78)
        }
        let retryHours = config.kakao.unlinkRetryHours
        let retry = retryFailed
        let outcome: Result<(Int, [AccountEvent]), StateStoreError>
        do throws(StateStoreError) {
            outcome = .success(try await shared.whileRunning { store throws(StateStoreError) in
                var requeued = 0
                if retry {
                    let now = UnixClock.system.now()
                    requeued = try await store.requeue(.allFailed, now: now, newDeadline: now + Int64((retryHours * 3600).rounded()))
                }
                return (requeued, try await store.events(state: .pending) + store.events(state: .failed))
            })
        } catch {
            outcome = .failure(error)
        }
        // Closed before it goes (a SQLite file's connection must be).
        await shared.store.close()
        switch outcome {
        case .success(let (requeued, events)):
            for event in events { Console.out(Self.line(event)) }
            if retry { Console.error("kakao-bridge: \(requeued) failed event(s) put back in the queue.") }
        case .failure(let error):
            let cause = watch.latestCause.map { "\($0); " } ?? ""
            Console.error("kakao-bridge: the state store is not usable: \(cause)\(error)")
            throw ExitCode(78)
        }
    }

    static func line(_ event: AccountEvent) -> String {
        var writer = JSONWriter()
        writer.openObject()
        writer.key("id")
        writer.string(event.id)
        // An account deletion (docs/api.md#deleting-an-account) says so; the other events keep the lines they had.
        if event.kind == .deletion {
            writer.key("kind")
            writer.string(event.kind.rawValue)
        }
        if let provider = event.provider, let providerID = event.providerID {
            // Another provider's unlink (Naver's callback, docs/api.md#navers-unlink-callback): its name and id, not the
            // mark key that stands in for a Kakao id.
            writer.key("provider")
            writer.string(provider)
            writer.key("provider_id")
            writer.string(providerID)
        } else {
            writer.key("kakao_id")
            writer.int(event.kakaoID)
        }
        writer.key("referrer_type")
        writer.string(event.reason)
        // A security event's type (docs/api.md#kakaos-security-events); absent for the unlink webhook's events.
        writer.member("event", event.eventType)
        writer.key("received_at")
        writer.int(event.receivedAt)
        writer.key("state")
        writer.string(event.state.rawValue)
        writer.member("uid", event.uid)
        writer.member("error", event.lastErrorCode)
        for step in AccountStep.allCases where step != .providerUnlink || event.kind == .deletion {
            let progress = event[step]
            writer.key(step.rawValue)
            writer.openObject()
            writer.key("state")
            writer.string(progress.state.rawValue)
            writer.key("attempts")
            writer.int(Int64(progress.attempts))
            writer.member("error", progress.lastErrorCode)
            writer.closeObject()
        }
        writer.closeObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
