import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// A reader started at the position another reader of the same file reached reads exactly the
/// records the first would have read next, with the same lines: what a run that goes on after a stop
/// relies on. JSON Lines and CSV, with a byte order mark, CRLF line ends, blank lines and a bad
/// record.
@Suite struct ReadPositionTests {
    static let jsonLines = "\u{FEFF}" + [
        #"{"type":"fix","device":"a","t":1,"lat":48.1,"lon":2.1,"accuracy":5}"#,
        "",
        #"{"type":"sighting","device":"b","t":2,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"rssi":-60}"#,
        #"{"type":"app","device":"a","t":3,"state":"background"}"#,
        #"{"type":"fix","device":"a","t":4,"lat":95,"lon":2.1,"accuracy":5}"#,
        #"{"type":"fix","device":"c","t":5,"lat":48.2,"lon":2.2,"accuracy":5}"#,
    ].joined(separator: "\r\n") + "\r\n"

    static let csv = "\u{FEFF}" + [
        "type,device,t,lat,lon,accuracy,state",
        "fix,a,1,48.1,2.1,5,",
        "",
        "app,a,3,,,,background",
        "fix,a,4,95,2.1,5,",
        "fix,c,5,48.2,2.2,5,",
        "fix,d,6,48.3,2.3,5,",
    ].joined(separator: "\r\n")

    /// Each record as text: its line, device and observation, or its error.
    static func describe(_ next: Result<ObservationRecord, InputError>) -> String {
        switch next {
        case .success(let record): "\(record.line) \(record.device) \(record.observation)"
        case .failure(let error): "\(error.line ?? -1) error \(error.field ?? "") \(error.message)"
        }
    }

    @Test(arguments: ["jsonl", "csv"])
    func aReaderStartedAtAPositionReadsOnAsTheFirstWould(_ ext: String) throws {
        let path = try Fixture.write(ext == "csv" ? Self.csv : Self.jsonLines, named: "positions." + ext)
        var whole = try ObservationReader(path: path)
        var all: [String] = [], positions: [ReadPosition] = []
        positions.append(.start)
        while let next = whole.next() {
            all.append(Self.describe(next))
            let position = whole.position
            positions.append(try #require(position))
        }
        #expect(all.count == 5)
        for (k, position) in positions.enumerated() {
            var reader = try ObservationReader(path: path)
            try reader.start(at: position)
            let format = reader.format
            #expect(format == (ext == "csv" ? .csv : .jsonLines))
            var rest: [String] = []
            while let next = reader.next() { rest.append(Self.describe(next)) }
            #expect(rest == Array(all[k...]), "from record \(k) (byte \(position.offset), line \(position.line))")
        }
    }
}
