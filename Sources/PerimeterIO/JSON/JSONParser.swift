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

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var line: Int
    private let keepsNumberText: Bool
    /// The elements `parse(_:deferringElementsOf:)` leaves for later, while it looks for them.
    private var deferral: Deferral?
    /// Nesting limit, so hostile input cannot exhaust the stack.
    private static let maximumDepth = 512

    private init(bytes: UnsafeBufferPointer<UInt8>, firstLine: Int, keepsNumberText: Bool) {
        self.bytes = bytes
        line = firstLine
        self.keepsNumberText = keepsNumberText
    }

    /// Parses one JSON text (surrounding whitespace allowed); `firstLine` is the line number of its first byte.
    ///
    /// - Parameter keepingNumberText: whether `.number` keeps its text. Readers that use only the value
    ///   pass `false`: the text of a number longer than 15 bytes (most coordinates) is a heap string,
    ///   and a large file has a million of them. Without it `text` is empty.
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

    // MARK: Deferred elements

    /// Where an element that `parse(_:deferringElementsOf:)` skipped lies: its bytes (from its first
    /// byte to its last, no whitespace) and the line its first byte is on.
    struct DeferredValue: Sendable, Hashable {
        var range: Range<Int>
        var line: Int
    }

    private struct Deferral {
        let key: String
        var elements: [DeferredValue]?
        /// Only the root object's first member named `key` counts, as `JSONObject`'s subscript finds it.
        var looking = true
    }

    /// Parses like `parse(_:)`, except the elements of the array that is the value of the root object's
    /// first member named `key`: those are only skipped over, by matching brackets and quotes, and left
    /// for `parse(_:deferred:)` (on several threads, say); the array comes back empty.
    ///
    /// `elements` is `nil` when nothing was deferred (the root is no object, or that member no array).
    /// When this and `parse(_:deferred:)` on every element succeed, the text is valid JSON and the values
    /// are the ones `parse(_:)` gives. Skipping checks little, so a text that is not JSON may fail later
    /// or with another message than `parse(_:)`'s: on failure, parse the whole text to name the error.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, deferringElementsOf key: String,
                      keepingNumberText: Bool = true) throws(SyntaxError) -> (root: JSONValue, elements: [DeferredValue]?) {
        var parser = JSONParser(bytes: bytes, firstLine: 1, keepsNumberText: keepingNumberText)
        parser.deferral = Deferral(key: key)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return (value, parser.deferral?.elements)
    }

    /// Parses one element that `parse(_:deferringElementsOf:)` deferred, at the nesting depth it has in
    /// the whole text (2: root object, array, element), so the depth limit applies as in `parse(_:)`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, deferred element: DeferredValue,
                      keepingNumberText: Bool = true) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[element.range]), firstLine: element.line,
                                keepsNumberText: keepingNumberText)
        let value = try parser.parseValue(depth: 2)
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// The deferred array: its syntax checked here, each element only skipped over.
    private mutating func deferElements() throws(SyntaxError) -> JSONValue {
        var elements: [DeferredValue] = []
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            deferral?.elements = elements
            return .array([])
        }
        while true {
            skipWhitespace()
            let start = position, startLine = line
            try skipValue()
            elements.append(DeferredValue(range: start..<position, line: startLine))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                deferral?.elements = elements
                return .array([])
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    /// Moves past one value, counting lines: to its matching bracket, its closing quote, or (a number or
    /// literal) the next delimiter. Checks nothing else; parsing the skipped bytes does.
    private mutating func skipValue() throws(SyntaxError) {
        guard let first = current else { throw error("unexpected end of input, expected a value") }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while true {
                skipToStructuralByte()
                guard let byte = current else { throw error("unexpected end of input in an array or object") }
                position += 1
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return }
                case UInt8(ascii: "\""): try skipStringBody()
                case UInt8(ascii: "\n"): line += 1
                default: break
                }
            }
        case UInt8(ascii: "\""):
            position += 1
            try skipStringBody()
        default:
            while let byte = current {
                switch byte {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"),
                     UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): return
                default: position += 1
                }
            }
        }
    }

    /// Moves to the next bracket, quote or newline outside a string (or a few other bytes: `Y`, `_`, `y`,
    /// DEL), or near the end. Eight bytes at a time: a large file is mostly digits, and this is the one
    /// pass over all of it that no other thread shares.
    private mutating func skipToStructuralByte() {
        guard let base = bytes.baseAddress else { return }
        var p = position
        while p + 8 <= bytes.count {
            let word = ByteWord.load(base + p)
            // `[`, `]`, `{`, `}` (and Y, _, y, DEL) are the bytes that OR 0x26 makes 0x7F.
            let found = ByteWord.bytes(word | 0x2626_2626_2626_2626, equalTo: 0x7F)
                | ByteWord.bytes(word, equalTo: UInt8(ascii: "\"")) | ByteWord.bytes(word, equalTo: UInt8(ascii: "\n"))
            if found != 0 {
                p += found.trailingZeroBitCount >> 3
                break
            }
            p += 8
        }
        position = p
    }

    /// Moves past a string's closing quote (the opening one already passed), escapes included.
    private mutating func skipStringBody() throws(SyntaxError) {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"): position += 2
            case UInt8(ascii: "\n"): line += 1; position += 1  // invalid in a string; parsing says so
            default: position += 1
            }
        }
        throw error("unterminated string")
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(line: line, message: message)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: return
            }
            position += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
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

    private func describe(_ byte: UInt8) -> String {
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

    private mutating func parseString() throws(SyntaxError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw error("control character in string (escape it)") }
            position += 1
        }
        guard let stop = current else { throw error("unterminated string") }
        if stop == UInt8(ascii: "\"") {
            let text = try validUTF8(start..<position)
            position += 1
            return text
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: try validUTF8(start..<position).unicodeScalars)
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                position += 1
                scalars.append(try parseEscape())
            default:
                let runStart = position
                while let b = current, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
                    guard b >= 0x20 else { throw error("control character in string (escape it)") }
                    position += 1
                }
                scalars.append(contentsOf: try validUTF8(runStart..<position).unicodeScalars)
            }
        }
    }

    private func validUTF8(_ range: Range<Int>) throws(SyntaxError) -> String {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw error("string is not valid UTF-8")
        }
        return text
    }

    private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate \\u\(String(high, radix: 16))")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate \\u\(String(low, radix: 16))") }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate \\u\(String(high, radix: 16))") }
            return scalar
        default:
            throw error("invalid escape \\\(describe(byte))")
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("unterminated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
