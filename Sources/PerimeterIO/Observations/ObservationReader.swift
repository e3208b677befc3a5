#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Perimeter

/// Streams observation records from a JSON Lines or CSV file (or standard input), one at a time, in
/// constant memory. A bad record is returned as an `InputError` naming file, line and field, and
/// reading can go on after it.
public struct ObservationReader: ~Copyable {
    public let file: String
    /// The format in use; `nil` until the first line is read when neither caller nor name said.
    public internal(set) var format: ObservationFormat?
    var lines: LineReader
    var csvHeader: [String]?
    var csvColumns: PlainRecordDecoder.CSVColumns?
    var devices = DeviceNames()
    /// Set when the file itself is unusable (a bad CSV header): every later call returns `nil`,
    /// and the error returned is not one record's, so it cannot be quarantined.
    public private(set) var failed = false

    /// Opens `path` (`-` for standard input). The format comes from `format`, else the file's
    /// extension, else the first line (`{` means JSON Lines).
    ///
    /// - Parameters:
    ///   - path: the file, or `-` for standard input.
    ///   - format: JSON Lines or CSV; `nil` to tell by the extension, else by the first line.
    ///   - maxLineBytes: the longest line read; a longer one is a bad record, of which only
    ///     the first bytes are kept (`currentLineBytes`) and its length (`currentLineLength`). At least 1.
    public init(path: String, format: ObservationFormat? = nil,
                maxLineBytes: Int = ObservationReader.defaultMaxLineBytes) throws(InputError) {
        file = path == "-" ? "<stdin>" : path
        lines = try LineReader(path: path, maxLineBytes: max(1, maxLineBytes))
        self.format = format ?? ObservationFormat(path: path)
    }

    /// The longest line read by default (16 MiB): far beyond any record.
    public static let defaultMaxLineBytes = LineReader.defaultMaxLineBytes

    /// The bytes of the line last read, exactly as written (without its newline and a `\r` before
    /// it), for a quarantine file; only the first of them when the line is longer than the most a
    /// line may hold (`currentLineLength` then says how long it is).
    public var currentLineBytes: [UInt8] { Array(lines.line) }
    /// The length in bytes of the line last read, whole.
    public var currentLineLength: Int { lines.lineLength }
    /// The text of the line last read (bytes that are not UTF-8 replaced by U+FFFD).
    public var currentLineText: String { String(decoding: lines.line, as: UTF8.self) }
    /// The number of the line last read.
    public var currentLine: Int { lines.lineNumber }

    /// The next record, or the error that keeps the next line from being one; `nil` at the end.
    public mutating func next() -> Result<ObservationRecord, InputError>? {
        while !failed {
            guard lines.nextLine() else {
                // A read error ends the input: say so rather than stop as if the file had ended.
                guard let code = lines.readError else { return nil }
                failed = true
                return .failure(InputError(file: file, line: lines.lineNumber + 1, field: nil,
                                           message: "cannot read the file: \(String(cString: strerror(code)))"))
            }
            if lines.lineIsCut {
                // Only its first bytes were kept: neither a record nor, first in a CSV file, a header.
                let error = InputError(file: file, line: lines.lineNumber, field: nil,
                                       message: "the line is \(lines.lineLength) bytes long, more than the \(lines.maxLineBytes) a line may hold")
                if csvHeader == nil && (format ?? sniff(lines.line)) == .csv { failed = true }
                return .failure(error)
            }
            if isBlank(lines.line) { continue }
            let format = self.format ?? sniff(lines.line)
            self.format = format
            switch format {
            case .jsonLines:
                return decodeJSONLine()
            case .csv:
                if csvHeader == nil {
                    if let error = readHeader() {
                        failed = true
                        return .failure(error)
                    }
                    continue
                }
                return decodeCSVLine()
            }
        }
        return nil
    }

    /// Threads `readPlainFixes` may use to decode a long run of plain fixes (1: the caller's only).
    public var threads = 1
    /// One per chunk of a parallel block, kept from block to block.
    var shares: [PlainFixShare] = []
    /// Whether the last parallel block was cut short by a line for `next()`: its later chunks'
    /// work was lost, so runs go line by line until a long one again.
    var runsAreShort = false
    /// How the file's plain fixes are laid out (JSON Lines), learned from the first line of a block of
    /// them, and again from a later block's first line if that is a plain fix laid out otherwise;
    /// read one at a time, from a plain fix the layout missed (`plainJSONRecord`).
    var layout: PlainFixLayout?
    /// Plain fixes read one at a time that the layout missed since it was last learned (or tried).
    private var layoutMisses = Self.missesBeforeLearning

    /// A plain fix the layout misses teaches it again once this many have missed: often enough to
    /// follow a producer that changed, seldom enough that a file no layout reads pays little.
    static let missesBeforeLearning = 64

    /// Bytes per line of the last block, to size the next one to the caller's limit.
    var bytesPerLine = 128

