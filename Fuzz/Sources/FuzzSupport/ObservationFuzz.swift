import Perimeter
import PerimeterIO

/// One thing an `ObservationReader` hands out: a record, or the error that keeps a line from being one
/// (its file left out: the file and the pipe have different names).
public enum ReaderItem: Equatable, CustomStringConvertible {
    case record(device: String, deviceNumber: Int32, observation: Observation, line: Int)
    /// With the bad line's bytes as the quarantine keeps them (`currentLineBytes`, its first bytes
    /// when it was cut) and its length.
    case error(line: Int?, field: String?, message: String, bytes: [UInt8], length: Int)

    /// Exact: a fix's doubles bit for bit (so -0 is not 0); where `==` says no (a NaN is not
    /// itself), by their text, which tells every double apart that prints differently.
    public static func == (a: ReaderItem, b: ReaderItem) -> Bool {
        switch (a, b) {
        case (.record(let d1, let n1, let o1, let l1), .record(let d2, let n2, let o2, let l2)):
            guard d1 == d2, n1 == n2, l1 == l2 else { return false }
            guard o1 == o2 else { return "\(o1)" == "\(o2)" }
            if case .fix(let f1) = o1, case .fix(let f2) = o2 {
                func bits(_ f: Fix) -> [UInt64?] {
                    [f.coordinate.latitude.bitPattern, f.coordinate.longitude.bitPattern, f.horizontalAccuracy.bitPattern,
                     f.speed?.bitPattern, f.course?.bitPattern, f.altitude?.bitPattern]
                }
                return bits(f1) == bits(f2)
            }
            return true
        case (.error(let l1, let f1, let m1, let b1, let n1), .error(let l2, let f2, let m2, let b2, let n2)):
            return l1 == l2 && f1 == f2 && m1 == m2 && b1 == b2 && n1 == n2
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .record(let device, let number, let observation, let line):
            "record line \(line) device \(String(reflecting: device)) #\(number): \(observation)"
        case .error(let line, let field, let message, let bytes, let length):
            "error line \(line.map(String.init) ?? "nil") field \(field.map { String(reflecting: $0) } ?? "nil"): \(Fuzz.short(message)) "
                + "— \(bytes.count) of \(length) bytes kept: \(Fuzz.short(String(decoding: bytes, as: UTF8.self).debugDescription, 200))"
        }
    }

    /// A fix as the engine evaluates it (`PlainFixRecord.fix`: speed, course and altitude dropped),
    /// which is all `readPlainFixes` keeps.
    var evaluated: ReaderItem {
        guard case .record(let device, let number, .fix(let fix), let line) = self else { return self }
        return .record(device: device, deviceNumber: number,
                       observation: .fix(PlainFixRecord(deviceNumber: number, fix: fix, line: line).fix), line: line)
    }
}

