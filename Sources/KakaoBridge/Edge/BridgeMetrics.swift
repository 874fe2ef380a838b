import Metrics
import Prometheus

/// The process's one Prometheus registry. `MetricsSystem.bootstrap` may run only once per process, while tests build
/// many applications: the bootstrap hangs off a lazily initialised static, which Swift runs exactly once.
public enum BridgeMetrics {
    public static var registry: PrometheusCollectorRegistry { bootstrapped }

    /// Call before the first request so that metrics created early are not bound to the no-op backend.
    public static func bootstrap() { _ = bootstrapped }

    private static let bootstrapped: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Buckets below 5 ms matter: a cached token exchange answers in far less.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        BuildInfoMetric.register(in: registry)
        return registry
    }()

    /// Prometheus text exposition format 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func render() -> [UInt8] { registry.emitToBuffer() }
}
