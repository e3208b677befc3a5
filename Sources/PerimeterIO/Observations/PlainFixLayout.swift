import Perimeter

/// How one producer writes plain fixes in JSON Lines, learned from one of its lines: the text between
/// the values — braces, keys, colons, commas, spacing, and the type's value `"fix"` — and which value
/// stands where. A producer writes every line alike, so a later line is read by checking that text
/// where it should stand, a word at a time, and reading the values between: no key is looked up and
/// no field is tracked. A line that differs anywhere gets `nil`, and `PlainRecordDecoder` reads it;
/// where the layout answers, it answers as that decoder does (the same value readers, and tests
/// compare the two).
struct PlainFixLayout: Sendable {
    /// What stands between two texts. Strings (the device, an RFC 3339 time) include their quotes.
    enum Value: Sendable, Equatable {
        case device, unixSeconds, rfc3339, latitude, longitude, accuracy
    }

    /// The values in line order; `texts` has one more entry: the text before each value, and after the last.
    private let values: [Value]
    /// Each text's bytes as little-endian words, zeros past its end, back to back.
    private let words: [UInt64]
    /// Where each text's words are in `words`, how many there are, its length in bytes, and which
    /// bytes of its last word are its own.
    private struct Text {
        var firstWord: Int
        var wordCount: Int
        var count: Int
        var lastMask: UInt64
    }
    private let texts: [Text]

    /// The layout of `line`, if it is a plain fix (`PlainRecordDecoder.decode`) whose time is one
    /// the layout reads, and reading it back through the layout gives the same record.
    init?(learning text: UnsafeBufferPointer<UInt8>) {
        // (With room after the line, so that the word readers read every value of it.)
        let padded = Array(text) + [UInt8](repeating: 0, count: 64)
        guard let layout = padded.withUnsafeBufferPointer({ Self(learning: UnsafeBufferPointer(rebasing: $0[..<text.count]),
                                                                 readable: $0.count) }) else { return nil }
        self = layout
    }

    private init?(learning line: UnsafeBufferPointer<UInt8>, readable: Int) {
        guard let expected = PlainRecordDecoder.decode(line, readable: readable), case .fix = expected.record,
              let (values, textRanges) = Self.split(line, readable: readable) else { return nil }
        var words: [UInt64] = [], texts: [Text] = []
        for range in textRanges {
            let tail = range.count % 8
            texts.append(Text(firstWord: words.count, wordCount: (range.count + 7) / 8, count: range.count,
                              lastMask: tail == 0 ? ~0 : (1 << UInt64(8 * tail)) - 1))
            var k = range.lowerBound
            while k < range.upperBound {
                var word: UInt64 = 0
                for j in 0..<min(8, range.upperBound - k) { word |= UInt64(line[k + j]) << UInt64(8 * j) }
                words.append(word)
                k += 8
            }
        }
        self.values = values
        self.words = words
        self.texts = texts
        guard let read = decode(line, readable: readable), read.device == expected.device, read.record == expected.record
        else { return nil }
    }

