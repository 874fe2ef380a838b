import Foundation
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
        let time = Date().formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true))
        switch format {
        case .json:
            var fields: [(String, String)] = [
                ("time", JSONString.quote(time)), ("level", JSONString.quote(event.level.rawValue)),
                ("logger", JSONString.quote(label)), ("message", JSONString.quote(event.message.description)),
            ]
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                fields.append((key, Self.json(value)))
            }
            sink.write("{" + fields.map { JSONString.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}")
        case .text:
            let rendered = merged.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            sink.write("\(time) \(event.level.rawValue.uppercased()) \(label): \(event.message)\(rendered.isEmpty ? "" : " " + rendered)")
        }
    }

    private static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): return JSONString.quote(string)
        case .stringConvertible(let convertible):
            if let number = convertible as? any BinaryInteger { return "\(number)" }
            if let number = convertible as? Double, number.isFinite { return "\(number)" }
            if let flag = convertible as? Bool { return flag ? "true" : "false" }
            return JSONString.quote(convertible.description)
        case .array(let values): return "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let members):
            return "{" + members.sorted(by: { $0.key < $1.key }).map { JSONString.quote($0.key) + ":" + json($0.value) }
                .joined(separator: ",") + "}"
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
