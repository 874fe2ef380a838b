import Hummingbird

/// `GET /metrics`: the Prometheus text exposition of every metric in `BridgeMetrics.registry`. Labels are route
/// templates, methods, statuses, upstream names and outcomes only: no token, uid or email can reach them.
struct MetricsEndpoint {
    func register(on router: Router<BridgeRequestContext>) {
        router.add(.metrics) { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: BridgeMetrics.contentType],
                body: .init(byteBuffer: ByteBuffer(bytes: BridgeMetrics.render()))
            )
        }
    }
}
