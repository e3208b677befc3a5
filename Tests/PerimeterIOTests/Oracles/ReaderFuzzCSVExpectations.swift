#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `ReaderFuzzTests`' oracle for a CSV file: rows split as RFC 4180 says (quoted cells over several
/// lines included), each with what it must give.
extension ReaderFuzzTests {
    enum Row {
        case cells([[UInt8]], crInCell: Bool)
        /// A quoted cell went on past the line's end: the record's cells, and its last line.
        case spans([[UInt8]], last: Int)
        case invalid(String)
    }

    /// RFC 4180: cells separated by commas; a cell either has no quote, comma or line break, or is
    /// quoted with `""` for a quote inside, and may then hold line breaks.
    static func row(_ lines: [[UInt8]], at k: Int, singleLine: Bool) -> Row {
        var cells: [[UInt8]] = [], li = k, line = lines[k], i = 0, cr = false
        while true {
            var cell: [UInt8] = []
            if i < line.count, line[i] == UInt8(ascii: "\"") {
                i += 1
                while true {
                    if i == line.count {
                        guard !singleLine, li + 1 < lines.count else { return .invalid("a quoted cell not closed") }
                        li += 1
                        line = lines[li]
                        i = 0
                        cell.append(0x0A)
                        continue
                    }
                    if line[i] == UInt8(ascii: "\"") {
                        if i + 1 < line.count, line[i + 1] == UInt8(ascii: "\"") { cell.append(line[i]); i += 2; continue }
                        i += 1
                        break
                    }
                    cell.append(line[i])
                    i += 1
                }
                guard i == line.count || line[i] == UInt8(ascii: ",") else { return .invalid("text after a closing quote") }
            } else {
                while i < line.count, line[i] != UInt8(ascii: ",") {
                    if line[i] == UInt8(ascii: "\"") { return .invalid("a quote in an unquoted cell") }
                    if line[i] == 0x0D { cr = true }
                    cell.append(line[i])
                    i += 1
                }
            }
            cells.append(cell)
            if i == line.count { break }
            i += 1
        }
        return li > k ? .spans(cells, last: li) : .cells(cells, crInCell: cr)
    }

    static func csvRecord(_ cells: [[UInt8]], header: [String], crInCell: Bool) -> Expectation {
        guard cells.count == header.count else {
            return Expectation(verdict: .error(nil), why: "\(cells.count) cells, the header has \(header.count)")
        }
        var e = decide(zip(header, cells).filter { !$0.1.isEmpty }.map { ($0.0, .cell($0.1), ArraySlice($0.1)) })
        if crInCell, case .record(let d, let o) = e.verdict {
            e = Expectation(verdict: .recordOrError(d, o, nil), why: "a CR inside an unquoted cell")
        }
        return e
    }

    static func csvExpectations(_ lines: [[UInt8]], header: [String]) -> [Expectation?] {
        var out = [Expectation?](repeating: nil, count: lines.count)
        var k = 1
        while k < lines.count {
            defer { k += 1 }
            if isSpace(lines[k]) { out[k] = Expectation(verdict: .nothingOrError, why: "only spaces"); continue }
            switch row(lines, at: k, singleLine: false) {
            case .invalid(let why): out[k] = Expectation(verdict: .error(nil), why: why)
            case .cells(let cells, let cr): out[k] = csvRecord(cells, header: header, crInCell: cr)
            case .spans(let cells, let last):
                guard cells.count == header.count else {
                    out[k] = Expectation(verdict: .error(nil), why: "a quoted cell not closed on its line")
                    continue
                }
                // RFC 4180 allows it; the reader documents that a quoted cell may not span lines: an error, then.
                out[k] = Expectation(verdict: .error(nil), why: "a quoted cell with a line break (the reader's documented limit)")
                for j in (k + 1)...last {
                    let alone: Verdict? = switch row(lines, at: j, singleLine: true) {
                    case .cells(let cells, let cr): csvRecord(cells, header: header, crInCell: cr).verdict
                    default: nil
                    }
                    out[j] = Expectation(verdict: .continuation(alone), why: "inside the record of line \(k + 1)")
                }
                k = last
            }
        }
        return out
    }
}
