import BridgeFeatures
import BridgeJSON
import BridgeSupport
import BuildVersion
import Hummingbird
import Upstreams

/// `/healthz` (the process serves) and `/readyz` (configuration and key loaded, or keyless the metadata server answered;
/// certificates fetched when the hook is on; and not draining). `/readyz` names the signer (docs/api.md#get-readyz).
struct HealthController {
    let holder: FeatureHolder
    /// Whether the state store answers (`UnlinkMarkFollower`): an instance whose store has never answered takes no
    /// traffic; after that an outage shows in the body, not the status (docs/operations.md#readiness).
    let storeHealth: StoreHealth

    func register(on router: Router<BridgeRequestContext>) {
        router.add(.healthz) { _, _ in JSONResponse.ok(json: JSONValue.object(["status": "ok"])) }
        router.add(.readyz) { _, _ in
            if let reason = readinessProblem() { throw Problem.notReady(reason) }
            // Which build answers, so a rollout can be followed probe by probe (docs/operations.md#versions).
            var body: [String: JSONValue] = [
                "status": "ready", "version": .string(BuildVersion.version), "commit": .string(BuildVersion.commit),
                "state_store": .string(storeHealth.isReachable ? "reachable" : "unreachable"),
            ]
            if let firebase = holder.current?.config.firebase {
                body["signer"] = .string(firebase.signer.rawValue)
                // An operator must be able to see at a glance that this instance does not talk to Google.
                if firebase.usesEmulator { body["firebase_auth_emulator"] = .string(firebase.emulatorHost) }
            }
            return JSONResponse.ok(json: JSONValue.object(body))
        }
    }

    func readinessProblem() -> String? {
        if holder.isDraining { return "Shutting down." }
        guard let features = holder.current else { return holder.notLoadedReason }
        if !storeHealth.hasAnswered {
            return storeHealth.isReachable
                ? "The state store has not answered yet (state.url)."
                : "The state store cannot be reached (state.url)."
        }
        if let hook = features.hook, !hook.idTokens.isReady { return "Google's certificates have not been fetched yet." }
        return nil
    }
}
