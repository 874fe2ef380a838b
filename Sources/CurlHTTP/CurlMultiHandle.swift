import CCurl

/// The curl_multi handle: the connection cache (with its TLS sessions) and the per-host connection limit.
///
/// Configured once by `CurlThread.start` before the curl thread exists, then **curl thread only**: `CurlThreadDriver`
/// owns it and frees it when the thread ends, after taking its callbacks off.
final class CurlMultiHandle {
    let raw: UnsafeMutableRawPointer

    init(maxConnectionsPerHost: Int) throws(HTTPClientError) {
        guard let raw = curl_multi_init() else {
            throw HTTPClientError(kind: .transfer, call: "curl_multi_init", message: "could not allocate a multi handle")
        }
        // From here a failure frees the handle in deinit.
        self.raw = raw
        try CurlCall.check(
            kb_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnectionsPerHost)),
            "curl_multi_setopt(CURLMOPT_MAX_HOST_CONNECTIONS)"
        )
        // curl's default keeps 4 idle connections per attached handle; handles are attached per transfer, so between
        // bursts the cache shrinks and closes connections that the next burst opens again. Room for every host's full
        // set keeps them alive.
        try CurlCall.check(
            kb_curl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, Self.idleConnections(perHost: maxConnectionsPerHost)),
            "curl_multi_setopt(CURLMOPT_MAXCONNECTS)"
        )
    }

    deinit {
        curl_multi_cleanup(raw)
    }

    /// At most one origin per upstream the service calls: `Upstream.Name` has 15 (Kakao's API and its keys, Identity
    /// Toolkit, the Admin API, Google's certificates and token endpoint, the metadata server, IAM Credentials, the
    /// backend's login-complete, unlink and events URLs, Naver's API and its authorization server (the revoke), LINE's
    /// API and its keys; Identity Toolkit and the
    /// Admin API share a host, as LINE's API and keys do, and the backend's may). Keep it equal to that count
    /// (ARCHITECTURE.md, "A new upstream").
    static let upstreamOrigins = 15

    static func idleConnections(perHost: Int) -> Int { max(1, perHost) * upstreamOrigins }
}
