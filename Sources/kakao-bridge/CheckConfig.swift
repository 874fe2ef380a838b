import ArgumentParser
import BridgeCommandLine
import BridgeFeatures
import KakaoBridge

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and the service-account key, list every problem, and exit (0 when valid, 78 when not)."
    )

    @OptionGroup var options: ConfigOption

    func run() async throws {
        let config = try options.load()
        do {
            _ = try Features.loadServiceAccount(config)
        } catch {
            Console.error("kakao-bridge: invalid configuration (\(options.config)):\n\(error)")
            throw ExitCode(78)
        }
        Console.out("kakao-bridge: configuration \(options.config) is valid.")
    }
}
