/// A configuration printed or logged by accident (`"\(config)"`, a service description) must not carry secrets:
/// the default reflection-based description would print `hook.secret` and `firebase.web_api_key`.
extension BridgeConfig: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "BridgeConfig(listen \(server.host):\(server.port), kakao app \(kakao.appID), project \(firebase.projectID.isEmpty ? (firebase.signer == .iam ? "(from the metadata server)" : "(from key file)") : firebase.projectID), "
            + "signer \(firebase.signer.rawValue), "
            + "exchange \(firebase.webAPIKey.isEmpty ? "off" : "on"), backend \(backend.loginCompleteURL.isEmpty ? "off" : "on"), "
            + "hook \(hook.secret.isEmpty ? "off" : "on"), legacy \(legacy.enabled ? "on" : "off"))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: ["summary": description]) }
}
