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
        // Where the decoder found each value: the texts are what lies between.
        var values: [Value] = [], spans: [Range<Int>] = []
        guard let expected = PlainRecordDecoder.decode(line, readable: readable, wrote: { field, span in
            let value: Value? = switch field {
            case .device: .device
            case .t: line[span.lowerBound] == UInt8(ascii: "\"") ? .rfc3339 : .unixSeconds
            case .lat: .latitude
            case .lon: .longitude
            case .accuracy: .accuracy
            default: nil  // (the type's "fix": part of the text)
            }
            if let value {
                values.append(value)
                spans.append(span)
            }
        }), case .fix = expected.record else { return nil }
        let textRanges = zip([0] + spans.map(\.upperBound), spans.map(\.lowerBound) + [line.count]).map { $0..<$1 }
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
        // (A time of a shape only the decoder's general path reads, say, makes no layout.)
        guard let read = decode(line, readable: readable), read.device == expected.device, read.record == expected.record
        else { return nil }
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