    /// While runs are short (a block stopped at a line the fast path refused), this many lines at
    /// most are read one at a time before a block is decoded in parallel again.
    static let parallelRun = 4096
    /// Unless runs are short, a block is decoded in parallel for as few as this many records wanted (a
    /// batch's last ones), about what the smallest block, 64 KiB, holds.
    static let parallelTail = 1024
    /// The most bytes one parallel block of a file takes, by default: large enough that the threads'
    /// meeting at its end costs little (its chunks keep them equally busy until then).
    static let largestBlock = 1 << 22
    /// The most bytes one parallel block takes from a pipe or a terminal.
    static let largestStreamBlock = 1 << 20
    /// About how many bytes of a parallel block its threads take at once, by default.
    static let chunkBytes = 1 << 16
    /// The most bytes one parallel block of a file takes (the tests lower it, to cut files into many
    /// blocks).
    var blockLimit = largestBlock
    /// About how many bytes of a parallel block its threads take at once (the tests lower it too).
    var chunkTarget = chunkBytes

    /// Reads plain fixes — the commonest record, in the form the fast path knows — into `fixes` until
    /// `limit` were read, the input ends, or the next line is anything else, which is left for
    /// `next()`: a run of fixes without a `Result`, an `Observation` or a `String` per record. With
    /// `threads` > 1, long runs are decoded a block at a time in parallel. Returns how many it read;
    /// 0 until `next()` has met the first line (the format, and a CSV header).
    public mutating func readPlainFixes(into fixes: inout [PlainFixRecord], limit: Int) -> Int {
        // The engine's records with the reader's own numbers for devices (kept from call to call).
        var records: [FixRecord] = [], numbers = ownNumbers
        ownNumbers = []
        let count = readPlainFixes(into: &records, limit: limit, deviceIDs: &numbers) { number, _ in DeviceID(index: number) }
        ownNumbers = numbers
        fixes += records.map { PlainFixRecord(deviceNumber: $0.device.index, fix: $0.fix, line: $0.cause) }
        return count
    }

    /// The reader's device numbers as devices, for `readPlainFixes(into:limit:)`.
    private var ownNumbers: [DeviceID] = []

    /// `readPlainFixes(into:limit:)` as the engine's records, appended to `records`, each caused by its
    /// line: the caller's list is written by the decoding threads themselves, not copied into.
    ///
    /// - Parameters:
    ///   - deviceIDs: the engine's device for each device number the reader gave (`deviceName(_:)`),
    ///     extended here, in number order, to every number it has given.
    ///   - name: the engine's device for a number and name not in `deviceIDs` yet.
    mutating func readPlainFixes(into records: inout [FixRecord], limit: Int, deviceIDs: inout [DeviceID],
                                 naming name: (Int32, String) -> DeviceID) -> Int {
        guard !failed, let format, format == .jsonLines || csvHeader != nil else { return 0 }
        nameDevices(&deviceIDs, name)
        if threads > 1 && limit >= Self.parallelTail && !runsAreShort,
           let count = readBlockOfPlainFixes(into: &records, limit: limit, format: format, deviceIDs: &deviceIDs, naming: name) {
            return count
        }
        // Line by line; while runs are short, only as far as a parallel run would pay again.
        let columns = csvColumns
        let most = threads > 1 ? min(limit, Self.parallelRun) : limit
        var count = 0
        while count < most && lines.nextLine() {
            guard !lines.lineIsCut else {
                lines.unreadLine()
                break
            }
            let line = lines.line
            let decoded = format == .jsonLines ? plainJSONRecord(line)
                : PlainRecordDecoder.decode(line, readable: lines.lineReadable, format: format, columns: columns)
            guard let (device, record) = decoded, case .fix(let fix) = record,
                  let number = devices.number(UnsafeBufferPointer(rebasing: line[device])) else {
                lines.unreadLine()
                break
            }
            if Int(number) == deviceIDs.count { nameDevices(&deviceIDs, name) }
            records.append(FixRecord(device: deviceIDs[Int(number)], fix: fix, cause: lines.lineNumber))
            count += 1
        }
        if count == most { runsAreShort = false }
        return count
    }

    /// Extends `deviceIDs` to every device number given so far, `name` giving the engine's device for
    /// a number and its name, in number order.
    func nameDevices(_ deviceIDs: inout [DeviceID], _ name: (Int32, String) -> DeviceID) {
        while deviceIDs.count < devices.names.count {
            deviceIDs.append(name(Int32(deviceIDs.count), devices.names[deviceIDs.count]))
        }
    }

    /// The name of the device the reader numbered `number` (`ObservationRecord.deviceNumber`,
    /// `PlainFixRecord.deviceNumber`).
    public func deviceName(_ number: Int32) -> String { devices.names[Int(number)] }

    /// How many devices the reader has numbered: `0 ..< deviceCount`, in order of first appearance.
    public var deviceCount: Int { devices.names.count }

