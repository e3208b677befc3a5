/// Parsing a large document in parts: the elements of one array left unparsed, to be parsed later,
/// each on its own (on several threads, say). The conditions reader defers a FeatureCollection's
/// features this way.
extension JSONParser {
    /// Where an element that `parse(_:deferringElementsOf:)` skipped lies: its bytes (from its first
    /// byte to its last, no whitespace) and the line its first byte is on.
    struct DeferredValue: Sendable, Hashable {
        var range: Range<Int>
        var line: Int
    }

    struct Deferral {
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
    mutating func deferElements() throws(SyntaxError) -> JSONValue {
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
}
