import BridgeSupport
import BuildVersion
import Prometheus

/// `kakao_bridge_build_info{version, commit} 1`: which build each instance runs, as Prometheus exporters say it
/// (docs/operations.md#versions), so a dashboard can join any metric to the version behind it during a rollout.
/// Its labels are the build's constants, never anything a request brings.
enum BuildInfoMetric {
    static let name = MetricName.buildInfo.rawValue

    static func register(in registry: PrometheusCollectorRegistry) {
        // No unit: an empty `unitName` is left out of the name.
        let descriptor = MetricNameDescriptor(metricName: name, unitName: "", helpText: MetricName.buildInfo.help)
        registry.makeGauge(
            descriptor: descriptor, labels: [("version", BuildVersion.version), ("commit", BuildVersion.commit)]
        ).set(to: 1.0)
    }
}
