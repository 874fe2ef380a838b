import BridgeSupport
import Logging
import OTel
import ServiceLifecycle
import Upstreams

/// The only place that knows the exporter (docs/operations.md#tracing): with `tracing.otlp_endpoint` set, `serve`
/// bootstraps swift-otel's tracer (OTLP/HTTP with protobuf bodies, W3C trace context, metrics and logs left alone) and
/// runs its exporter beside the service, which sends what is left when the service stops. Without it, nothing is
/// bootstrapped: the API's no-op tracer stays, and the edge starts no span.
enum OTLPTracing {
    /// The exporter's service, to run before the application in one service group (so that it stops after it), or `nil`
    /// when tracing is off.
    static func bootstrap(_ tracing: BridgeConfig.Tracing, logger: Logger) throws -> (any Service)? {
        guard !tracing.otlpEndpoint.isEmpty else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = tracing.serviceName
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        // Protobuf, not http/json: swift-otel writes ids in JSON as base64, which the OpenTelemetry Collector refuses (OTLP wants hex).
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = tracesURL(tracing.otlpEndpoint)
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        RequestTracing.bootstrap(backend.factory)
        return backend.service
    }

    /// The collector's base URL with OTLP/HTTP's traces path (`http://otel-collector:4318` → `…:4318/v1/traces`).
    static func tracesURL(_ base: String) -> String {
        base.hasSuffix("/") ? base + "v1/traces" : base + "/v1/traces"
    }
}
