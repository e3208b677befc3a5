import Foundation
import Testing

@testable import Perimeter
@testable import PerimeterIO

/// Input a user would not write but a broken producer or a hostile one does: lines far too long, read
/// from a file or a pipe; bytes that are not UTF-8; control characters; values a megabyte long. Each
/// is a bad record named by its line, recoverable byte for byte from the quarantine, and no message
/// quotes more than a bounded prefix of it.
@Suite struct HostileInputTests {
    static let fix = #"{"type":"fix","device":"d1","t":1772352000,"lat":48.86,"lon":2.34,"accuracy":10}"#
    static let laterFix = #"{"type":"fix","device":"d1","t":1772352010,"lat":48.87,"lon":2.35,"accuracy":10}"#

    /// Writes `bytes` into a pipe from another thread, `piece` bytes at a time, and returns the path
    /// its reading end is open at (`/dev/fd/N`, as a shell's `<(…)` gives).
    static func pipe(_ bytes: [UInt8], piece: Int = 1 << 16) -> String {
        var ends: [Int32] = [0, 0]
        precondition(Glibc.pipe(&ends) == 0)
        let writer = ends[1]
        Thread.detachNewThread {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset..<min(bytes.count, offset + piece)].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                offset += n
            }
            close(writer)
        }
        return "/dev/fd/\(ends[0])"
    }

    /// Every record or error a reader gives, with the bytes it keeps of each error's line.
    static func readAll(_ reader: inout ObservationReader) -> [String] {
        var out: [String] = []
        while let next = reader.next() {
            switch next {
            case .success(let record): out.append("\(record.line) \(record.device) \(record.observation)")
            case .failure(let error): out.append("\(error.description) [\(reader.currentLineBytes.count) of \(reader.currentLineLength) bytes]")
            }
        }
        return out
    }

    /// A line past the limit is a bad record named by its line, of which only the first 4,096 bytes are
    /// kept, with its length; the lines around it read as usual — from a file and from a pipe that
    /// gives the bytes in small pieces, with and without a `\r` before its newline, and last in the
    /// input without one.
    @Test(arguments: ["\n", "\r\n"])
    func aLineLongerThanTheLimitIsABadRecordThatIsNeverHeldWhole(_ newline: String) throws {
        let long = #"{"type":"fix","device":""# + String(repeating: "x", count: 300_000) + #"","t":1,"lat":0,"lon":0,"accuracy":1}"#
        let text = Self.fix + newline + long + newline + Self.laterFix + newline + long
        let file = try Fixture.write(text, named: "long-line.jsonl")
        var fromFile = try ObservationReader(path: file, maxLineBytes: 100_000)
        let read = Self.readAll(&fromFile)
        #expect(read.count == 4)
        #expect(read[1] == "\(file):2: the line is \(long.utf8.count) bytes long, more than the 100000 a line may hold [4096 of \(long.utf8.count) bytes]")
        #expect(read[2].hasPrefix("3 d1 "))
        #expect(read[3].hasPrefix("\(file):4: the line is \(long.utf8.count) bytes long"))
        for piece in [1 << 16, 4093] {
            var fromPipe = try ObservationReader(path: Self.pipe(Array(text.utf8), piece: piece), format: .jsonLines, maxLineBytes: 100_000)
            #expect(Self.readAll(&fromPipe).map { $0.replacingOccurrences(of: #"^/dev/fd/\d+"#, with: file, options: .regularExpression) }
                    == read)
        }
        // The block reader (runs of plain fixes) stops at the long line too.
        var blocks = try ObservationReader(path: file, maxLineBytes: 100_000)
        blocks.threads = 2
        var fixes: [PlainFixRecord] = []
        _ = blocks.next()
        #expect(blocks.readPlainFixes(into: &fixes, limit: 1 << 16) == 0)
        guard case .failure(let error)? = blocks.next() else { Issue.record("the long line was read as a record"); return }
        #expect(error.line == 2)
    }

    /// Reading a long line from a pipe searches each byte for its newline once, not once per read:
    /// a 24 MB line in 64 KiB pieces costs some 24 MB of searching (searching the partial line again
    /// after each read made it 4.6 GB).
    @Test func readingALongLineFromAPipeIsLinear() throws {
        let long = Array(#"{"type":"fix","device":""#.utf8) + Array(repeating: UInt8(ascii: "y"), count: 24 << 20) + Array("\"}\n".utf8)
        var reader = try ObservationReader(path: Self.pipe(long + Array((Self.fix + "\n").utf8)), format: .jsonLines,
                                           maxLineBytes: 64 << 20)
        guard case .failure(let error)? = reader.next() else { Issue.record("expected the long line's error"); return }
        #expect(error.field == "device" || error.field == "t" || error.field == nil)
        #expect(reader.bytesSearchedAfterRefill <= 2 * long.count, "searched \(reader.bytesSearchedAfterRefill) bytes for \(long.count)")
        guard case .success(let record)? = reader.next() else { Issue.record("the next line was lost"); return }
        #expect(record.line == 2)
    }

    /// Through the tool: a long line is quarantined as its first bytes and its length, and the run
    /// goes on; without a quarantine it stops naming the line.
    @Test func theToolQuarantinesALongLineByItsFirstBytesAndLength() throws {
        let folder = try ToolProcess.folder("long-line-tool")
        let long = #"{"type":"fix","device":""# + String(repeating: "z", count: 20_000) + #""}"#
        let observations = folder + "/obs.jsonl"
        try Data((Self.fix + "\n" + long + "\n" + Self.laterFix + "\n").utf8).write(to: URL(fileURLWithPath: observations))
        let conditions = Fixture.path("city/conditions.geojson")
        let quarantined = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations,
                                               "--max-line-bytes", "10000", "--quarantine", folder + "/bad.jsonl", "--out", folder + "/ev.jsonl"])
        #expect(quarantined.status == 0, "\(quarantined.stderr)")
        let bad = try String(contentsOfFile: folder + "/bad.jsonl", encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: Data(bad.utf8)) as? [String: Any]
        #expect(object?["line"] as? Int == 2)
        #expect(object?["recordLength"] as? Int == long.utf8.count)
        #expect(object?["record"] as? String == String(long.prefix(4096)))
        let stopped = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations,
                                           "--max-line-bytes", "10000", "--out", folder + "/ev2.jsonl"])
        #expect(stopped.status == 1)
        #expect(stopped.stderr.contains("obs.jsonl:2: the line is \(long.utf8.count) bytes long, more than the 10000 a line may hold"),
                "\(stopped.stderr)")
    }

    /// Every rejected line comes back from the quarantine byte for byte: as text when it is UTF-8,
    /// else from `recordBase64` (Latin-1 and broken UTF-8, in a CSV cell and in a JSON string).
    @Test(arguments: [ObservationFormat.jsonLines, .csv])
    func quarantinedLinesAreRecoverableByteForByte(_ format: ObservationFormat) throws {
        // (Two lists with their types spelled out: one expression of both was too much for the type checker.)
        let jsonLines: [[UInt8]] = [
            Array(#"{"type":"fix","device":"caf"#.utf8) + [0xE9] + Array(#"","t":1,"lat":0,"lon":0,"accuracy":1}"#.utf8),
            Array(#"{"type":"fix","device":"d2","t":1,"lat":95,"lon":0,"accuracy":1}"#.utf8),
            [0xFF, 0xFE, 0x7B, 0x00],
            Array(#"{"type":"fix","device":"d3","t":1,"lat":1,"lon":0,"accuracy":"#.utf8) + [0xC3],
        ]
        let csvLines: [[UInt8]] = [
            Array("fix,caf".utf8) + [0xE9] + Array(",1,0,0,1".utf8),
            Array("fix,d2,1,95,0,1".utf8),
            Array("fix,\"d".utf8) + [0xF0, 0x9F] + Array("\",1,0,0,1".utf8),
            Array("fix,d3,1,1,0,1,".utf8) + [0x80],
        ]
        let badLines = format == .jsonLines ? jsonLines : csvLines
        var input: [UInt8] = format == .csv ? Array("type,device,t,lat,lon,accuracy\n".utf8) : []
        for line in badLines { input += line + [0x0A] + Array((format == .csv ? "fix,ok,5,1,1,1" : Self.fix).utf8) + [0x0A] }
        let folder = try ToolProcess.folder("quarantine-bytes")
        let observations = folder + "/obs." + format.rawValue
        try Data(input).write(to: URL(fileURLWithPath: observations))
        let run = try ToolProcess.run(["evaluate", "--conditions", Fixture.path("city/conditions.geojson"), "--observations", observations,
                                       "--quarantine", folder + "/bad.jsonl", "--out", "/dev/null"])
        #expect(run.status == 0, "\(run.stderr)")
        let quarantine = try String(contentsOfFile: folder + "/bad.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(quarantine.count == badLines.count)
        for (line, expected) in zip(quarantine, badLines) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            let recovered: [UInt8]
            if let text = object["record"] as? String {
                recovered = Array(text.utf8)
                #expect(object["recordBase64"] == nil)
            } else {
                recovered = Array(Data(base64Encoded: object["recordBase64"] as? String ?? "") ?? Data())
            }
            #expect(recovered == expected, "\(line)")
        }
    }

    /// No text holds U+0000, in either format: a NUL written raw in a CSV cell is refused as one
    /// escaped in a JSON string is (JSON refuses it raw already) — on the CSV reader's fast path (a
    /// plain fix) and its general path (a quoted cell, a sighting), whichever field holds it.
    @Test(arguments: [
        "type,device,t,lat,lon,accuracy\nfix,d\u{0}1,1,0,0,1\n",
        "type,device,t,lat,lon,accuracy\nfix,\"d\u{0}1\",1,0,0,1\n",
        "type,device,t,lat,lon,accuracy\nfix\u{0},d1,1,0,0,1\n",
        "type,device,t,uuid,major,minor,rssi\nsighting,d\u{0},1,E2C56DB5-DFFB-48D2-B060-D0F5A71096E0,1,2,-60\n",
        "type,device,t,what,purpose\nrequest,d1,1,temporaryFullAccuracy,p\u{0}\n",
        #"{"type":"fix","device":"d\u00001","t":1,"lat":0,"lon":0,"accuracy":1}"# + "\n",
        #"{"type":"request","device":"d1","t":1,"what":"temporaryFullAccuracy","purpose":"\u0000"}"# + "\n",
        "{\"type\":\"fix\",\"device\":\"d\u{0}1\",\"t\":1,\"lat\":0,\"lon\":0,\"accuracy\":1}\n",
    ])
    func aNULIsRefusedInBothFormats(_ text: String) throws {
        let path = try Fixture.write(text, named: text.hasPrefix("{") ? "nul.jsonl" : "nul.csv")
        for threads in [1, 2] {
            var reader = try ObservationReader(path: path)
            reader.threads = threads
            var fixes: [PlainFixRecord] = []
            _ = reader.readPlainFixes(into: &fixes, limit: 1 << 16)
            var results = fixes.isEmpty ? [] : ["a plain fix"]
            while let next = reader.next() { results.append("\(next)") }
            #expect(results.count == 1 && (results[0].contains("U+0000") || results[0].contains("control character")), "\(results)")
        }
    }

    /// Other control characters are text like any other: a tab written raw in a CSV cell (CSV has no
    /// escapes) and escaped in JSON make the same name.
    @Test func aTabIsTheSameNameInBothFormats() throws {
        let csv = try Fixture.write("type,device,t,lat,lon,accuracy\nfix,tab\there,1,0,0,1\n", named: "tab.csv")
        let json = try Fixture.write(#"{"type":"fix","device":"tab\there","t":1,"lat":0,"lon":0,"accuracy":1}"# + "\n", named: "tab.jsonl")
        var fromCSV = try ObservationReader(path: csv), fromJSON = try ObservationReader(path: json)
        guard case .success(let a)? = fromCSV.next(), case .success(let b)? = fromJSON.next() else {
            Issue.record("a tab in a name was refused")
            return
        }
        #expect(a.device == "tab\there" && b.device == a.device)
    }

    /// No message quotes more than a bounded prefix of a value from the input, however long it is.
    @Test(arguments: [
        #"{"type":"TYPE","device":"d","t":1}"#,
        #"{"type":"fix","device":"d","t":"TYPE","lat":0,"lon":0,"accuracy":1}"#,
        #"{"type":"fix","device":"d","t":1,"lat":"TYPE","lon":0,"accuracy":1}"#,
        #"{"type":"app","device":"d","t":1,"state":"TYPE"}"#,
        #"{"type":"sighting","device":"d","t":1,"uuid":"TYPE","major":1,"minor":1,"rssi":-1}"#,
        #"{"TYPE":1}"#,
        #"{"type":"fix","device":"d","t":1,"lat":1TYPE}"#,
        "type,device,t,lat,lon,accuracy\nfix,d,1,TYPE,0,1",
        "type,device,t,lat,lon,accuracy,TYPE\nfix,d,1,0,0,1,1",
    ])
    func messagesQuoteABoundedPrefix(_ template: String) throws {
        let huge = String(repeating: "7", count: 1_000_000)
        let text = template.replacingOccurrences(of: "TYPE", with: template.contains("lat\":1TYPE") ? huge : "q" + huge) + "\n"
        let path = try Fixture.write(text, named: template.hasPrefix("{") ? "huge.jsonl" : "huge.csv")
        var reader = try ObservationReader(path: path)
        var messages: [String] = []
        while let next = reader.next() { if case .failure(let error) = next { messages.append(error.description) } }
        #expect(messages.count == 1)
        #expect(messages.allSatisfy { $0.utf8.count < 2_000 + path.utf8.count }, "\(messages.map { $0.utf8.count })")
    }
}
