/// Why the service cannot start: a configuration that is valid on paper but unusable (the key file).
public struct StartupFailure: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
