import BridgeJSON
import BridgeSupport
import FoundationEssentials
import Logging

/// One line per event, as JSON (the default: log shippers parse it) or as readable text.
public struct BridgeLogHandler: LogHandler {
    public enum Format: String, Sendable {
        case json
        case text
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let format: Format
    private let sink: LogSink

    public init(label: String, level: Logger.Level, format: Format, sink: LogSink) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let time = CivilTime.iso8601(unixMilliseconds: Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down)))
        switch format {
        case .json:
            var line = JSONWriter(capacity: 256)
            line.openObject()
            line.key("time")
            line.string(time)
            line.key("level")
            line.string(event.level.rawValue)
            line.key("logger")
            line.string(label)
            line.key("message")
            line.string(event.message.description)
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                line.key(key)
                LogLine.json(value, to: &line)
            }
            line.closeObject()
            sink.write(String(decoding: line.bytes, as: UTF8.self))
        case .text:
            // `key=value` pairs, never Swift's rendering of a dictionary (`LogLine.text`).
            sink.write("\(time) \(event.level.rawValue.uppercased()) \(label): \(event.message)\(LogLine.text(merged))")
        }
    }
}

extension Logger {
    /// The service's logger: level and format from configuration, lines to `sink`.
    public static func bridge(level: String, format: String, sink: LogSink = .standardOutput, label: String = "kakao-bridge") -> Logger {
        let level = Logger.Level(rawValue: level) ?? .info
        let format = BridgeLogHandler.Format(rawValue: format) ?? .json
        return Logger(label: label) { label in BridgeLogHandler(label: label, level: level, format: format, sink: sink) }
    }
}
