import BuildVersion
import Prometheus

/// `kakao_bridge_build_info{version, commit} 1`: which build each instance runs, as Prometheus exporters say it
/// (docs/operations.md#versions), so a dashboard can join any metric to the version behind it during a rollout.
/// Its labels are the build's constants, never anything a request brings.
enum BuildInfoMetric {
    static let name = "kakao_bridge_build_info"

    static func register(in registry: PrometheusCollectorRegistry) {
        registry.makeGauge(
            name: name, labels: [("version", BuildVersion.version), ("commit", BuildVersion.commit)],
            help: "The release and the commit of this build; always 1."
        ).set(to: 1.0)
    }
}
