import BridgeSupport
import Metrics
import Prometheus

/// swift-prometheus's `PrometheusMetricsFactory` registers every metric with an empty help text, so `/metrics` would
/// have no `# HELP` lines; its registry takes one, and refuses (a crash) a second registration of a name with another.
/// This factory makes the same metrics through the registry with the help text of the one table of metric names
/// (`MetricName`), so every registration of a name carries the same text. A name missing from the table gets none, and
/// the scrape test says which.
struct DescribedMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let durationBuckets: [Duration]
    /// The library's own factory, for what this one does not change: removing metrics, and the value histograms'
    /// default buckets (the service records none).
    private let plain: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry, durationBuckets: [Duration]) {
        self.registry = registry
        self.durationBuckets = durationBuckets
        plain = PrometheusMetricsFactory(registry: registry)
    }

    static func help(_ label: String) -> String { MetricName(rawValue: label)?.help ?? "" }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: Self.help(label))
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: Self.help(label))
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(name: label, labels: dimensions, help: Self.help(label))
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(name: label, labels: dimensions, help: Self.help(label)) }
        return registry.makeValueHistogram(
            name: label, labels: dimensions, buckets: plain.defaultValueHistogramBuckets, help: Self.help(label)
        )
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(name: label, labels: dimensions, buckets: durationBuckets, help: Self.help(label))
    }

    func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { plain.destroyFloatingPointCounter(handler) }
    func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