/// The observation readers' targets: one input read four ways, which must agree item for item.
///
/// 1. the input written to a file, read with `next()` (the reference);
/// 2. the input fed through a pipe (`/dev/fd/N`) in pieces, read with `next()`: identical, records and
///    errors, in order;
/// 3. the file read as `BatchEvaluation.run` reads it, runs of plain fixes through `readPlainFixes`
///    and the rest through `next()`, on one thread;
/// 4. the pipe read that way on two threads (the reader's parallel blocks);
/// 3 and 4 equal 1 with its fixes as the engine evaluates them (`ReaderItem.evaluated`).
public enum ObservationFuzz {
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>, format: ObservationFormat) {
        let path = Scratch.path(format == .csv ? "observations.csv" : "observations.jsonl")
        Scratch.write(bytes, to: path)
        defer { Scratch.remove(path) }
        let input = Array(bytes)

        // A third of the inputs with lines cut at 64 bytes (longer ones are bad records of their first bytes).
        let most = input.count % 3 == 1 ? 64 : ObservationReader.defaultMaxLineBytes
        let reference = readAll(path, format: format, maxLineBytes: most)
        let piped = PipeFeed.read(input) { readAll($0, format: format, maxLineBytes: most) }
        compare(reference, piped, "file, next()", "pipe, next()", input)

        let evaluated = reference.map(\.evaluated)
        let runs = readRuns(path, format: format, maxLineBytes: most, threads: 1, limit: 1 << 18)
        compare(evaluated, runs, "file, next() (fixes as evaluated)", "file, readPlainFixes on 1 thread", input)
        // The limit the tool gives is the room left in its batch (2^18 at first); the reader's parallel
        // block needs at least 4,096, which a CSV input of tiny lines can pass (a block cut at the limit).
        let limit = input.count % 2 == 0 ? 4096 : 1 << 18
        let parallel = PipeFeed.read(input) { readRuns($0, format: format, maxLineBytes: most, threads: 2, limit: limit) }
        compare(evaluated, parallel, "file, next() (fixes as evaluated)", "pipe, readPlainFixes on 2 threads, limit \(limit)", input)
    }

    static func item(_ next: Result<ObservationRecord, InputError>, path: String, _ reader: borrowing ObservationReader) -> ReaderItem {
        switch next {
        case .success(let r):
            return .record(device: r.device, deviceNumber: r.deviceNumber, observation: r.observation, line: r.line)
        case .failure(let e):
            guard e.file == path else { Fuzz.finding("an error names the file \(String(reflecting: e.file)), not \(path): \(e)") }
            return .error(line: e.line, field: e.field, message: e.message, bytes: reader.currentLineBytes,
                          length: reader.currentLineLength)
        }
    }

    /// Every item `next()` hands out.
    public static func readAll(_ path: String, format: ObservationFormat, maxLineBytes: Int) -> [ReaderItem] {
        var reader: ObservationReader
        do { reader = try ObservationReader(path: path, format: format, maxLineBytes: maxLineBytes) } catch { Fuzz.finding("harness: cannot open \(path): \(error)") }
        var items: [ReaderItem] = []
        while let next = reader.next() {
            items.append(item(next, path: path, reader))
            checkDeviceNumber(items.last!, reader)
        }
        return items
    }

    /// Every item as `BatchEvaluation.run` reads them: runs of plain fixes, then one item by `next()`.
    public static func readRuns(_ path: String, format: ObservationFormat, maxLineBytes: Int, threads: Int, limit: Int) -> [ReaderItem] {
        var reader: ObservationReader
        do { reader = try ObservationReader(path: path, format: format, maxLineBytes: maxLineBytes) } catch { Fuzz.finding("harness: cannot open \(path): \(error)") }
        reader.threads = threads
        var items: [ReaderItem] = [], fixes: [PlainFixRecord] = []
        while true {
            fixes.removeAll(keepingCapacity: true)
            let n = reader.readPlainFixes(into: &fixes, limit: limit)
            guard n == fixes.count, n <= limit else {
                Fuzz.finding("readPlainFixes returned \(n) with \(fixes.count) fixes appended, limit \(limit)")
            }
            if n > 0 {
                for f in fixes {
                    guard Int(f.deviceNumber) < reader.deviceCount else { Fuzz.finding("device number \(f.deviceNumber) not named") }
                    items.append(.record(device: reader.deviceName(f.deviceNumber), deviceNumber: f.deviceNumber,
                                         observation: .fix(f.fix), line: f.line))
                }
                continue
            }
            guard let next = reader.next() else { break }
            let item = item(next, path: path, reader)
            checkDeviceNumber(item, reader)
            items.append(item.evaluated)
        }
        return items
    }

    static func checkDeviceNumber(_ item: ReaderItem, _ reader: borrowing ObservationReader) {
        guard case .record(let device, let number, _, _) = item else { return }
        guard number >= 0, Int(number) < reader.deviceCount, reader.deviceName(number) == device else {
            Fuzz.finding("record of \(String(reflecting: device)) numbered \(number), which names something else")
        }
    }

    static func compare(_ a: [ReaderItem], _ b: [ReaderItem], _ aName: String, _ bName: String, _ input: [UInt8]) {
        guard a != b else { return }
        let k = Fuzz.firstDifference(a, b)
        var message = "the observation reader gives different items: \(aName) vs \(bName)\n"
        message += "\(aName): \(a.count) items; \(bName): \(b.count) items; first difference at item \(k)\n"
        message += "  \(aName): \(k < a.count ? a[k].description : "(none)")\n"
        message += "  \(bName): \(k < b.count ? b[k].description : "(none)")\n"
        if k > 0 { message += "  item before: \(a[k - 1])\n" }
        message += "input (\(input.count) bytes): \(Fuzz.short(String(decoding: input, as: UTF8.self).debugDescription))"
        Fuzz.finding(message)
    }
}
