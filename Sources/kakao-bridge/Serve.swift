import ArgumentParser
import Hummingbird
import KakaoBridge
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the service with the given configuration (contract §5). SIGTERM drains and exits; SIGHUP reloads."
    )

    @OptionGroup var options: ConfigOption

    func run() async throws {
        let config = try options.load()
        let logger = Logger.bridge(level: config.log.level, format: config.log.format)
        let app: any ApplicationProtocol
        do {
            app = try buildApplication(config: config, environment: BridgeEnvironment(logger: logger, configPath: options.config))
        } catch {
            Console.error("kakao-bridge: cannot start: \(error)")
            throw ExitCode(78)
        }
        try await app.runService()
    }
}
