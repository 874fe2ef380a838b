import Metrics
import Prometheus

/// The process's one Prometheus registry. `MetricsSystem.bootstrap` may run only once per process, while tests build
/// many applications: the bootstrap hangs off a lazily initialised static, which Swift runs exactly once.
public enum BridgeMetrics {
    public static var registry: PrometheusCollectorRegistry { bootstrapped }

    /// Call before the first request so that metrics created early are not bound to the no-op backend.
    public static func bootstrap() { _ = bootstrapped }

    /// Buckets below 5 ms matter: a cached token exchange answers in far less.
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    private static let bootstrapped: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        // Every metric with its `# HELP` line (`DescribedMetricsFactory`).
        MetricsSystem.bootstrap(DescribedMetricsFactory(registry: registry, durationBuckets: durationBuckets))
        BuildInfoMetric.register(in: registry)
        return registry
    }()

    /// Prometheus text exposition format 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The registry's metrics, then the process's, read now (`ProcessMetrics`): no thread samples them in between.
    static func render() -> [UInt8] {
        var text = registry.emitToBuffer()
        ProcessMetrics.sample().render(into: &text)
        return text
    }
}
