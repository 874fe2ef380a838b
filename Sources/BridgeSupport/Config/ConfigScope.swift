/// Which keys a command reads and checks (docs/configuration.md#commands). `serve` and `check-config` need them all;
/// `kakao-bridge unlinks` reads only the state store, so a configuration whose Kakao or Firebase secrets live where only
/// the service can read them (systemd's credentials, a pod's mounted files) still serves it.
public enum ConfigScope: Sendable {
    /// Every key: the service.
    case service
    /// `state.*` and `log.*` only; every other key is still known (a typo is refused) but neither read nor checked.
    case stateStore

    package func includes(_ path: String) -> Bool {
        switch self {
        case .service: true
        case .stateStore: path.hasPrefix("state.") || path.hasPrefix("log.")
        }
    }
}
