import FoundationEssentials

/// Unix time in seconds, injectable so that claim checks can be tested at any instant (as jwt-kit does).
public struct UnixClock: Sendable {
    private let read: @Sendable () -> Int64

    public init(_ read: @escaping @Sendable () -> Int64) { self.read = read }

    public static let system = UnixClock { Int64(Date().timeIntervalSince1970) }

    public static func fixed(_ seconds: Int64) -> UnixClock { UnixClock { seconds } }

    public func now() -> Int64 { read() }
}
