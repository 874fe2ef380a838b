/// The answer to "use this nonce": the first use anywhere in the fleet, or a replay.
public enum NonceUse: Sendable, Equatable {
    case first
    case replayed
}
