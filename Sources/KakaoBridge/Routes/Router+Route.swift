import Hummingbird
import Upstreams

extension Router where Context == BridgeRequestContext {
    /// Answers the other methods on a known path with 405 and `Allow`, instead of a misleading 404.
    /// `route` as the route table declares it: `handler` for each of its methods, 405 with `Allow` for the others.
    func add(_ route: Route, use handler: @escaping @Sendable (Request, Context) async throws -> Response) {
        for method in route.methods { on(RouterPath(route.path), method: method, use: handler) }
        refuseOtherMethods(route)
    }

    /// The methods the route table does not list for `route` are 405 with `Allow`.
    func refuseOtherMethods(_ route: Route) {
        refuseOtherMethods(RouterPath(route.path), allow: route.methods.map(\.rawValue))
    }

    func refuseOtherMethods(_ path: RouterPath, allow: [String]) {
        let all: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options]
        for method in all where !allow.contains(method.rawValue) && !(method == .head && allow.contains("GET")) {
            on(path, method: method) { _, _ -> Response in throw Problem.methodNotAllowed(allow: allow) }
        }
    }
}
