/// An event line read without the general JSON parser, when it is written exactly as the tool writes
/// it: keys in the tool's order and no backslash anywhere (so every string is its bytes between two
/// quotes). Any other line is left to the parser; both give the same fields.
struct EventLineScan {
    var device = "", identifier = "", state = "", date = "", delivery = ""
    var reason: String?
    /// The refinement as `ReportBuilder.refinementKey` writes it: "UUID,major,minor", or "".
    var refinement = ""
    var cause = 0

    /// The fields of `line`, or `nil` when it is not in the tool's exact form.
    static func scan(_ line: UnsafeBufferPointer<UInt8>) -> EventLineScan? {
        guard !line.contains(UInt8(ascii: "\\")) else { return nil }
        var cursor = Cursor(bytes: line)
        var event = EventLineScan()
        guard cursor.expect(#"{"device":"#), let device = cursor.string(),
              cursor.expect(#","identifier":"#), let identifier = cursor.string(),
              cursor.expect(#","state":"#), let state = cursor.string(),
              cursor.expect(#","date":"#), let date = cursor.string(),
              cursor.expect(#","delivery":"#), let delivery = cursor.string(),
              cursor.expect(#","reason":"#) else { return nil }
        (event.device, event.identifier, event.state, event.date, event.delivery) = (device, identifier, state, date, delivery)
        if cursor.expect("null") {
            event.reason = nil
        } else if let reason = cursor.string() {
            event.reason = reason
        } else {
            return nil
        }
        guard cursor.expect(#","refinement":"#) else { return nil }
        if !cursor.expect("null") {
            guard cursor.expect(#"{"uuid":"#), let uuid = cursor.string(), cursor.expect(#","major":"#), let major = cursor.digits(),
                  cursor.expect(#","minor":"#), let minor = cursor.digits(), cursor.expect("}") else { return nil }
            event.refinement = uuid + "," + major + "," + minor
        }
        guard cursor.expect(#","diagnostics":["#), cursor.skip(past: UInt8(ascii: "]")), cursor.expect(#","cause":"#),
              let cause = cursor.digits().flatMap({ Int($0) }), cursor.expect("}"), cursor.atEnd else { return nil }
        event.cause = cause
        return event
    }

    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        var atEnd: Bool { at == bytes.count }

        mutating func expect(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            let pointer = literal.utf8Start
            for k in 0..<count where bytes[at + k] != pointer[k] { return false }
            at += count
            return true
        }

        /// A string's text up to its closing quote (the opening one already read by `expect`, or read here).
        mutating func string() -> String? {
            if at < bytes.count, bytes[at] == UInt8(ascii: "\"") { at += 1 }
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "\"") { at += 1 }
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }

        mutating func digits() -> String? {
            let start = at
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
            return at > start ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self) : nil
        }

        mutating func skip(past byte: UInt8) -> Bool {
            while at < bytes.count, bytes[at] != byte { at += 1 }
            guard at < bytes.count else { return false }
            at += 1
            return true
        }
    }
}
