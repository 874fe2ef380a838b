import BridgeJSON
import Foundation
import OpenAPIKit

/// A JSON value held against a schema of docs/openapi.yaml (`OpenAPIDocumentTests`): the part of JSON Schema the document
/// uses, and nothing more. `type` (with `null` and a nullable type), `enum`, `pattern`, `minLength`/`maxLength`,
/// `minimum`; objects' `required`, `properties` and `additionalProperties`; arrays' `items`, `minItems`, `maxItems`;
/// `allOf`, `oneOf`, `anyOf`, `not`. A keyword the document starts using beyond these fails the check instead of being
/// ignored (`unsupported`), so the check never passes by not looking.
enum SchemaCheck {
    /// Every way `value` breaks `schema`, each naming its place (`$.kakao.id`); empty when it matches.
    static func violations(of value: JSONValue, against schema: DereferencedJSONSchema, at path: String = "$") -> [String] {
        if case .null = value, schema.nullable { return [] }
        if let allowed = schema.allowedValues, !allowed.contains(where: { json($0) == value }) {
            return ["\(path): \(value.serializedString) is not one of \(allowed.map { json($0)?.serializedString ?? "?" })"]
        }
        switch schema {
        case .null:
            return value == .null ? [] : ["\(path): \(value.serializedString) is not null"]
        case .boolean:
            return value.boolValue != nil ? [] : ["\(path): \(value.serializedString) is not a boolean"]
        case .number:
            switch value {
            case .int, .double: return []
            default: return ["\(path): \(value.serializedString) is not a number"]
            }
        case .integer(_, let context):
            guard case .int(let number) = value else { return ["\(path): \(value.serializedString) is not an integer"] }
            if let minimum = context.minimum, Double(number) < Double(minimum.value) || (minimum.exclusive && Double(number) == Double(minimum.value)) {
                return ["\(path): \(number) is below \(minimum.value)"]
            }
            return context.maximum == nil ? [] : unsupported("maximum", path)
        case .string(_, let context):
            guard let text = value.stringValue else { return ["\(path): \(value.serializedString) is not a string"] }
            var found: [String] = []
            if text.count < context.minLength { found.append("\(path): shorter than \(context.minLength)") }
            if let maxLength = context.maxLength, text.count > maxLength { found.append("\(path): longer than \(maxLength)") }
            if let pattern = context.pattern, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): \(value.serializedString) does not match \(pattern)")
            }
            return found
        case .object(_, let context):
            return objectViolations(value, context, at: path)
        case .array(_, let context):
            guard let elements = value.arrayValue else { return ["\(path): \(value.serializedString) is not an array"] }
            var found: [String] = []
            if elements.count < context.minItems { found.append("\(path): fewer than \(context.minItems) items") }
            if let maxItems = context.maxItems, elements.count > maxItems { found.append("\(path): more than \(maxItems) items") }
            if let items = context.items {
                for (index, element) in elements.enumerated() {
                    found += violations(of: element, against: items, at: "\(path)[\(index)]")
                }
            }
            return found
        case .all(of: let schemas, core: _):
            return schemas.flatMap { violations(of: value, against: $0, at: path) }
        case .one(of: let schemas, core: _):
            let matching = schemas.filter { violations(of: value, against: $0, at: path).isEmpty }.count
            return matching == 1 ? [] : ["\(path): \(value.serializedString) matches \(matching) of oneOf's \(schemas.count), not exactly one"]
        case .any(of: let schemas, core: _):
            return schemas.contains { violations(of: value, against: $0, at: path).isEmpty }
                ? [] : ["\(path): \(value.serializedString) matches none of anyOf"]
        case .not(let schema, core: _):
            return violations(of: value, against: schema, at: path).isEmpty ? ["\(path): matches what `not` excludes"] : []
        case .fragment:
            // `{}`, or a schema with no `type`: anything (its `enum` is checked above).
            return []
        }
    }

    private static func objectViolations(_ value: JSONValue, _ context: DereferencedJSONSchema.ObjectContext, at path: String) -> [String] {
        guard let members = value.objectValue else { return ["\(path): \(value.serializedString) is not an object"] }
        var found: [String] = []
        for name in context.requiredProperties where members[name] == nil {
            found.append("\(path): lacks the required `\(name)`")
        }
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            if let property = context.properties[name] {
                found += violations(of: member, against: property, at: "\(path).\(name)")
                continue
            }
            switch context.additionalProperties {
            case .a(false)?: found.append("\(path): `\(name)` is not a documented member")
            case .b(let schema)?: found += violations(of: member, against: schema, at: "\(path).\(name)")
            case .a(true)?, nil: break
            }
        }
        if !context.patternProperties.isEmpty { found += unsupported("patternProperties", path) }
        return found
    }

    private static func unsupported(_ keyword: String, _ path: String) -> [String] {
        ["\(path): the check does not implement `\(keyword)`; extend SchemaCheck before using it"]
    }

    /// An `enum` member as our JSON type, for comparison.
    private static func json(_ value: AnyCodable) -> JSONValue? {
        switch value.value {
        case let bool as Bool: .bool(bool)
        case let int as Int: .int(Int64(int))
        case let double as Double: double.rounded() == double ? .int(Int64(double)) : .double(double)
        case let string as String: .string(string)
        case is Void: .null
        default: nil
        }
    }
}
