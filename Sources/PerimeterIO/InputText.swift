/// Values from the input as error messages quote them: at most a bounded prefix, so that a message
/// about a gigabyte-long name or number is a line, not a gigabyte.
enum InputText {
    /// The most characters of a value a message quotes.
    static let quotedPrefix = 64

    /// `value` in double quotes, cut after `quotedPrefix` characters with its length in bytes said:
    /// `"aaaa…" (1048576 bytes)`.
    static func quoted(_ value: some StringProtocol) -> String {
        "\"" + prefix(value) + "\""
            + (value.count > quotedPrefix ? " (\(value.utf8.count) bytes)" : "")
    }

    /// `value` as it stands, cut after `quotedPrefix` characters (an ellipsis marks the cut).
    static func prefix(_ value: some StringProtocol) -> String {
        value.count > quotedPrefix ? String(value.prefix(quotedPrefix)) + "…" : String(value)
    }

    /// The most characters of a message or field name kept whole: a net under every message, so
    /// that none can carry a long value whichever path made it.
    static let longestMessage = 1024

    /// `text` cut to `longestMessage` characters, saying how much was left out.
    static func bounded(_ text: String) -> String {
        guard text.utf8.count > longestMessage, text.count > longestMessage else { return text }
        return String(text.prefix(longestMessage)) + "… (\(text.utf8.count) bytes in all)"
    }
}
