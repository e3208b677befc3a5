#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Perimeter

/// A plain record the fast path decodes: a fix or a sighting.
enum PlainRecord: Equatable {
    case fix(Fix)
    case sighting(BeaconSighting)
}

/// A fast path for the commonest records, plain fixes and sightings (JSON Lines: a flat object of
/// plain strings and numbers; CSV: a row without quotes): it reads the bytes in place, without
/// building a JSON tree.
///
/// It answers only when the record is well-formed and complete; anything else — another type,
/// escapes, nesting, a missing or unknown field, a bad value — returns `nil`, and the general parser
/// decodes the line (and words any error). The tests check both paths agree.
enum PlainRecordDecoder {
    /// The fields of plain fixes and sightings, as one bit each.
    enum Field: Int {
        case type, device, t, lat, lon, accuracy, uuid, major, minor, rssi, power

        var bit: UInt16 { 1 << UInt16(rawValue) }
        static let common: UInt16 = Field.type.bit | Field.device.bit | Field.t.bit
        static let fix: UInt16 = common | Field.lat.bit | Field.lon.bit | Field.accuracy.bit
        static let sighting: UInt16 = common | Field.uuid.bit | Field.major.bit | Field.minor.bit | Field.rssi.bit

        /// Whether the field's value is text (a JSON string); the time may be either; the rest are numbers.
        var isText: Bool { self == .type || self == .device || self == .uuid }

        /// The field a key's bytes name, if any.
        @inline(__always)
        init?(key: UnsafeBufferPointer<UInt8>) {
            func same(_ text: StaticString) -> Bool { memcmp(key.baseAddress!, text.utf8Start, key.count) == 0 }
            switch key.count {
            case 1 where key[0] == UInt8(ascii: "t"): self = .t
            case 3 where same("lat"): self = .lat
            case 3 where same("lon"): self = .lon
            case 4 where same("type"): self = .type
            case 4 where same("uuid"): self = .uuid
            case 4 where same("rssi"): self = .rssi
            case 5 where same("major"): self = .major
            case 5 where same("minor"): self = .minor
            case 5 where same("power"): self = .power
            case 6 where same("device"): self = .device
            case 8 where same("accuracy"): self = .accuracy
            default: return nil
            }
        }
    }

    /// What a line held: where its text fields lie in it, its numbers' values, and which fields it had.
    fileprivate struct Values {
        private(set) var seen: UInt16 = 0
        var type = 0..<0, device = 0..<0, uuid = 0..<0, t = 0..<0
        /// Whether the time was a JSON string (RFC 3339) rather than a number (Unix seconds).
        var timeIsString = false
        var lat = 0.0, lon = 0.0, accuracy = 0.0, major = 0.0, minor = 0.0, rssi = 0.0, power = 0.0

        /// Notes that the line has `field`; false if it had it already.
        @inline(__always)
        mutating func see(_ field: Field) -> Bool {
            guard seen & field.bit == 0 else { return false }
            seen |= field.bit
            return true
        }

        /// Notes where a text field's value (or the time's) lies.
        @inline(__always)
        mutating func setText(_ field: Field, _ range: Range<Int>) {
            switch field {
            case .type: type = range
            case .device: device = range
            case .uuid: uuid = range
            case .t: t = range
            default: break
            }
        }

        /// Notes a number field's value.
        @inline(__always)
        mutating func setNumber(_ field: Field, _ value: Double) {
            switch field {
            case .lat: lat = value
            case .lon: lon = value
            case .accuracy: accuracy = value
            case .major: major = value
            case .minor: minor = value
            case .rssi: rssi = value
            case .power: power = value
            default: break
            }
        }
    }

    /// A plain record in either format (`columns`: the CSV header's). `readable`: how many bytes from
    /// the line's start may be loaded (`DecimalNumber.parse(_:from:readable:)`), at least its count.
    @inline(__always)
    static func decode(_ line: UnsafeBufferPointer<UInt8>, readable: Int, format: ObservationFormat,
                       columns: CSVColumns?) -> (device: Range<Int>, record: PlainRecord)? {
        switch format {
        case .jsonLines: decode(line, readable: readable)
        case .csv: columns.flatMap { decodeCSV(line, readable: readable, columns: $0) }
        }
    }

    static func decode(_ line: [UInt8]) -> (device: Range<Int>, record: PlainRecord)? {
        line.withUnsafeBufferPointer { decode($0, readable: $0.count) }
    }

    /// A JSON Lines record: `{"key":value,...}`, each key one of a plain record's fields, each once;
    /// strings without escapes, numbers read where they stand (up to the next delimiter, which is checked).
    static func decode(_ b: UnsafeBufferPointer<UInt8>, readable: Int) -> (device: Range<Int>, record: PlainRecord)? {
        decode(b, readable: readable) { _, _ in }
    }