    /// JSON Lines if the first non-blank line opens an object, else CSV.
    func sniff(_ line: UnsafeBufferPointer<UInt8>) -> ObservationFormat {
        line.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } == UInt8(ascii: "{") ? .jsonLines : .csv
    }

    func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    private func failure(_ field: String?, _ message: String) -> Result<ObservationRecord, InputError> {
        .failure(InputError(file: file, line: lines.lineNumber, field: field, message: message))
    }

    private mutating func decode(_ fields: RecordFields) -> Result<ObservationRecord, InputError> {
        do throws(ObservationProblem) {
            let (device, observation) = try ObservationDecoding.decode(fields)
            return .success(ObservationRecord(device: device, observation: observation, line: lines.lineNumber,
                                              deviceNumber: devices.number(device)))
        } catch {
            return failure(error.field, error.message)
        }
    }

    /// A fast path's record, its device named by bytes of the current line; `nil` if they are not
    /// UTF-8 (the general path then words the error).
    private mutating func fastRecord(device: Range<Int>, _ record: PlainRecord) -> ObservationRecord? {
        guard let number = devices.number(UnsafeBufferPointer(rebasing: lines.line[device])) else { return nil }
        let observation: Observation = switch record {
        case .fix(let fix): .fix(fix)
        case .sighting(let sighting): .sighting(sighting)
        }
        return ObservationRecord(device: devices.names[Int(number)], observation: observation, line: lines.lineNumber,
                                 deviceNumber: number)
    }

    /// The plain record a JSON Lines line holds, through the learned layout or else the key-by-key
    /// reader.
    private mutating func plainJSONRecord(_ line: UnsafeBufferPointer<UInt8>) -> (device: Range<Int>, record: PlainRecord)? {
        if let read = layout?.decode(line, readable: lines.lineReadable) { return read }
        guard let read = PlainRecordDecoder.decode(line, readable: lines.lineReadable) else { return nil }
        if case .fix = read.record {
            layoutMisses += 1
            if layoutMisses >= Self.missesBeforeLearning {
                layoutMisses = 0
                if let learned = PlainFixLayout(learning: line) { layout = learned }
            }
        }
        return read
    }

    private mutating func decodeJSONLine() -> Result<ObservationRecord, InputError> {
        if let (device, plain) = plainJSONRecord(lines.line), let record = fastRecord(device: device, plain) {
            return .success(record)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(lines.line)
        } catch {
            return failure(nil, "not a JSON object: \(error.message)")
        }
        guard case .object(let object) = value else {
            return failure(nil, "expected a JSON object, got \(value.kindName)")
        }
        return decode(RecordFields(object))
    }

    mutating func readHeader() -> InputError? {
        let names: [String]
        switch CSVRow.split(lines.line) {
        case .success(let cells): names = cells.map { $0.trimmingSpaces }
        case .failure(let message, _): return InputError(file: file, line: lines.lineNumber, field: nil, message: "CSV header: \(message)")
        }
        // A spreadsheet set to a locale whose decimal mark is a comma writes semicolons between cells.
        if lines.line.contains(UInt8(ascii: ";")) && !lines.line.contains(UInt8(ascii: ",")) {
            return InputError(file: file, line: lines.lineNumber, field: nil,
                              message: "the CSV header has semicolons and no comma: cells must be separated by commas (type,device,t,lat,lon,accuracy), with a point as the decimal mark")
        }
        var seen = Set<String>()
        for name in names {
            guard ObservationDecoding.allFields.contains(name) else {
                return InputError(file: file, line: lines.lineNumber, field: name,
                                  message: "unknown column (columns: \(ObservationDecoding.allFields.sorted().joined(separator: ", ")))")
            }
            guard seen.insert(name).inserted else {
                return InputError(file: file, line: lines.lineNumber, field: name, message: "column named twice")
            }
        }
        for required in ObservationDecoding.commonFields where !seen.contains(required) {
            return InputError(file: file, line: lines.lineNumber, field: required, message: "the CSV header needs this column")
        }
        csvHeader = names
        csvColumns = PlainRecordDecoder.CSVColumns(header: names)
        return nil
    }

    private mutating func decodeCSVLine() -> Result<ObservationRecord, InputError> {
        guard let header = csvHeader else { preconditionFailure("header read first") }
        if let columns = csvColumns, let (device, plain) = PlainRecordDecoder.decodeCSV(lines.line, readable: lines.lineReadable, columns: columns),
           let record = fastRecord(device: device, plain) {
            return .success(record)
        }
        switch CSVRow.split(lines.line) {
        case .failure(let message, let cell):
            return failure(cell.flatMap { header.indices.contains($0) ? header[$0] : nil }, message)
        case .success(let cells):
            guard cells.count == header.count else {
                return failure(nil, "expected \(header.count) cells as in the header, got \(cells.count)")
            }
            var fields: [(name: String, value: RecordFields.Value)] = []
            fields.reserveCapacity(cells.count)
            for (name, cell) in zip(header, cells) where !cell.isEmpty {
                fields.append((name, .text(cell)))
            }
            return decode(RecordFields(fields: fields))
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
