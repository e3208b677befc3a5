#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Perimeter

/// A fast path for the commonest record, a plain fix (JSON Lines: a flat object of plain strings and
/// numbers; CSV: a row without quotes): it reads the bytes in place, without building a JSON tree.
///
/// It answers only when the record is well-formed and complete; anything else — another type,
/// escapes, nesting, a missing or unknown field, a bad value — returns `nil`, and the general parser
/// decodes the line (and words any error). The tests check both paths agree.
enum FastFixDecoder {
    /// The fields of a plain fix, as one bit each.
    private enum Field: UInt8 {
        case type = 1, device = 2, t = 4, lat = 8, lon = 16, accuracy = 32

        static let all: UInt8 = 63

        /// The field a key's bytes name, if any.
        @inline(__always)
        init?(key: UnsafeBufferPointer<UInt8>) {
            func same(_ text: StaticString) -> Bool { memcmp(key.baseAddress!, text.utf8Start, key.count) == 0 }
            switch key.count {
            case 1 where key[0] == UInt8(ascii: "t"): self = .t
            case 3 where same("lat"): self = .lat
            case 3 where same("lon"): self = .lon
            case 4 where same("type"): self = .type
            case 6 where same("device"): self = .device
            case 8 where same("accuracy"): self = .accuracy
            default: return nil
            }
        }
    }

    /// A plain fix in either format (`columns`: the CSV header's, `nil` if it lacks a fix's columns).
    @inline(__always)
    static func decode(_ line: UnsafeBufferPointer<UInt8>, format: ObservationFormat,
                       columns: CSVColumns?) -> (device: Range<Int>, fix: Fix)? {
        switch format {
        case .jsonLines: decode(line)
        case .csv: columns.flatMap { decodeCSV(line, columns: $0) }
        }
    }

    /// The fix, with the bytes of its device name (unvalidated: the caller checks them as UTF-8). (A
    /// plain `Fix` rather than an `Observation`: the enum made each return go through generic copies.)
    static func decode(_ line: [UInt8]) -> (device: Range<Int>, fix: Fix)? {
        line.withUnsafeBufferPointer { decode($0) }
    }

