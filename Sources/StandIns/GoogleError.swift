import BridgeJSON
import Hummingbird

/// Google APIs' error envelope.
enum GoogleError {
    static func response(
        _ status: Int,
        message: String,
        reason: String = "invalid",
        statusText: String = "INVALID_ARGUMENT"
    ) -> Response {
        let detail: JSONValue = .object([
            "message": .string(message),
            "domain": .string("global"),
            "reason": .string(reason),
        ])
        let error: JSONValue = .object([
            "code": .int(Int64(status)),
            "message": .string(message),
            "errors": .array([detail]),
            "status": .string(statusText),
        ])
        return Reply.json(status, ["error": error])
    }
}
