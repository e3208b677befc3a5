/// A place in an observations file: the byte after the last record read, and that record's line.
public struct ReadPosition: Sendable, Hashable, Codable {
    public var offset: Int
    public var line: Int

    public init(offset: Int, line: Int) {
        self.offset = offset
        self.line = line
    }

    /// The start of a file.
    public static let start = ReadPosition(offset: 0, line: 0)
}

extension ObservationReader {
    /// How far the records handed out so far reach in the file: a reader moved `to` it reads on from
    /// the next. `nil` while a line too long to hold waits to be read again.
    public var position: ReadPosition? { lines.offset.map { ReadPosition(offset: $0, line: lines.lineNumber) } }

    /// Readies a reader that has read nothing yet to read on from `position` (one an earlier reader of
    /// the same file gave; `.start` for the first record): the format, and a CSV file's header, are
    /// learned from the file's first lines first, and are known when it returns (unless the file has
    /// no line). Standard input cannot be read from a position.
    public mutating func start(at position: ReadPosition) throws(InputError) {
        guard file != "<stdin>" else {
            guard position.offset == 0 else {
                throw InputError(file: file, line: nil, field: nil, message: "standard input cannot be read from a position")
            }
            return
        }
        // (The first non-blank line: a JSON object, or a CSV header, whose end is where records start.)
        var afterHeader = ReadPosition.start
        while format == nil || (format == .csv && csvHeader == nil) {
            guard lines.nextLine(), !lines.lineIsCut else { break }
            if isBlank(lines.line) { continue }
            let format = self.format ?? sniff(lines.line)
            self.format = format
            guard format == .csv else { break }
            if let error = readHeader() { throw error }
            afterHeader = self.position ?? .start
        }
        if position.offset > 0 && format == .csv && csvHeader == nil {
            throw InputError(file: file, line: 1, field: nil, message: "no CSV header to read on from byte \(position.offset) with")
        }
        let target = position.offset > 0 ? position : afterHeader
        lines = try LineReader(path: file, maxLineBytes: lines.maxLineBytes, offset: target.offset, lineNumber: target.line)
    }
}
