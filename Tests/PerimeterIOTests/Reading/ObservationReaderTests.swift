import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Bad observation records: each named by file, line and field; stop by default, quarantine on request.
@Suite struct ObservationReaderTests {
    static func firstError(_ text: String, name: String = "obs.jsonl") throws -> InputError? {
        let path = try Fixture.write(text, named: name)
        var reader = try ObservationReader(path: path)
        while let next = reader.next() {
            if case .failure(let error) = next { return error }
        }
        return nil
    }

    static let good = #"{"type":"fix","device":"d","t":"2026-03-01T08:00:00Z","lat":48.85,"lon":2.35,"accuracy":5}"#

    @Test(arguments: [
        (#"{"type":"fix","device":"d","t":"2026-03-01T08:00:01Z","lon":2.35,"accuracy":5}"#, "lat", "missing"),
        (#"{"type":"fix","device":"d","t":"2026-03-01T08:00:01Z","lat":"north","lon":2.35,"accuracy":5}"#, "lat", "expected a number"),
        (#"{"type":"fix","device":"d","t":"yesterday","lat":1,"lon":2.35,"accuracy":5}"#, "t", "RFC 3339"),
        (#"{"type":"fix","device":"d","t":"2026-02-30T08:00:00Z","lat":1,"lon":2.35,"accuracy":5}"#, "t", "RFC 3339"),
        (#"{"type":"fix","device":"d","t":17723520001,"lat":1,"lon":2.35,"accuracy":5}"#, "t", "Unix seconds"),
        (#"{"type":"fix","device":"d","t":1,"lat":1,"lon":2,"accuracy":5,"sped":3}"#, "sped", "has no field"),
        (#"{"type":"teleport","device":"d","t":1}"#, "type", "unknown record type"),
        (#"{"type":"sighting","device":"d","t":1,"uuid":"x","major":1,"minor":2,"rssi":-50}"#, "uuid", "expected a UUID"),
        (#"{"type":"sighting","device":"d","t":1,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1.5,"minor":2,"rssi":-50}"#, "major", "integer"),
        (#"{"type":"fix","device":"","t":1,"lat":1,"lon":2,"accuracy":5}"#, "device", "empty"),
    ])
    func badFieldsAreNamed(_ record: String, _ field: String, _ message: String) throws {
        let error = try #require(try Self.firstError(Self.good + "\n" + record + "\n"))
        #expect(error.line == 2)
        #expect(error.field == field)
        #expect(error.message.contains(message), "\(error)")
    }

    @Test func brokenJSONAndCSVAreNamed() throws {
        let json = try #require(try Self.firstError(Self.good + "\n{\"type\":\"fix\",\n"))
        #expect(json.line == 2)
        #expect(json.field == nil)
        #expect(json.message.hasPrefix("not a JSON object"))

        let header = "type,device,t,lat,lon,accuracy\n"
        let cells = try #require(try Self.firstError(header + "fix,d,1,1,2\n", name: "obs.csv"))
        #expect(cells.line == 2)
        #expect(cells.message.contains("expected 6 cells"))
        let column = try #require(try Self.firstError("type,device,t,latitude\n", name: "obs.csv"))
        #expect(column.field == "latitude")
        #expect(column.message.contains("unknown column"))
        let quoted = try #require(try Self.firstError(header + "fix,\"d,1,1,2,3\n", name: "obs.csv"))
        #expect(quoted.message.contains("unterminated"))
    }

    @Test func csvQuotingAndEmptyCellsWork() throws {
        let path = try Fixture.write("type,device,t,lat,lon,accuracy,speed\nfix,\"a, \"\"quoted\"\" device\",1709280000.5,1,2,3,\n", named: "q.csv")
        var reader = try ObservationReader(path: path)
        let record = try #require(try reader.next()?.get())
        #expect(record.device == "a, \"quoted\" device")
        guard case .fix(let fix) = record.observation else { Issue.record("not a fix"); return }
        #expect(fix.speed == nil)
        #expect(fix.time == Timestamp(nanosecondsSinceEpoch: 1_709_280_000_500_000_000))
    }

    /// Runs the tool on `records` with the city conditions.
    static func evaluate(_ records: [String], extra: [String] = []) throws -> (EndToEndTests.Run, String) {
        let path = try Fixture.write(records.joined(separator: "\n") + "\n", named: "obs.jsonl")
        let run = try EndToEndTests.run(["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", path] + extra)
        return (run, path)
    }

    static let stream = [
        good,
        #"{"type":"fix","device":"d","t":"2026-03-01T08:00:10Z","lat":95,"lon":2.35,"accuracy":5}"#,
        #"{"type":"fix","device":"d","t":"2026-03-01T07:59:00Z","lat":48.85,"lon":2.35,"accuracy":5}"#,
        #"{"type":"fix","device":"d","t":"2026-03-01T08:00:20Z","lat":48.8606,"lon":2.3376,"accuracy":5}"#,
    ]

    /// Every record and error, one per line, that reading `text` gives.
    static func outcomes(_ text: String, name: String) throws -> [Result<ObservationRecord, InputError>] {
        var reader = try ObservationReader(path: try Fixture.write(text, named: name))
        var all: [Result<ObservationRecord, InputError>] = []
        while let next = reader.next() { all.append(next) }
        return all
    }

    /// A CSV cell holds a number as JSON writes one, so that a recording reads the same in either
    /// format: every spelling below, in every numeric field, on the CSV reader's fast path (plain
    /// cells) and its general one (a quoted device cell), gives the JSON Lines reader's record, or an
    /// error on the field where JSON Lines gives any error (JSON's own names no field for `01`).
    @Test func csvNumbersAreReadAsJSONLinesReadsThem() throws {
        let spellings = ["1", "-0", "0", "12.5", "-12.5", "0.5", "1e1", "1E+1", "2.5e-1", "+1", ".5", "1.", "01", "-01", "00.5",
                         "0x10", "0x1p3", "1_0", " 1", "1 ", "inf", "nan", "Infinity", "1e", "-", "--1", "1e400", "1.5.5", "١"]
        // (field, a good value, whether the field is an integer, the record's other fields)
        let fix = ["t": "1772352000", "lat": "48.5", "lon": "2.25", "accuracy": "5", "speed": "3"]
        let sighting = ["t": "1772352000", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": "1", "minor": "2", "rssi": "-60", "power": "-59"]
        var problems: [String] = [], compared = 0
        for (type, fields, numeric) in [("fix", fix, ["t", "lat", "lon", "accuracy", "speed"]),
                                        ("sighting", sighting, ["t", "major", "minor", "rssi", "power"])] {
            let columns = fields.keys.sorted()
            for field in numeric {
                for spelling in spellings {
                    var values = fields
                    values[field] = spelling
                    let json = "{\"type\":\"\(type)\",\"device\":\"d\"," + columns.map { key in
                        let v = values[key]!
                        return "\"\(key)\":" + (key == "uuid" ? "\"\(v)\"" : v)
                    }.joined(separator: ",") + "}\n"
                    let expected = try Self.outcomes(json, name: "spelling.jsonl")
                    for quotedDevice in [false, true] {
                        let csv = "type,device," + columns.joined(separator: ",") + "\n" + type + "," + (quotedDevice ? "\"d\"" : "d") + ","
                            + columns.map { values[$0]! }.joined(separator: ",") + "\n"
                        let got = try Self.outcomes(csv, name: "spelling.csv")
                        compared += 1
                        // (Space around a JSON value is not the value's; in a CSV cell it is, and refused.)
                        let spaced = spelling.contains(" ")
                        switch (expected.first, got.first) {
                        case (.success(let a)?, .success(let b)?) where !spaced && a.observation == b.observation && b.line == 2: break
                        case (.failure?, .failure(let e)?) where e.line == 2 && e.field == field: break
                        case (.success?, .failure(let e)?) where spaced && e.line == 2 && e.field == field: break
                        default:
                            func brief(_ r: Result<ObservationRecord, InputError>?) -> String {
                                switch r {
                                case .success(let record)?: "\(record.observation)"
                                case .failure(let error)?: error.message
                                case nil: "nothing"
                                }
                            }
                            problems.append("\(type) \(field) = \"\(spelling)\" (quoted device: \(quotedDevice)): JSON Lines \(brief(expected.first)); CSV \(brief(got.first))")
                        }
                    }
                }
            }
        }
        #expect(compared == 2 * 5 * spellings.count * 2)
        #expect(problems.isEmpty, "\(problems.count): \(problems.prefix(6).joined(separator: "\n"))")
    }

    @Test func defaultStopsAtTheFirstBadRecordWithFileLineAndField() throws {
        let (run, path) = try Self.evaluate(Self.stream)
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(path):2: field \"lat\": latitude 95.0 is outside −90…90"), "\(run.stderr)")
        #expect(!run.stdout.isEmpty)  // events of line 1 were written before stopping
    }

    @Test func quarantineWritesEachBadRecordWithItsReasonAndGoesOn() throws {
        let quarantine = Fixture.temporaryPath("quarantine.jsonl")
        let (run, path) = try Self.evaluate(Self.stream, extra: ["--quarantine", quarantine])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("4 records read, 2 rejected"))
        let lines = try String(contentsOfFile: quarantine, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        #expect(first["file"] as? String == path)
        #expect(first["line"] as? Int == 2)
        #expect(first["field"] as? String == "lat")
        #expect(first["record"] as? String == Self.stream[1])
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
        #expect(second["line"] as? Int == 3)
        #expect(second["field"] as? String == "t")
        #expect(second["record"] as? String == Self.stream[2])  // a plain fix, refused by the engine's batch
        #expect((second["reason"] as? String)?.contains("older than device \"d\"'s previous record") == true)
        // Line 4 was still evaluated: it moved the device.
        #expect(run.stdout.contains("\"cause\":4"))
    }

    @Test func outOfOrderRecordsAreNeverReordered() throws {
        var engine = try Fixture.engine("city/conditions.geojson")
        var events: [MonitorEvent] = []
        let later = Fix(time: T0.t.adding(TimeSpan(seconds: 10)), coordinate: Coordinate(latitude: 48.85, longitude: 2.35), horizontalAccuracy: 5)
        try engine.process(.fix(later), device: "d", cause: 1, into: &events)
        let count = events.count
        #expect(throws: ObservationProblem.self) {
            try engine.process(.fix(Fix(time: T0.t, coordinate: later.coordinate, horizontalAccuracy: 5)), device: "d", cause: 2, into: &events)
        }
        #expect(events.count == count)
    }
}

extension ObservationReaderTests {
    /// A read error ends the input with an error naming the file, never as if the file had ended.
    /// (A process's own memory opens as a file whose first read fails: page 0 is never mapped. A
    /// directory once stood in for a failing file; it is refused as it is opened now.)
    @Test func aReadErrorIsReportedNotTakenForTheEnd() throws {
        let failing = "/proc/self/mem"
        var reader = try ObservationReader(path: failing, format: .jsonLines)
        guard case .failure(let error)? = reader.next() else {
            Issue.record("expected a read error")
            return
        }
        #expect(error.file == failing)
        #expect(error.message.contains("cannot read the file"))
        #expect(reader.next() == nil)
        let run = try EndToEndTests.run(["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", failing])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot read the file"), "\(run.stderr)")
    }
}
