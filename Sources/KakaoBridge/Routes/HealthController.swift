import BridgeJSON
import Hummingbird

/// `/healthz` (the process serves) and `/readyz` (configuration and key loaded, certificates fetched when the hook is on,
/// and not draining).
struct HealthController {
    let holder: StateHolder

    func register(on router: Router<BridgeRequestContext>) {
        router.get("/healthz") { _, _ in JSONResponse.ok(json: JSONValue.object(["status": "ok"])) }
        router.get("/readyz") { _, _ in
            if let reason = readinessProblem() { throw Problem.notReady(reason) }
            return JSONResponse.ok(json: JSONValue.object(["status": "ready"]))
        }
        router.refuseOtherMethods("/healthz", allow: ["GET"])
        router.refuseOtherMethods("/readyz", allow: ["GET"])
    }

    func readinessProblem() -> String? {
        if holder.isDraining { return "Shutting down." }
        guard let state = holder.current else { return "Configuration or key not loaded." }
        if let idTokens = state.idTokens, !idTokens.isReady { return "Google's certificates have not been fetched yet." }
        return nil
    }
}
