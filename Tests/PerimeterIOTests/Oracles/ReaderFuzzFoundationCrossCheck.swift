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

/// The JSON oracle cross-checked with Foundation's `JSONSerialization` on every line: disagreements
/// noted, counted and printed, not assumed wrong.
extension ReaderFuzzTests {
    /// Where `JSONSerialization` and the strict recogniser disagree: noted, counted, printed.
    struct Notes {
        var counts: [String: Int] = [:]
        var samples: [String: String] = [:]

        mutating func note(_ what: String, _ line: [UInt8]) {
            counts[what, default: 0] += 1
            if samples[what] == nil { samples[what] = ReaderFuzzTests.literal(line) }
        }

        mutating func crossCheck(_ line: [UInt8], _ strict: JSON?) {
            let foundation = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
            switch (strict, foundation) {
            case (nil, nil): return
            case (nil, _?):
                let text = String(decoding: line, as: UTF8.self)
                note(line.starts(with: [0xEF, 0xBB, 0xBF]) ? "JSONSerialization accepts a UTF-8 BOM (RFC 8259 lets a parser ignore it)"
                     : text.range(of: #",\s*[}\]]"#, options: .regularExpression) != nil ? "JSONSerialization accepts a trailing comma (RFC 8259 forbids)"
                     : "JSONSerialization accepts what RFC 8259 forbids (other)", line)
            case (_?, nil):
                note(String(decoding: line, as: UTF8.self).range(of: #"[0-9][eE]\+?[0-9]{3}"#, options: .regularExpression) != nil
                     ? "JSONSerialization refuses a number beyond Double's range (1e400; RFC 8259 allows it)"
                     : "JSONSerialization refuses valid RFC 8259 (other)", line)
            case (.object(let members)?, let object?):
                guard let dictionary = object as? [String: Any] else { note("JSONSerialization: not a dictionary", line); return }
                for (key, value, _) in members {
                    guard let theirs = dictionary[key] else { note("JSONSerialization lost a key", line); continue }
                    if members.filter({ $0.key == key }).count > 1 {
                        if members.last(where: { $0.key == key })!.raw != members.first(where: { $0.key == key })!.raw {
                            note("duplicate key with different values: JSONSerialization keeps the last (RFC 8259: unpredictable)", line)
                        }
                        continue
                    }
                    switch value {
                    case .string(let s):
                        if (theirs as? String).map({ Array($0.unicodeScalars) == Array(s.unicodeScalars) }) != true {
                            note("JSONSerialization decodes a string otherwise", line)
                        }
                    case .number(let t):
                        let ours = Double(t)!
                        guard let n = theirs as? NSNumber else { note("JSONSerialization: a number is not an NSNumber", line); continue }
                        if n.doubleValue.bitPattern != ours.bitPattern {
                            if ours == 0 && n.doubleValue == 0 {
                                note("JSONSerialization drops the sign of an integer -0", line)
                            } else if n is NSDecimalNumber {
                                note("JSONSerialization's NSDecimalNumber.doubleValue is not correctly rounded", line)
                            } else {
                                note("JSONSerialization rounds a number otherwise than strtod", line)
                            }
                        }
                    default: break
                    }
                }
            case (_?, _?): return
            }
        }

        func report(_ label: String) {
            for (what, count) in counts.sorted(by: { $0.key < $1.key }) {
                print("[\(label)] oracle note ×\(count): \(what), e.g. \(samples[what]!)")
            }
        }
    }

    /// A line as a Swift string literal (or its bytes, when it is not UTF-8).
    static func literal(_ line: [UInt8]) -> String {
        guard let s = String(validating: line, as: UTF8.self) else { return "bytes \(line)" }
        return s.debugDescription
    }
}
