import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The input `ToolOracleTests`' generator writes: each line as written and what it is (a good record
/// and its observation, a bad one and the field its refusal must name, or a blank line).
extension ToolOracleTests {
    struct Line: Sendable {
        enum Kind: Sendable {
            case good(device: String, observation: Observation)
            /// Refused: the field the error must name (nil: the whole record), and a word its reason must hold.
            case bad(field: String?, mentions: String)
            case blank
        }
        var kind: Kind
        /// The line as written, without its line ending.
        var text: String
        var crlf = false
        /// For a line of the uniform stretch: what it says, so that a variant can say otherwise in as many bytes.
        var uniform: Uniform?

        var isBad: Bool { if case .bad = kind { true } else { false } }
        var isGood: Bool { if case .good = kind { true } else { false } }
    }

    struct Uniform: Sendable {
        var device: String
        var seconds: Int64
        var lat: String
        var lon: String
        var accuracy: String
    }

    struct Input: Sendable {
        var format: ObservationFormat
        var lines: [Line]
        var lastWithoutNewline: Bool
        /// Indices of the uniform stretch.
        var uniform: Range<Int>
        /// Indices of bad lines placed at seams (around new devices, runs' ends), and the first and last bad lines.
        var seams: [Int]

        /// The file line of `lines[index]` (CSV: after its header).
        func lineNumber(_ index: Int) -> Int { index + (format == .csv ? 2 : 1) }
        func index(ofLine line: Int) -> Int { line - (format == .csv ? 2 : 1) }

        var text: String {
            var out = format == .csv ? Generator.csvHeader.joined(separator: ",") + "\n" : ""
            for (k, line) in lines.enumerated() {
                out += line.text
                if line.crlf { out += "\r" }
                if k < lines.count - 1 || !lastWithoutNewline { out += "\n" }
            }
            return out
        }

        /// Every bad line before `index` made blank (blank lines are no records: the good lines and
        /// their numbers stay as they were).
        func badLinesBlanked(before index: Int) -> Input {
            var copy = self
            for k in 0..<index where copy.lines[k].isBad {
                copy.lines[k] = Line(kind: .blank, text: "", crlf: copy.lines[k].crlf)
            }
            return copy
        }
    }

    /// Dice from a seeded generator (names of their own: the module's tests extend `SplitMix64` too).
    struct Dice {
        var rng: SplitMix64
        mutating func below(_ n: Int) -> Int { Int.random(in: 0..<n, using: &rng) }
        mutating func perMille(_ n: Int) -> Bool { below(1000) < n }
        mutating func percent(_ n: Int) -> Bool { below(100) < n }
        mutating func pick<T>(_ xs: [T]) -> T { xs[below(xs.count)] }
        mutating func double(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
    }

    enum BadKind: CaseIterable {
        case malformed, notAnObject, unknownType, missingLat, nonNumericLat, outOfRange, major70000, duplicateField,
             foreignField, unknownField, outOfOrder, emptyRecord, emptyDevice, leapSecond
        /// Kinds the reader refuses (the engine never sees them).
        static let readerRefused: [BadKind] = [.malformed, .notAnObject, .unknownType, .missingLat, .nonNumericLat, .major70000,
                                               .duplicateField, .foreignField, .unknownField, .emptyRecord, .emptyDevice, .leapSecond]
    }

    struct Device {
        var name: String
        var lat: Double
        var lon: Double
        /// Its last good record's time (before its first, the time its first will have), ns since 1970.
        var time: Int64
        var started = false
    }
}
