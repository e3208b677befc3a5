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

/// `ReaderFuzzTests`' oracle for JSON: a strict RFC 8259 recogniser written here.
extension ReaderFuzzTests {
    /// (Sendable said, not inferred: inferred, through the tuple of `object`, the compiler finds a
    /// cycle when a file other than this one asks.)
    indirect enum JSON: Sendable {
        case null, bool(Bool), number(String), string(String), array([JSON]), object([(key: String, value: JSON, raw: ArraySlice<UInt8>)])
    }

    /// A strict RFC 8259 recogniser: UTF-8 only, no BOM, no trailing commas, no control characters
    /// in strings, paired surrogates, the number grammar exactly.
    struct StrictJSON {
        let b: [UInt8]
        var i = 0

        static func parse(_ bytes: [UInt8]) -> JSON? {
            var p = StrictJSON(b: bytes)
            p.space()
            guard let v = p.value(depth: 0) else { return nil }
            p.space()
            return p.i == bytes.count ? v : nil
        }

        var current: UInt8? { i < b.count ? b[i] : nil }

        mutating func space() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1 }
        }

        mutating func value(depth: Int) -> JSON? {
            guard depth < 64, let c = current else { return nil }
            switch c {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["):
                i += 1
                space()
                var elements: [JSON] = []
                if current == UInt8(ascii: "]") { i += 1; return .array([]) }
                while true {
                    space()
                    guard let e = value(depth: depth + 1) else { return nil }
                    elements.append(e)
                    space()
                    if current == UInt8(ascii: ",") { i += 1; continue }
                    guard current == UInt8(ascii: "]") else { return nil }
                    i += 1
                    return .array(elements)
                }
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        mutating func object(depth: Int) -> JSON? {
            i += 1
            space()
            var members: [(key: String, value: JSON, raw: ArraySlice<UInt8>)] = []
            if current == UInt8(ascii: "}") { i += 1; return .object([]) }
            while true {
                space()
                guard current == UInt8(ascii: "\""), let key = string() else { return nil }
                space()
                guard current == UInt8(ascii: ":") else { return nil }
                i += 1
                space()
                let start = i
                guard let v = value(depth: depth + 1) else { return nil }
                members.append((key, v, b[start..<i]))
                space()
                if current == UInt8(ascii: ",") { i += 1; continue }
                guard current == UInt8(ascii: "}") else { return nil }
                i += 1
                return .object(members)
            }
        }

        mutating func literal(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { return false }
            i += w.count
            return true
        }

        mutating func digits() -> Int {
            let start = i
            while let c = current, (48...57).contains(c) { i += 1 }
            return i - start
        }

        mutating func number() -> JSON? {
            let start = i
            if current == UInt8(ascii: "-") { i += 1 }
            guard let first = current, (48...57).contains(first) else { return nil }
            if first == UInt8(ascii: "0") { i += 1 } else { _ = digits() }
            if current == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return nil }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                i += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return nil }
            }
            return .number(String(decoding: b[start..<i], as: UTF8.self))
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let d = Character(Unicode.Scalar(b[i])).hexDigitValue else { return nil }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        /// The string at `i` (its opening quote), decoded; `nil` if it breaks a rule.
        mutating func string() -> String? {
            i += 1
            var out: [UInt8] = []
            while true {
                guard let c = current else { return nil }
                i += 1
                switch c {
                case UInt8(ascii: "\""): return String(validating: out, as: UTF8.self)
                case 0..<0x20: return nil
                case UInt8(ascii: "\\"):
                    guard let e = current else { return nil }
                    i += 1
                    let simple: [UInt8: UInt8] = [0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09]
                    if let s = simple[e] { out.append(s); continue }
                    guard e == UInt8(ascii: "u"), let high = hex4() else { return nil }
                    var scalar = high
                    if (0xD800..<0xDC00).contains(high) {
                        guard current == UInt8(ascii: "\\"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "u") else { return nil }
                        i += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { return nil }
                    out += Array(String(Character(u)).utf8)
                default: out.append(c)
                }
            }
        }
    }
}
