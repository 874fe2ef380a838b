import BridgeSupport
import Foundation
import StandIns
import Testing
import EndToEndSupport

/// `check-config` says which signer is in use; keyless, it asks the metadata server what `serve` would wait for.
@Suite struct KeylessCheckConfigTests {
    @Test func checkConfigSaysWhichSignerAndAsksTheMetadataServer() async throws {
        let metadata = MetadataServerStandIn(email: "bridge@check-config.iam.gserviceaccount.com", projectID: "check-config")
        let server = try await metadata.start()
        let directory = try TemporaryDirectory()
        let keyless = try directory.write("keyless.yaml", """
            kakao:
              app_id: 42
            firebase:
              signer: iam
              metadata_url: \(server.baseURL)
            """)
        let answered = try await CLIProcess.run(["check-config", "--config", keyless], timeout: .seconds(30))
        #expect(answered.status == 0, "\(answered.stdout)\n\(answered.stderr)")
        #expect(answered.stdout.contains("signer iam"), "\(answered.stdout)")
        #expect(answered.stdout.contains("project check-config"))
        #expect(!(answered.stdout + answered.stderr).contains(metadata.email))
        #expect(metadata.calls(.token) == 1)
        await server.stop()

        let unanswered = try await CLIProcess.run(["check-config", "--config", keyless], timeout: .seconds(30))
        #expect(unanswered.status == 78)
        #expect(unanswered.stderr.contains("metadata server"), "\(unanswered.stderr)")

        let keyFile = try directory.configFile()
        let withKey = try await CLIProcess.run(["check-config", "--config", keyFile], timeout: .seconds(30))
        #expect(withKey.status == 0, "\(withKey.stderr)")
        #expect(withKey.stdout.contains("signer key_file"))
    }
}
