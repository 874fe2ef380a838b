import BridgeJSON
import CurlHTTP
import Foundation
import StandIns
import Testing
import EndToEndSupport
import UpstreamFakes

extension TestWorld {
    /// Sends a minted custom token to the strict Identity Toolkit stand-in, which accepts it only as Google would.
    func expectGoogleAccepts(_ customToken: String?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        guard let customToken else {
            Issue.record("no custom token", sourceLocation: sourceLocation)
            return
        }
        let url = servers.identityToolkitURL + IdentityToolkitStandIn.path + "?key=" + Self.apiKey
        let body = #"{"token":"\#(customToken)","returnSecureToken":true}"#
        let response = try await http.execute(HTTPRequest(
            method: .post, url: url, headers: [("Content-Type", "application/json")], body: Array(body.utf8)
        ))
        #expect(
            response.status == 200,
            "Identity Toolkit refused the custom token: \(identityToolkit.lastRejection ?? String(decoding: response.body, as: UTF8.self))",
            sourceLocation: sourceLocation
        )
    }
}