    /// The values of a plain fix line and the texts around them, walking its JSON; `nil` unless it has
    /// exactly the fix's keys, a string device, and numbers (or an RFC 3339 string for `t`) elsewhere.
    private static func split(_ b: UnsafeBufferPointer<UInt8>, readable: Int) -> ([Value], [Range<Int>])? {
        func skipSpace(_ i: inout Int) { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        var values: [Value] = [], texts: [Range<Int>] = []
        var i = 0, textStart = 0
        skipSpace(&i)
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            skipSpace(&i)
            guard let key = PlainRecordDecoder.string(b, at: &i, readable: b.count) else { return nil }
            skipSpace(&i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace(&i)
            let value: Value?, start = i
            switch String(decoding: b[key], as: UTF8.self) {
            case "type":
                guard PlainRecordDecoder.string(b, at: &i, readable: b.count) != nil else { return nil }
                value = nil  // ("fix": part of the text)
            case "device":
                guard PlainRecordDecoder.string(b, at: &i, readable: b.count) != nil else { return nil }
                value = .device
            case "t" where i < b.count && b[i] == UInt8(ascii: "\""):
                guard PlainRecordDecoder.string(b, at: &i, readable: b.count) != nil else { return nil }
                value = .rfc3339
            case "t":
                guard let (_, end) = RFC3339.jsonUnixSeconds(b, from: i, readable: readable) else { return nil }
                i = end
                value = .unixSeconds
            case "lat", "lon", "accuracy":
                guard let (_, end) = DecimalNumber.parse(b, from: i, readable: readable) else { return nil }
                i = end
                value = key.count == 8 ? .accuracy : b[key.lowerBound + 1] == UInt8(ascii: "a") ? .latitude : .longitude
            default:
                return nil
            }
            if let value {
                guard !values.contains(value) else { return nil }
                values.append(value)
                texts.append(textStart..<start)
                textStart = i
            }
            skipSpace(&i)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            texts.append(textStart..<b.count)
            return values.count == 5 ? (values, texts) : nil
        }
    }

    /// The line's device and fix, if it is laid out exactly as the learned line; `readable` bytes from
    /// its start may be loaded (at least its count).
    @inline(__always)
    func decode(_ b: UnsafeBufferPointer<UInt8>, readable: Int) -> (device: Range<Int>, record: PlainRecord)? {
        // (Through buffer pointers: no bounds checked per text or value.)
        words.withUnsafeBufferPointer { words in
            texts.withUnsafeBufferPointer { texts in
                values.withUnsafeBufferPointer { values in decode(b, readable: readable, words, texts, values) }
            }
        }
    }

    @inline(__always)
    private func decode(_ b: UnsafeBufferPointer<UInt8>, readable: Int, _ words: UnsafeBufferPointer<UInt64>,
                        _ texts: UnsafeBufferPointer<Text>, _ values: UnsafeBufferPointer<Value>)
        -> (device: Range<Int>, record: PlainRecord)? {
        @inline(__always) func has(_ k: Int, at i: Int) -> Bool { Self.has(texts[k], words, in: b, at: i, readable: readable) }
        var i = 0
        var device = 0..<0, time: Timestamp?, latitude = 0.0, longitude = 0.0, accuracy = 0.0
        for k in values.indices {
            guard has(k, at: i) else { return nil }
            i += texts[k].count
            switch values[k] {
            case .device:
                guard let range = PlainRecordDecoder.string(b, at: &i, readable: readable) else { return nil }
                device = range
            case .unixSeconds:
                guard let (t, end) = RFC3339.jsonUnixSeconds(b, from: i, readable: readable) else { return nil }
                time = t
                i = end
            case .rfc3339:
                guard let range = PlainRecordDecoder.string(b, at: &i, readable: readable) else { return nil }
                time = RFC3339.parse(UnsafeBufferPointer(rebasing: b[range]))
            case .latitude, .longitude, .accuracy:
                guard let (value, end) = DecimalNumber.parse(b, from: i, readable: readable) else { return nil }
                switch values[k] {
                case .latitude: latitude = value
                case .longitude: longitude = value
                default: accuracy = value
                }
                i = end
            }
        }
        let last = values.count
        guard i + texts[last].count == b.count, has(last, at: i), let time, !device.isEmpty else {
            return nil
        }
        return (device, .fix(Fix(time: time, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                                 horizontalAccuracy: accuracy)))
    }

    /// Whether `text` stands in `b` at `i`: whole words compared where they may be loaded, the last
    /// one masked to the text's end.
    @inline(__always)
    private static func has(_ text: Text, _ words: UnsafeBufferPointer<UInt64>, in b: UnsafeBufferPointer<UInt8>, at i: Int,
                            readable: Int) -> Bool {
        guard i + text.count <= b.count, let base = b.baseAddress else { return false }
        guard text.wordCount > 0 else { return true }
        guard i + 8 * text.wordCount <= readable else {
            // Near the end of what may be loaded: byte by byte.
            for j in 0..<text.count
            where UInt8(truncatingIfNeeded: words[text.firstWord + j / 8] >> UInt64(8 * (j % 8))) != base[i + j] {
                return false
            }
            return true
        }
        var p = base + i, w = text.firstWord
        for _ in 1..<text.wordCount {
            guard ByteWord.load(p) == words[w] else { return false }
            p += 8
            w += 1
        }
        return ByteWord.load(p) & text.lastMask == words[w]
    }
}
