import ArgumentParser
import BridgeCommandLine
import BridgeFeatures
import BridgeSupport
import CurlHTTP
import KakaoBridge
import Logging
import StateStore
import Upstreams

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and the service-account key (or, keyless, ask the metadata server), connect to the state store, list every problem, and exit (0 when valid, 78 when not)."
    )

    @OptionGroup var options: ConfigOption

    func run() async throws {
        let config = try options.load()
        if let warning = ConfigValidation.metadataWarning(config.firebase) { Console.error("kakao-bridge: warning: \(warning)") }
        let signer: String
        switch config.firebase.signer {
        case .keyFile:
            do {
                _ = try Features.loadServiceAccount(config)
            } catch {
                Console.error("kakao-bridge: invalid configuration (\(options.config)):\n\(error)")
                throw ExitCode(78)
            }
            signer = "signer key_file"
        case .iam:
            signer = try await Self.askMetadataServer(config)
        }
        // PostgreSQL's pool says why it cannot connect only in its log lines: the watch reads them (`StoreConnectionWatch`).
        let watch = StoreConnectionWatch()
        do {
            let quiet = Logger(label: "check-config") { _ in SwiftLogNoOpLogHandler() }
            let shared = try await SharedState.open(config, logger: watch.watching(quiet, report: false))
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
            // The cause first (a wrong password, a refused port, TLS), then what the operation saw ("no answer within 5 s").
            let cause = watch.latestCause.map { "\($0); " } ?? ""
            Console.error("kakao-bridge: the state store is not usable (state.url): \(cause)\(error)")
            throw ExitCode(78)
        }
        Console.out("kakao-bridge: configuration \(options.config) is valid; \(signer); the state store answers.")
    }

    /// Keyless (docs/api.md#keyless-signing-on-google-cloud): what `serve` waits for before it is ready, asked once: the
    /// account, the project and an access token. Neither the email nor the token is printed.
    private static func askMetadataServer(_ config: BridgeConfig) async throws -> String {
        let http = CurlHTTPClient()
        defer { http.shutdown() }
        do throws(Problem) {
            let account = try await KeylessAccount.resolve(
                config, upstreams: .live(config, http: http), clock: .system, context: CallContext(requestID: "check-config")
            )
            return "signer iam (the metadata server at \(config.firebase.effectiveMetadataURL) answered; project \(account.projectID))"
        } catch {
            Console.error(
                "kakao-bridge: firebase.signer: iam, but the metadata server at \(config.firebase.effectiveMetadataURL) did not answer "
                    + "(\(error.code.rawValue)): \(error.detail)"
            )
            throw ExitCode(78)
        }
    }
}
