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
        // Not cacheable either: a proxy must not serve one client's refusal (with its request id) to another.
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        if let seconds = problem.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        if !problem.allow.isEmpty { headers[.allow] = problem.allow.joined(separator: ", ") }
        headers[.xRequestID] = requestID
        return Response(status: problem.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

enum RequestLimits {
    /// docs/api.md#conventions: bodies over 64 KiB are refused.
    static let maxBodyBytes = 64 * 1024
    /// Real Kakao access tokens are ~54 characters; anything far longer is not one and is not sent to Kakao.
    static let maxTokenBytes = 2048
}
