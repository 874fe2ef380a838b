import BridgeFeatures
import BridgeJSON
import BridgeSupport
import Hummingbird
import NIOCore
import StateStore
import Upstreams

/// `POST /v1/kakao/events` (docs/api.md#kakaos-security-events): Kakao's account status change webhook, one security
/// event token per request (RFC 8935). A refused SET is 400 with RFC 8935's `{"err", "description"}`, the one answer
/// that is not a problem body; a verified one is 202 within `kakao.unlink_deadline_ms`, whatever its actions do. 404
/// while `kakao.events.audiences` is empty.
struct SecurityEventController {
    let events: Live<SecurityEvents>

    static let route = Route.kakaoEvents
    static let mediaTypes: Set<String> = ["application/secevent+jwt"]

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: receive)
    }

    @Sendable func receive(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let events = try events.get()
        guard Self.isSecurityEventToken(request.headers[.contentType]) else {
            return Self.refusal(SecurityEventRejection(.invalidRequest, "Content-Type must be application/secevent+jwt."))
        }
        let body = try await RequestBody.collect(request)
        let token: SecurityEventToken
        do {
            token = try await events.verify(Array(body.readableBytesView), context: context.callContext)
        } catch {
            switch error {
            case .rejected(let rejection): return Self.refusal(rejection)
            // Kakao's keys cannot be had: the SET may be good, so Kakao is asked to send it again (503).
            case .keysUnavailable(let problem): throw problem
            }
        }
        // One deadline for recording the events and their first steps together: Kakao counts the whole answer.
        let acceptedAt = ContinuousClock.now
        let accepted = try await events.accept(token)
        let callContext = context.callContext
        let actions = events.actions
        let queued = accepted.queued
        let work = Task { () -> [AccountActions.EventOutcome] in
            await withTaskGroup(of: AccountActions.EventOutcome.self) { group in
                for event in queued { group.addTask { await actions.work(event, context: callContext) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        let outcomes = await work.value(orNilAfter: events.deadline - (ContinuousClock.now - acceptedAt))
        Self.count(token, accepted, outcomes: outcomes, meters: events.meters)
        return Response(status: .accepted)
    }

    /// One count per event of the SET: what its first run did, or why it had none.
    static func count(_ token: SecurityEventToken, _ accepted: SecurityEvents.Accepted, outcomes: [AccountActions.EventOutcome]?, meters: SecurityEventMeters) {
        if accepted.replayed {
            for event in token.events { meters.count(event: AccountAction.metricName(event.type), outcome: "replayed") }
            return
        }
        for name in accepted.acknowledged { meters.count(event: name, outcome: "acknowledged") }
        for (index, event) in accepted.queued.enumerated() {
            let outcome = outcomes.flatMap { index < $0.count ? $0[index] : nil } ?? .pending
            meters.count(event: AccountAction.metricName(event.eventType ?? ""), outcome: outcome.rawValue)
        }
    }

    /// `application/secevent+jwt`, parameters allowed, in any case.
    static func isSecurityEventToken(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces().lowercased() } ?? ""
        return mediaTypes.contains(mediaType)
    }

    /// RFC 8935 §2.3: 400, `application/json`, `{"err": <code>, "description": <text>}`.
    static func refusal(_ rejection: SecurityEventRejection) -> Response {
        var json = JSONWriter(capacity: 160)
        json.openObject()
        json.key("err")
        json.string(rejection.code.rawValue)
        json.key("description")
        json.string(rejection.description)
        json.closeObject()
        return Response(
            status: .badRequest, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: json.bytes))
        )
    }
}