    /// `decode(_:readable:)`, telling `wrote` where each field's value was written, in line order (a
    /// string with its quotes): what `PlainFixLayout` learns a layout from.
    @inline(__always)
    static func decode(_ b: UnsafeBufferPointer<UInt8>, readable: Int,
                       wrote: (Field, Range<Int>) -> Void) -> (device: Range<Int>, record: PlainRecord)? {
        var values = Values()
        // A time in Unix seconds, read where it stands when it has the commonest shape.
        var time: Timestamp?
        var i = skipSpace(b, from: 0)
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            i = skipSpace(b, from: i)
            guard let key = string(b, at: &i, readable: readable), let field = Field(key: UnsafeBufferPointer(rebasing: b[key])),
                  values.see(field) else { return nil }
            i = skipSpace(b, from: i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(b, from: i + 1)
            let valueStart = i
            // Strings where strings belong, numbers elsewhere; a time may be either.
            if i < b.count, b[i] == UInt8(ascii: "\"") {
                guard field.isText || field == .t, let value = string(b, at: &i, readable: readable) else { return nil }
                values.setText(field, value)
                if field == .t { values.timeIsString = true }
            } else if field == .t {
                let start = i
                if let (seconds, end) = RFC3339.jsonUnixSeconds(b, from: i, readable: readable) {
                    time = seconds
                    i = end
                } else {
                    while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}"), b[i] != 0x20, b[i] != 0x09 { i += 1 }
                }
                values.t = start..<i
            } else {
                guard !field.isText, let (value, end) = DecimalNumber.parse(b, from: i, readable: readable) else { return nil }
                values.setNumber(field, value)
                i = end
            }
            wrote(field, valueStart..<i)
            i = skipSpace(b, from: i)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            guard skipSpace(b, from: i + 1) == b.count else { return nil }
            break
        }
        if time == nil {
            let t = UnsafeBufferPointer(rebasing: b[values.t])
            time = values.timeIsString ? RFC3339.parse(t)
                : RFC3339.parseUnixSeconds(t, readable: readable - values.t.lowerBound)
        }
        return record(b, values, time: time)
    }

    /// The position of the first byte at or after `i` that is neither a space nor a tab.
    @inline(__always)
    private static func skipSpace(_ b: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
        var i = i
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        return i
    }

    /// The JSON string whose opening quote is at `i` — its contents' range, with `i` moved past its
    /// closing quote — when it has no escape or control character (else `nil`: the general parser's).
    /// Eight bytes at a time where `readable` allows: a byte equal to the quote or the backslash XORs
    /// to zero, which the usual has-zero-byte test finds, as it finds a byte below 0x20 after
    /// subtracting 0x20; each test flags its first byte exactly, so the lowest flag is the first
    /// such byte. One past the line (its newline, say) ends the search as unclosed.
    @inline(__always)
    static func string(_ b: UnsafeBufferPointer<UInt8>, at i: inout Int, readable: Int) -> Range<Int>? {
        guard i < b.count, b[i] == UInt8(ascii: "\""), let base = b.baseAddress else { return nil }
        let start = i + 1
        var j = start
        while j + 8 <= readable {
            let word = ByteWord.load(base + j)
            let found = ByteWord.bytes(word, equalTo: UInt8(ascii: "\"")) | ByteWord.bytes(word, equalTo: UInt8(ascii: "\\"))
                | ByteWord.bytes(word, below: 0x20)
            if found != 0 {
                j += found.trailingZeroBitCount &>> 3
                guard j < b.count, base[j] == UInt8(ascii: "\"") else { return nil }
                i = j + 1
                return start..<j
            }
            j += 8
        }
        while j < b.count, b[j] != UInt8(ascii: "\"") {
            if b[j] == UInt8(ascii: "\\") || b[j] < 0x20 { return nil }
            j += 1
        }
        guard j < b.count else { return nil }
        i = j + 1
        return start..<j
    }

    /// The record `values` spell, once the format's own rules were checked: exactly a fix's fields,
    /// or a sighting's (power optional), with values in range.
    @inline(__always)
    private static func record(_ b: UnsafeBufferPointer<UInt8>, _ values: Values,
                               time: Timestamp?) -> (device: Range<Int>, record: PlainRecord)? {
        guard let time, !values.device.isEmpty else { return nil }
        func integer(_ v: Double, _ range: ClosedRange<Int>) -> Int? {
            guard v == v.rounded(), v >= Double(range.lowerBound), v <= Double(range.upperBound) else { return nil }
            return Int(v)
        }
        let type = UnsafeBufferPointer(rebasing: b[values.type])
        if values.seen == Field.fix && type.count == 3 && type[0] == UInt8(ascii: "f") && type[1] == UInt8(ascii: "i")
            && type[2] == UInt8(ascii: "x") {
            return (values.device, .fix(Fix(time: time, coordinate: Coordinate(latitude: values.lat, longitude: values.lon),
                                            horizontalAccuracy: values.accuracy)))
        }
        guard values.seen & ~Field.power.bit == Field.sighting, type.count == 8,
              memcmp(type.baseAddress!, ("sighting" as StaticString).utf8Start, 8) == 0,
              let uuid = uuid(UnsafeBufferPointer(rebasing: b[values.uuid])), let major = integer(values.major, 0...65535),
              let minor = integer(values.minor, 0...65535), let rssi = integer(values.rssi, -200...0) else { return nil }
        var power = BeaconSighting.defaultMeasuredPower
        if values.seen & Field.power.bit != 0 {
            guard let p = integer(values.power, -200...50) else { return nil }
            power = p
        }
        return (values.device, .sighting(BeaconSighting(time: time, identity: BeaconIdentity(uuid: uuid, major: UInt16(major),
                                                                                              minor: UInt16(minor)),
                                                         rssi: rssi, measuredPower: power)))
    }

    /// A UUID written as 8-4-4-4-12 hexadecimal digits (either case) — the only form `UUID(uuidString:)`
    /// takes; anything else is the general path's to refuse.
    static func uuid(_ b: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard b.count == 36 else { return nil }
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                     UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        let ok = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var i = 0, n = 0
            func hex(_ c: UInt8) -> UInt8? {
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
                default: nil
                }
            }
            while i < 36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard b[i] == UInt8(ascii: "-") else { return false }
                    i += 1
                    continue
                }
                guard let high = hex(b[i]), let low = hex(b[i + 1]) else { return false }
                out[n] = high << 4 | low
                n += 1
                i += 2
            }
            return true
        }
        return ok ? UUID(uuid: bytes) : nil
    }

    /// What each column of a CSV header holds for a plain record.
    struct CSVColumns {
        /// The field of each column, `nil` for a column no plain record has.
        fileprivate var fields: [Field?]

        init(header: [String]) {
            fields = header.map { name in Array(name.utf8).withUnsafeBufferPointer { Field(key: $0) } }
        }
    }

    static func decodeCSV(_ line: [UInt8], columns: CSVColumns) -> (device: Range<Int>, record: PlainRecord)? {
        line.withUnsafeBufferPointer { decodeCSV($0, readable: $0.count, columns: columns) }
    }

    /// A CSV row holding a plain record: no quotes, the record's cells, every other cell empty. One
    /// pass: each cell is read as its column's field where it stands (a number up to the comma after it).
    static func decodeCSV(_ b: UnsafeBufferPointer<UInt8>, readable: Int,
                          columns: CSVColumns) -> (device: Range<Int>, record: PlainRecord)? {
        var values = Values()
        var i = 0
        let fields = columns.fields
        for column in fields.indices {
            if column > 0 {
                guard i < b.count, b[i] == UInt8(ascii: ",") else { return nil }
                i += 1
            }
            // (An empty cell is no field, as in the general reader.)
            if i == b.count || b[i] == UInt8(ascii: ",") { continue }
            guard let field = fields[column], values.see(field) else { return nil }
            if field.isText || field == .t {
                let start = i
                i = commaQuoteOrNUL(b, from: i)
                // Quoted cells, and a NUL (which the general reader refuses), are the general reader's.
                guard i == b.count || b[i] == UInt8(ascii: ",") else { return nil }
                values.setText(field, start..<i)
            } else {
                guard let (value, end) = DecimalNumber.parse(b, from: i, readable: readable),
                      end == b.count || b[end] == UInt8(ascii: ",") else { return nil }
                values.setNumber(field, value)
                i = end
            }
        }
        guard i == b.count else { return nil }  // more cells than columns
        let t = UnsafeBufferPointer(rebasing: b[values.t])
        return record(b, values, time: RFC3339.parseUnixSeconds(t, readable: readable - values.t.lowerBound) ?? RFC3339.parse(t))
    }

    /// The position of the first comma, double quote or NUL at or after `i` (`b.count` if none): eight
    /// bytes at a time, each compared with all three at once (a byte equal to one XORs to zero, which
    /// the usual has-zero-byte test finds; the lowest set bit marks the first).
    @inline(__always)
    static func commaQuoteOrNUL(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        if let base = b.baseAddress {
            while i + 8 <= b.count {
                let word = ByteWord.load(base + i)
                let found = ByteWord.bytes(word, equalTo: UInt8(ascii: ",")) | ByteWord.bytes(word, equalTo: UInt8(ascii: "\""))
                    | ByteWord.zeroBytes(word)
                if found != 0 { return i + found.trailingZeroBitCount / 8 }
                i += 8
            }
        }
        while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "\""), b[i] != 0 { i += 1 }
        return i
    }
}
