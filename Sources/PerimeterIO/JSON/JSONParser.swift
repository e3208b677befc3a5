import Foundation

/// A strict RFC 8259 JSON parser over UTF-8 bytes that records line numbers.
///
/// Hand-written rather than Foundation's `JSONSerialization` because readers must name the line of a
/// bad value, and `JSONSerialization` neither reports positions nor keeps member order; the tests
/// check it against `JSONSerialization` as an oracle.
public struct JSONParser {
    /// Why text is not JSON, and where.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var line: Int
    private let keepsNumberText: Bool
    /// The elements `parse(_:deferringElementsOf:)` leaves for later, while it looks for them.
    var deferral: Deferral?
    /// Nesting limit, so hostile input cannot exhaust the stack.
    private static let maximumDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>, firstLine: Int, keepsNumberText: Bool) {
        self.bytes = bytes
        line = firstLine
        self.keepsNumberText = keepsNumberText
    }

    /// Parses one JSON text (surrounding whitespace allowed); `firstLine` is the line number of its first byte.
    ///
    /// - Parameters:
    ///   - bytes: the JSON text, as UTF-8.
    ///   - firstLine: the line number of its first byte, for error messages.
    ///   - keepingNumberText: whether `.number` keeps its text. Readers that use only the value
    ///     pass `false`: the text of a number longer than 15 bytes (most coordinates) is a heap string,
    ///     and a large file has a million of them. Without it `text` is empty.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, firstLine: Int = 1,
                             keepingNumberText: Bool = true) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, firstLine: firstLine, keepsNumberText: keepingNumberText)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ text: String, keepingNumberText: Bool = true) throws(SyntaxError) -> JSONValue {
        try parse(Array(text.utf8), keepingNumberText: keepingNumberText)
    }

    public static func parse(_ bytes: [UInt8], keepingNumberText: Bool = true) throws(SyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(SyntaxError) in
            try parse(buffer, keepingNumberText: keepingNumberText)
        }
    }

    public static func parse(_ data: Data, keepingNumberText: Bool = true) throws(SyntaxError) -> JSONValue {
        try parse([UInt8](data), keepingNumberText: keepingNumberText)
    }

    func error(_ message: String) -> SyntaxError {
        SyntaxError(line: line, message: message)
    }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: return
            }
            position += 1
        }
    }

    mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        guard let byte = current else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth))
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(byte)), expected a value")
        }
    }

    func describe(_ byte: UInt8) -> String {
        (0x21...0x7e).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func expectWord(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of input in '\(word)'") }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] {
            throw error("invalid literal, expected '\(word)'")
        }
        position += count
    }

    private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONObject {
        var object = JSONObject(members: [], line: line)
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return object
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let keyLine = line
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after member name \(InputText.quoted(key))") }
            position += 1
            skipWhitespace()
            let value: JSONValue
            if depth == 0, deferral?.looking == true, key == deferral?.key {
                deferral?.looking = false
                value = current == UInt8(ascii: "[") ? try deferElements() : try parseValue(depth: depth + 1)
            } else {
                value = try parseValue(depth: depth + 1)
            }
            object.members.append(.init(key: key, value: value, line: keyLine))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return object
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
        var elements: [JSONValue] = []
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        // Room for two at once: most arrays of a conditions file are positions, which grew twice.
        elements.reserveCapacity(2)
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(elements)
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("invalid number: expected a digit")
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { throw error("invalid number: expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw error("invalid number: expected a digit in the exponent") }
        }
        let digits = UnsafeBufferPointer(rebasing: bytes[start..<position])
        let text = keepsNumberText ? String(decoding: digits, as: UTF8.self) : ""
        // The byte-level reader answers for every finite value; `Double` words the rest (±infinity).
        if let value = DecimalNumber.parse(digits) { return .number(text: text, value: value) }
        let written = String(decoding: digits, as: UTF8.self)
        guard let value = Double(written) else { throw error("invalid number \(InputText.prefix(written))") }
        return .number(text: text, value: value)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position - start
    }
}
