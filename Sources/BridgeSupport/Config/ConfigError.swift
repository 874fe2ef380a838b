/// Why a configuration was refused: every problem found, so an operator fixes them all in one round.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public let problems: [String]

    public init(problems: [String]) {
        self.problems = problems
    }

    public var description: String {
        problems.joined(separator: "\n")
    }
}
