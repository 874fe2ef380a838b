import Hummingbird

/// A fault a Google or backend stand-in can be told to produce instead of its normal answer.
public enum StandInFault: Sendable, Equatable {
    /// Answer with this status and body (content type `application/json`).
    case httpStatus(Int, body: String)
    /// Wait this long, then answer normally.
    case delay(Duration)
    /// Answer 200 with this body and content type (unparsable JSON, HTML, …).
    case rawBody(String, contentType: String)
}

/// A fault that may clear itself after a number of answers, so tests can exercise retries.
struct FaultSlot<Fault: Sendable>: Sendable {
    private var fault: Fault?
    private var remaining: Int?

    init() {}

    mutating func set(_ fault: Fault?, times: Int?) {
        self.fault = fault
        self.remaining = fault == nil ? nil : times
    }

    mutating func take() -> Fault? {
        guard let fault else { return nil }
        if let remaining {
            if remaining <= 1 {
                self.fault = nil
                self.remaining = nil
            } else {
                self.remaining = remaining - 1
            }
        }
        return fault
    }
}

extension StandInFault {
    /// Sleeps for `.delay`; returns the answer to send instead of the normal one, if any.
    func apply() async throws -> Response? {
        switch self {
        case .delay(let duration):
            try await Task.sleep(for: duration)
            return nil
        case .httpStatus(let status, let body):
            return Reply.text(status, body, contentType: Reply.googleJSON)
        case .rawBody(let body, let contentType):
            return Reply.text(200, body, contentType: contentType)
        }
    }
}
