import BridgeJSON
import Hummingbird
import Logging
import NIOCore
import Upstreams

/// Turns every failure of a request into the problem body of docs/errors.md#problem-body: `Problem`s as they are, Hummingbird's own errors
/// (no route, body too large) into their codes, and anything else into a logged internal error without details.
enum ProblemAnswer {
    /// The problem `error` is answered with; what the client is not told is logged here (an upstream's own words, or
    /// the type of an error that is no problem of ours). Its code labels the access line and the problem counter.
    static func problem(for error: any Error, context: BridgeRequestContext) -> Problem {
        switch error {
        case let problem as Problem:
            if let message = problem.upstreamMessage {
                context.logger.warning(
                    "upstream refused", metadata: ["code": .string(problem.code.rawValue), "upstream_message": "\(message)"]
                )
            }
            return problem
        case let error as HTTPError:
            return problem(for: error)
        case is NIOTooManyBytesError:
            return .payloadTooLarge(limit: RequestLimits.maxBodyBytes)
        default:
            context.logger.error("request failed unexpectedly", metadata: ["error_type": "\(type(of: error))"])
            return .internalError()
        }
    }

    static func problem(for error: HTTPError) -> Problem {
        switch error.status {
        case .notFound: .notFound()
        case .contentTooLarge: .payloadTooLarge(limit: RequestLimits.maxBodyBytes)
        case .unauthorized: .missingToken()
        default: .invalidRequest("The request could not be read.")
        }
    }

    static func response(for problem: Problem, requestID: String) -> Response {
        let data = ProblemBody(problem, requestID: requestID).jsonBytes
        return Response(status: problem.status, headers: headers(for: problem, requestID: requestID), body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The headers of every problem answer: the router's, the HTTP parser's 400 (`ServerLimits`) and the connection
    /// guard's refusals (`ConnectionGuard`), so the three cannot differ. `contentLength` for the two written below
    /// Hummingbird, which sets it itself for its own answers.
    static func headers(for problem: Problem, requestID: String, contentLength: Int? = nil) -> HTTPFields {
        // Not cacheable either: a proxy must not serve one client's refusal (with its request id) to another.
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        if let seconds = problem.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        if !problem.allow.isEmpty { headers[.allow] = problem.allow.joined(separator: ", ") }
        headers[.xRequestID] = requestID
        if let contentLength { headers[.contentLength] = String(contentLength) }
        return headers
    }
}
