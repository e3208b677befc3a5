import Foundation
import Perimeter

/// A record's fields before conversion — a JSON object's members or a CSV row's non-empty cells —
/// with the conversions SPEC §1 allows, each failing with the field's name.
struct RecordFields {
    enum Value {
        case json(JSONValue)
        /// A CSV cell: text that converts to whatever the field needs.
        case text(String)
    }

    var fields: [(name: String, value: Value)]

    init(fields: [(name: String, value: Value)]) {
        self.fields = fields
    }

    /// A JSON object's members.
    init(_ object: JSONObject) {
        fields = object.members.map { ($0.key, .json($0.value)) }
    }

    func value(_ name: String) -> Value? {
        guard let found = fields.first(where: { $0.name == name })?.value else { return nil }
        if case .json(.null) = found { return nil }  // null means absent
        return found
    }

    /// A text field. No text may hold U+0000, written raw in a CSV cell or escaped in JSON (`\u0000`;
    /// raw, JSON refuses it already): one rule for both formats, since a NUL in a name cuts it short
    /// for much that reads it later.
    func string(_ name: String) throws(ObservationProblem) -> String {
        switch value(name) {
        case .json(.string(let s))?, .text(let s)?:
            guard !s.utf8.contains(0) else { throw ObservationProblem(field: name, message: "holds U+0000 (NUL), which no text may hold") }
            return s
        case .json(let other)?: throw ObservationProblem(field: name, message: "expected a string, got \(other.kindName)")
        case nil: throw ObservationProblem(field: name, message: "missing")
        }
    }

    func optionalString(_ name: String) throws(ObservationProblem) -> String? {
        value(name) == nil ? nil : try string(name)
    }

    /// A list of texts: a JSON array of strings, or a CSV cell of words separated by spaces.
    func optionalStringList(_ name: String) throws(ObservationProblem) -> [String]? {
        switch value(name) {
        case nil: return nil
        case .text(let s)?: return s.split(separator: " ").map(String.init)
        case .json(.array(let items))?:
            var list: [String] = []
            for item in items {
                guard case .string(let s) = item else {
                    throw ObservationProblem(field: name, message: "expected an array of strings, got an array holding \(item.kindName)")
                }
                guard !s.utf8.contains(0) else { throw ObservationProblem(field: name, message: "holds U+0000 (NUL), which no text may hold") }
                list.append(s)
            }
            return list
        case .json(let other)?: throw ObservationProblem(field: name, message: "expected an array of strings, got \(other.kindName)")
        }
    }

    func optionalDouble(_ name: String) throws(ObservationProblem) -> Double? {
        switch value(name) {
        case nil: return nil
        case .json(.number(let text, let v))?:
            // (JSON's grammar allows numbers no `Double` holds: 1e400 would read as infinity.)
            guard v.isFinite else { throw ObservationProblem(field: name, message: "expected a finite number, got \(InputText.prefix(text))") }
            return v
        case .text(let s)?:
            // JSON's grammar, not `Double(String)`'s: that reads `0x10` as 16 and takes `+1`, `.5`.
            let bytes = Array(s.utf8)
            if let v = bytes.withUnsafeBufferPointer({ DecimalNumber.parse($0) }) { return v }
            guard bytes.withUnsafeBufferPointer({ DecimalNumber.isJSONNumber($0) }) else {
                throw ObservationProblem(field: name, message: "expected a number written as JSON writes one (-12.5, 3e-2), got \(InputText.quoted(s))")
            }
            throw ObservationProblem(field: name, message: "expected a finite number, got \(InputText.prefix(s))")
        case .json(let other)?: throw ObservationProblem(field: name, message: "expected a number, got \(other.kindName)")
        }
    }

    func double(_ name: String) throws(ObservationProblem) -> Double {
        guard let v = try optionalDouble(name) else { throw ObservationProblem(field: name, message: "missing") }
        return v
    }

    func optionalInteger(_ name: String, in range: ClosedRange<Int>) throws(ObservationProblem) -> Int? {
        guard let v = try optionalDouble(name) else { return nil }
        guard v == v.rounded(), v >= Double(range.lowerBound), v <= Double(range.upperBound) else {
            throw ObservationProblem(field: name, message: "expected an integer \(range.lowerBound)…\(range.upperBound), got \(v)")
        }
        return Int(v)
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(ObservationProblem) -> Int {
        guard let v = try optionalInteger(name, in: range) else { throw ObservationProblem(field: name, message: "missing") }
        return v
    }

    func optionalBool(_ name: String) throws(ObservationProblem) -> Bool? {
        switch value(name) {
        case nil: return nil
        case .json(.bool(let b))?: return b
        case .text("true")?: return true
        case .text("false")?: return false
        case .text(let s)?: throw ObservationProblem(field: name, message: "expected true or false, got \(InputText.quoted(s))")
        case .json(let other)?: throw ObservationProblem(field: name, message: "expected true or false, got \(other.kindName)")
        }
    }

    func bool(_ name: String) throws(ObservationProblem) -> Bool {
        guard let b = try optionalBool(name) else { throw ObservationProblem(field: name, message: "missing") }
        return b
    }

    /// An RFC 3339 string or Unix seconds (a JSON number, or a CSV cell that is a number).
    func time(_ name: String) throws(ObservationProblem) -> Timestamp {
        let parsed: Timestamp?
        switch value(name) {
        case nil: throw ObservationProblem(field: name, message: "missing")
        case .json(.number(let text, _))?: parsed = RFC3339.parseUnixSeconds(text)
        case .json(.string(let text))?: parsed = RFC3339.parse(text)
        case .text(let text)?: parsed = RFC3339.parseUnixSeconds(text) ?? RFC3339.parse(text)
        case .json(let other)?:
            throw ObservationProblem(field: name, message: "expected an RFC 3339 time or Unix seconds, got \(other.kindName)")
        }
        guard let parsed else {
            var message = "expected an RFC 3339 time (2026-03-01T08:00:00Z) or Unix seconds"
            switch value(name) {
            case .json(.number(let text, _))?, .text(let text)?:
                if let hint = TimeUnitHint.hint(text) { message += "; " + hint }
            default: break
            }
            throw ObservationProblem(field: name, message: message)
        }
        return parsed
    }

    func uuid(_ name: String) throws(ObservationProblem) -> UUID {
        let text = try string(name)
        guard let uuid = UUID(uuidString: text) else {
            throw ObservationProblem(field: name, message: "expected a UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, got \(InputText.quoted(text))")
        }
        return uuid
    }

    /// Refuses fields the record's type does not have, so a misspelt optional field is not lost, and
    /// a field named twice (RFC 8259 leaves which value counts to the reader; none is chosen here).
    func requireOnly(_ allowed: Set<String>, type: String) throws(ObservationProblem) {
        for (k, field) in fields.enumerated() {
            if fields[..<k].contains(where: { $0.name == field.name }) {
                throw ObservationProblem(field: field.name, message: "field named twice")
            }
            guard !allowed.contains(field.name) else { continue }
            if case .json(.null) = field.value { continue }
            throw ObservationProblem(field: field.name, message: "a \(type) record has no field \"\(field.name)\" (it has: \(allowed.sorted().joined(separator: ", ")))")
        }
    }
}
