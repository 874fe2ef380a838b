import Hummingbird

extension Router where Context == BridgeRequestContext {
    /// Answers the other methods on a known path with 405 and `Allow`, instead of a misleading 404.
    func refuseOtherMethods(_ path: RouterPath, allow: [String]) {
        let all: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options]
        for method in all where !allow.contains(method.rawValue) && !(method == .head && allow.contains("GET")) {
            on(path, method: method) { _, _ -> Response in throw Problem.methodNotAllowed(allow: allow) }
        }
    }
}
