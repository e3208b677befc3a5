@testable import PerimeterIO

extension RFC3339 {
    /// `head(_:)` a byte at a time: the tests' oracle (the reading `head` replaced).
    static func headByBytes(_ b: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int, Int, Int, Int)? {
        func digits(_ at: Int, _ count: Int) -> Int? { RFC3339.digits(b, at, count) }
        guard b.count >= 20,
              let year = digits(0, 4), b[4] == UInt8(ascii: "-"),
              let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
              let day = digits(8, 2),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              let hour = digits(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
              let second = digits(17, 2)
        else { return nil }
        return (year, month, day, hour, minute, second)
    }
}
