import BridgeSupport
import HTTPTypes
import Hummingbird

/// Sets `context.clientAddress`. `X-Forwarded-For` is believed only when the socket peer is a trusted proxy; then the
/// client is the right-most address that is not itself a trusted proxy. Everything to its left was written by the
/// client and may be forged.
enum ClientAddress {
    static func assign(_ request: Request, _ context: inout BridgeRequestContext, trusted: [CIDR]) {
        context.clientAddress = clientAddress(
            socketPeer: context.socketPeer, forwardedFor: request.headers[values: .xForwardedFor], trusted: trusted
        )
    }

    static func clientAddress(socketPeer: String, forwardedFor: [String], trusted: [CIDR]) -> String {
        func isTrusted(_ address: String) -> Bool { trusted.contains { $0.contains(address) } }
        guard !forwardedFor.isEmpty, isTrusted(socketPeer) else { return socketPeer }
        // Several header lines are one list, in order (RFC 9110 §5.3).
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { normalized(ConfigText.trimmed($0)) }
        var client = socketPeer
        for hop in hops.reversed() {
            // A hop that is not an address was not written by a proxy we trust: stop at the last good one.
            guard IPAddressParser.parse(hop) != nil else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    /// `[2001:db8::1]` and `[2001:db8::1]:443` as some proxies write IPv6 hops; `10.0.0.1:1234` with a port.
    private static func normalized(_ hop: String) -> String {
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<close])
        }
        let colons = hop.count { $0 == ":" }
        if colons == 1, let colon = hop.firstIndex(of: ":") { return String(hop[..<colon]) }
        return hop
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
