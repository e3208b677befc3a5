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
    private enum Kind: UInt8 { case string, number, literal }

    private struct Member {
        var key: Range<Int>
        var value: Range<Int>
        var kind: Kind
    }

    /// The fix, with the bytes of its device name (unvalidated: the caller checks them as UTF-8). (A
    /// plain `Fix` rather than an `Observation`: the enum made each return go through generic copies.)
    static func decode(_ line: [UInt8]) -> (device: Range<Int>, fix: Fix)? {
        line.withUnsafeBufferPointer { decode($0) }
    }

    private static func decode(_ b: UnsafeBufferPointer<UInt8>) -> (device: Range<Int>, fix: Fix)? {
        // Scan `{"key":value,...}` into at most 12 members.
        var members: (Member, Member, Member, Member, Member, Member, Member, Member, Member, Member, Member, Member)
        let empty = Member(key: 0..<0, value: 0..<0, kind: .literal)
        members = (empty, empty, empty, empty, empty, empty, empty, empty, empty, empty, empty, empty)
        var count = 0
        var i = 0
        func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            let keyStart = i + 1
            i = keyStart
            while i < b.count, b[i] != UInt8(ascii: "\"") {
                if b[i] == UInt8(ascii: "\\") || b[i] < 0x20 { return nil }
                i += 1
            }
            guard i < b.count else { return nil }
            let key = keyStart..<i
            i += 1
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            guard i < b.count else { return nil }
            var member = Member(key: key, value: 0..<0, kind: .number)
            if b[i] == UInt8(ascii: "\"") {
                let start = i + 1
                i = start
                while i < b.count, b[i] != UInt8(ascii: "\"") {
                    if b[i] == UInt8(ascii: "\\") || b[i] < 0x20 { return nil }
                    i += 1
                }
                guard i < b.count else { return nil }
                member.value = start..<i
                member.kind = .string
                i += 1
            } else {
                let start = i
                while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}"), b[i] != 0x20 { i += 1 }
                // A number, or a literal or anything else: the fields read as numbers check RFC 8259's
                // grammar when they are read, and a value that is not one sends the line to the
                // general parser.
                member.value = start..<i
            }
            guard count < 12 else { return nil }
            withUnsafeMutableBytes(of: &members) { raw in
                raw.baseAddress!.assumingMemoryBound(to: Member.self)[count] = member
            }
            count += 1
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            skipSpace()
            guard i == b.count else { return nil }
            break
        }

        return withUnsafeBytes(of: &members) { raw -> (Range<Int>, Fix)? in
            let list = UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: Member.self), count: count)
            func find(_ name: StaticString) -> Member? {
                for m in list where m.key.count == name.utf8CodeUnitCount
                    && memcmp(b.baseAddress! + m.key.lowerBound, name.utf8Start, m.key.count) == 0 { return m }
                return nil
            }
            func same(_ r: Range<Int>, _ text: StaticString) -> Bool {
                r.count == text.utf8CodeUnitCount && memcmp(b.baseAddress! + r.lowerBound, text.utf8Start, r.count) == 0
            }
            func number(_ m: Member?) -> Double? {
                guard let m, m.kind == .number else { return nil }
                return DecimalNumber.parse(UnsafeBufferPointer(rebasing: b[m.value]))
            }
            guard let type = find("type"), type.kind == .string,
                  let deviceMember = find("device"), deviceMember.kind == .string, !deviceMember.value.isEmpty,
                  let t = find("t") else { return nil }
            let timeBytes = UnsafeBufferPointer(rebasing: b[t.value])
            guard let time = t.kind == .number ? (isJSONNumber(timeBytes) ? RFC3339.parseUnixSeconds(timeBytes) : nil)
                                               : RFC3339.parse(timeBytes) else { return nil }
            if same(type.value, "fix") {
                // Exactly the fields a plain fix has (extra optional fields: the general path).
                guard count == 6, let lat = number(find("lat")), let lon = number(find("lon")),
                      let accuracy = number(find("accuracy")) else { return nil }
                return (deviceMember.value, Fix(time: time, coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: accuracy))
            }
            return nil
        }
    }

    /// Where a CSV header puts the columns of a fix.
    struct CSVColumns {
        var count: Int
        var type: Int, device: Int, t: Int, lat: Int, lon: Int, accuracy: Int

        init?(header: [String]) {
            guard let type = header.firstIndex(of: "type"), let device = header.firstIndex(of: "device"),
                  let t = header.firstIndex(of: "t"), let lat = header.firstIndex(of: "lat"),
                  let lon = header.firstIndex(of: "lon"), let accuracy = header.firstIndex(of: "accuracy") else { return nil }
            (count, self.type, self.device, self.t, self.lat, self.lon, self.accuracy) = (header.count, type, device, t, lat, lon, accuracy)
        }
    }

    /// The same fast path for a CSV row holding a plain fix: no quotes, the fix's six cells, every
    /// other cell empty. `nil` for anything else (the general reader decodes it). `cells` is scratch
    /// space, reused from row to row.
    static func decodeCSV(_ line: [UInt8], columns: CSVColumns,
                          cells: inout [Range<Int>]) -> (device: Range<Int>, fix: Fix)? {
        cells.removeAll(keepingCapacity: true)
        return line.withUnsafeBufferPointer { b -> (Range<Int>, Fix)? in
            guard let base = b.baseAddress else { return nil }
            // Quoted cells are the general reader's; commas found by memchr, a line's few cells at a time.
            guard memchr(base, Int32(UInt8(ascii: "\"")), b.count) == nil else { return nil }
            var start = 0
            while true {
                guard cells.count < columns.count else { return nil }
                guard let comma = memchr(base + start, Int32(UInt8(ascii: ",")), b.count - start) else {
                    cells.append(start..<b.count)
                    break
                }
                let i = base.distance(to: comma.assumingMemoryBound(to: UInt8.self))
                cells.append(start..<i)
                start = i + 1
            }
            guard cells.count == columns.count else { return nil }
            for k in 0..<cells.count where !cells[k].isEmpty
                && k != columns.type && k != columns.device && k != columns.t && k != columns.lat
                && k != columns.lon && k != columns.accuracy { return nil }
            func bytes(_ k: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[cells[k]]) }
            func number(_ k: Int) -> Double? { DecimalNumber.parse(bytes(k)) }
            let type = bytes(columns.type)
            guard type.count == 3, type[0] == UInt8(ascii: "f"), type[1] == UInt8(ascii: "i"), type[2] == UInt8(ascii: "x"),
                  !cells[columns.device].isEmpty, !cells[columns.t].isEmpty,
                  let time = RFC3339.parseUnixSeconds(bytes(columns.t)) ?? RFC3339.parse(bytes(columns.t)),
                  let lat = number(columns.lat), let lon = number(columns.lon), let accuracy = number(columns.accuracy)
            else { return nil }
            return (cells[columns.device], Fix(time: time, coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: accuracy))
        }
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
