/// RFC 4180 cells of one line: commas separate; double quotes enclose a cell holding commas or
/// quotes (`""` is a quote). A quoted cell may not span lines.
enum CSVRow {
    enum Split {
        case success([String])
        /// What is wrong, and in which cell (counted from 0) when it is one cell's text.
        case failure(String, cell: Int?)
    }

    static func split(_ line: [UInt8]) -> Split {
        line.withUnsafeBufferPointer { split($0) }
    }

    static func split(_ line: UnsafeBufferPointer<UInt8>) -> Split {
        var cells: [String] = []
        var i = 0
        while true {
            if i < line.count, line[i] == UInt8(ascii: "\"") {
                var cell: [UInt8] = []
                i += 1
                while true {
                    guard i < line.count else { return .failure("unterminated quoted cell", cell: nil) }
                    if line[i] == UInt8(ascii: "\"") {
                        if i + 1 < line.count, line[i + 1] == UInt8(ascii: "\"") {
                            cell.append(UInt8(ascii: "\""))
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    cell.append(line[i])
                    i += 1
                }
                guard let text = String(validating: cell, as: UTF8.self) else { return notText(cells.count) }
                cells.append(text)
                guard i == line.count || line[i] == UInt8(ascii: ",") else {
                    return .failure("text after a quoted cell's closing quote", cell: nil)
                }
            } else {
                let start = i
                while i < line.count, line[i] != UInt8(ascii: ",") {
                    if line[i] == UInt8(ascii: "\"") { return .failure("a quote inside an unquoted cell", cell: nil) }
                    i += 1
                }
                guard let text = String(validating: UnsafeBufferPointer(rebasing: line[start..<i]), as: UTF8.self) else {
                    return notText(cells.count)
                }
                cells.append(text)
            }
            if i == line.count { return .success(cells) }
            i += 1  // the comma
        }
    }

    /// A cell whose bytes are not UTF-8: refused rather than repaired, which would make different
    /// names (say `café` written in Latin-1 and `cafè`) one.
    private static func notText(_ cell: Int) -> Split {
        .failure("not UTF-8 text", cell: cell)
    }
}
