import ArgumentParser
import BridgeCommandLine
import BridgeFeatures
import BridgeSupport
import KakaoBridge
import Logging
import StateStore

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and the service-account key, connect to the state store, list every problem, and exit (0 when valid, 78 when not)."
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
        do {
            let shared = try await SharedState.open(config, logger: Logger(label: "check-config") { _ in SwiftLogNoOpLogHandler() })
            // Closed before it goes, whatever the ping says (a SQLite file's connection must be).
            let pinged: Result<Void, StateStoreError>
            do throws(StateStoreError) {
                try await shared.whileRunning { store throws(StateStoreError) in try await store.ping() }
                pinged = .success(())
            } catch {
                pinged = .failure(error)
            }
            await shared.store.close()
            try pinged.get()
        } catch let error as StartupFailure {
            Console.error("kakao-bridge: the state store is not usable: \(error)")
            throw ExitCode(78)
        } catch {
            Console.error("kakao-bridge: the state store is not usable (state.url): \(error)")
            throw ExitCode(78)
        }
        Console.out("kakao-bridge: configuration \(options.config) is valid; the state store answers.")
    }
}
