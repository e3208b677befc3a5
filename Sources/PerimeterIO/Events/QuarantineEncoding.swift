import Foundation

/// The quarantine file's line for a bad record: `{"file","line","field","reason","record"}`, from which
/// the record can be recovered byte for byte.
///
/// `record` is the line as text when it is UTF-8. A line that is not is written with `record` null
/// and its exact bytes in `recordBase64` (JSON text cannot hold them, and U+FFFD in their place would
/// lose them). A line longer than the most a line may hold was never held whole: `record` (or
/// `recordBase64`) has its first bytes and `recordLength` its length.
///
/// ```
/// {"file":"obs.jsonl","line":7,"field":"lat","reason":"latitude 95.0 is outside −90…90","record":"{\"type\":\"fix\",…}"}
/// {"file":"obs.csv","line":9,"field":"device","reason":"not UTF-8 text","record":null,"recordBase64":"Zml4LGNhZulzLDE="}
/// ```
public enum QuarantineEncoding {
    /// One quarantine line, with its newline: the bad record's file, line, field and reason, and the
    /// record as written.
    ///
    /// - Parameters:
    ///   - record: the line's bytes (without its newline), or its first bytes when it was cut.
    ///   - length: the line's whole length in bytes, when `record` holds only its first bytes.
    public static func jsonLine(_ error: InputError, record: [UInt8], length: Int? = nil) -> String {
        var line = "{\"file\":" + JSONText.quoted(error.file)
            + ",\"line\":" + (error.line.map(String.init) ?? "null")
            + ",\"field\":" + JSONText.quotedOrNull(error.field)
            + ",\"reason\":" + JSONText.quoted(error.message)
        if let text = String(validating: record, as: UTF8.self) {
            line += ",\"record\":" + JSONText.quoted(text)
        } else {
            line += ",\"record\":null,\"recordBase64\":\"" + Data(record).base64EncodedString() + "\""
        }
        if let length, length != record.count { line += ",\"recordLength\":\(length)" }
        return line + "}\n"
    }
}
