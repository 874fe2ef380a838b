import Hummingbird

/// Label values that are safe for metrics and logs: the matched route template (never the raw path, which on the legacy
/// route holds a token) and a closed set of methods (an arbitrary method token would grow the label set without bound).
enum RouteLabel {
    static let unmatched = "unmatched"

    static func route(_ context: some RequestContext) -> String {
        guard let path = context.endpointPath, path != "NotFound", path.hasPrefix("/") else { return unmatched }
        return path
    }

    static func method(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .post, .put, .delete, .patch, .head, .options: method.rawValue
        default: "other"
        }
    }
}
