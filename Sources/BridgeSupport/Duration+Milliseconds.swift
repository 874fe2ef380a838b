extension Duration {
    /// Milliseconds as a fraction, for log fields and upstream timings (`duration_ms`, `queued_ms`, `upstream_ms`).
    package var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
