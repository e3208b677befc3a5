/// What a time that is too large for Unix seconds most likely is: producers often write Unix
/// milliseconds (JavaScript's `Date.now()`, Java's `currentTimeMillis`), microseconds or
/// nanoseconds, and as seconds those fall after 2262, beyond what a timestamp holds.
enum TimeUnitHint {
    /// The units tried, largest first, with the power of ten that turns them into seconds.
    private static let units: [(name: String, digits: Int)] = [("nanoseconds", 9), ("microseconds", 6), ("milliseconds", 3)]

    /// A hint for a `t` written as `text` that was no time: `"1772352000123 looks like Unix
    /// milliseconds: t is in seconds (1772352000.123)"`; `nil` when it is no whole number, or not one
    /// that those units would put between 1973 and 2262.
    static func hint(_ text: String) -> String? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }), digits.first != "0" else { return nil }
        // Unix seconds from 1e8 (1973) to 9.2e9 (2262): 9 or 10 digits once the unit is taken off.
        for unit in units where (9...10).contains(digits.count - unit.digits) {
            let whole = digits.dropLast(unit.digits)
            var fraction = String(digits.suffix(unit.digits))
            while fraction.last == "0" { fraction.removeLast() }
            let seconds = (text.hasPrefix("-") ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
            return "\(InputText.prefix(text)) looks like Unix \(unit.name): t is in seconds (\(seconds))"
        }
        return nil
    }
}