    static func decode(_ b: UnsafeBufferPointer<UInt8>) -> (device: Range<Int>, fix: Fix)? {
        // Scan `{"key":value,...}`: each key must be one of the six fields of a plain fix, each once;
        // each value is read as the field needs it (strings without escapes; numbers by RFC 8259).
        var seen: UInt8 = 0
        var isFix = false
        var device = 0..<0
        var time: Timestamp?
        var latitude = 0.0, longitude = 0.0, horizontalAccuracy = 0.0
        var i = 0
        @inline(__always) func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        /// The string starting at `i` (its opening quote), without escapes or control characters.
        @inline(__always) func string() -> Range<Int>? {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            let start = i + 1
            i = start
            while i < b.count, b[i] != UInt8(ascii: "\"") {
                if b[i] == UInt8(ascii: "\\") || b[i] < 0x20 { return nil }
                i += 1
            }
            guard i < b.count else { return nil }
            i += 1
            return start..<(i - 1)
        }
        /// The bytes of the number (or other bare value) starting at `i`: checked when read.
        @inline(__always) func bare() -> UnsafeBufferPointer<UInt8> {
            let start = i
            while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}"), b[i] != 0x20, b[i] != 0x09 { i += 1 }
            return UnsafeBufferPointer(rebasing: b[start..<i])
        }
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            skipSpace()
            guard let key = string(), let field = Field(key: UnsafeBufferPointer(rebasing: b[key])),
                  seen & field.rawValue == 0 else { return nil }
            seen |= field.rawValue
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            switch field {
            case .type:
                guard let value = string(), value.count == 3, b[value.lowerBound] == UInt8(ascii: "f"),
                      b[value.lowerBound + 1] == UInt8(ascii: "i"), b[value.lowerBound + 2] == UInt8(ascii: "x") else { return nil }
                isFix = true
            case .device:
                guard let value = string(), !value.isEmpty else { return nil }
                device = value
            case .t:
                if i < b.count, b[i] == UInt8(ascii: "\"") {
                    guard let value = string() else { return nil }
                    time = RFC3339.parse(UnsafeBufferPointer(rebasing: b[value]))
                } else {
                    let value = bare()
                    time = isJSONNumber(value) ? RFC3339.parseUnixSeconds(value) : nil
                }
                guard time != nil else { return nil }
            case .lat:
                guard let value = DecimalNumber.parse(bare()) else { return nil }
                latitude = value
            case .lon:
                guard let value = DecimalNumber.parse(bare()) else { return nil }
                longitude = value
            case .accuracy:
                guard let value = DecimalNumber.parse(bare()) else { return nil }
                horizontalAccuracy = value
            }
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            skipSpace()
            guard i == b.count else { return nil }
            break
        }
        // Exactly the fields a plain fix has (extra optional fields: the general path).
        guard seen == Field.all, isFix, let time else { return nil }
        return (device, Fix(time: time, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                            horizontalAccuracy: horizontalAccuracy))
    }

    /// Where a CSV header puts the columns of a fix.
    struct CSVColumns {
        /// What each column holds for a fix: one of the `Role`s.
        fileprivate var roles: [Role]

        fileprivate enum Role: UInt8 { case empty, type, device, t, lat, lon, accuracy }

        init?(header: [String]) {
            let named: [(String, Role)] = [("type", .type), ("device", .device), ("t", .t), ("lat", .lat), ("lon", .lon),
                                           ("accuracy", .accuracy)]
            roles = header.map { name in named.first { $0.0 == name }?.1 ?? .empty }
            guard named.allSatisfy({ roles.contains($0.1) }) else { return nil }
        }
    }

    static func decodeCSV(_ line: [UInt8], columns: CSVColumns) -> (device: Range<Int>, fix: Fix)? {
        line.withUnsafeBufferPointer { decodeCSV($0, columns: columns) }
    }

    /// The same fast path for a CSV row holding a plain fix: no quotes, the fix's six cells, every
    /// other cell empty. `nil` for anything else (the general reader decodes it).
    static func decodeCSV(_ b: UnsafeBufferPointer<UInt8>, columns: CSVColumns) -> (device: Range<Int>, fix: Fix)? {
        guard let base = b.baseAddress else { return nil }
        // Quoted cells are the general reader's; commas found by memchr, a line's few cells at a time.
        guard memchr(base, Int32(UInt8(ascii: "\"")), b.count) == nil else { return nil }
        var type = 0..<0, device = 0..<0, t = 0..<0, lat = 0..<0, lon = 0..<0, accuracy = 0..<0
        var start = 0, column = 0
        let roles = columns.roles
        while true {
            guard column < roles.count else { return nil }
            let cellEnd: Int
            if let comma = memchr(base + start, Int32(UInt8(ascii: ",")), b.count - start) {
                cellEnd = base.distance(to: comma.assumingMemoryBound(to: UInt8.self))
            } else {
                cellEnd = b.count
            }
            let cell = start..<cellEnd
            switch roles[column] {
            case .empty: guard cell.isEmpty else { return nil }
            case .type: type = cell
            case .device: device = cell
            case .t: t = cell
            case .lat: lat = cell
            case .lon: lon = cell
            case .accuracy: accuracy = cell
            }
            column += 1
            if cellEnd == b.count { break }
            start = cellEnd + 1
        }
        guard column == roles.count else { return nil }
        func bytes(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[r]) }
        func number(_ r: Range<Int>) -> Double? { DecimalNumber.parse(bytes(r)) }
        guard type.count == 3, b[type.lowerBound] == UInt8(ascii: "f"), b[type.lowerBound + 1] == UInt8(ascii: "i"),
              b[type.lowerBound + 2] == UInt8(ascii: "x"), !device.isEmpty, !t.isEmpty,
              let time = RFC3339.parseUnixSeconds(bytes(t)) ?? RFC3339.parse(bytes(t)),
              let latitude = number(lat), let longitude = number(lon), let horizontalAccuracy = number(accuracy)
        else { return nil }
        return (device, Fix(time: time, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                            horizontalAccuracy: horizontalAccuracy))
    }

    /// RFC 8259's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ n: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < n.count, n[i] >= UInt8(ascii: "0"), n[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }
        if i < n.count, n[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n.count else { return false }
        if n[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < n.count, n[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < n.count, n[i] == UInt8(ascii: "e") || n[i] == UInt8(ascii: "E") {
            i += 1
            if i < n.count, n[i] == UInt8(ascii: "+") || n[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == n.count
    }
}
