import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// A record older than its device's previous one is refused with both times stated exactly, as RFC
/// 3339 and as Unix seconds, so that the user finds them as the input writes them (the message once
/// gave rounded `Double` seconds only: `1772352000.5 < 1772352005.0 s since 1970`).
@Suite struct OutOfOrderWordingTests {
    @Test(arguments: [
        (Int64(1_772_352_005_000_000_000), "1772352005"),
        (1_772_352_005_250_000_000, "1772352005.25"),
        (1_772_352_005_000_000_001, "1772352005.000000001"),
        (0, "0"), (-500_000_000, "-0.5"), (-1_500_000_000, "-1.5"),
        (.max, "9223372036.854775807"), (.min, "-9223372036.854775808"),
    ])
    func unixSecondsAreWrittenExactly(_ nanoseconds: Int64, _ text: String) {
        let t = Timestamp(nanosecondsSinceEpoch: nanoseconds)
        #expect(t.unixSecondsText == text)
        #expect(RFC3339.parseUnixSeconds(text) == t)
    }

    @Test(arguments: [
        ("ooo.jsonl", """
            {"type":"fix","device":"a","t":"2026-03-01T08:00:05Z","lat":48.8,"lon":2.3,"accuracy":5}
            {"type":"fix","device":"a","t":"2026-03-01T08:00:00.123456789Z","lat":48.8,"lon":2.3,"accuracy":5}

            """, 2, "2026-03-01T08:00:00.123456789Z < 2026-03-01T08:00:05Z"),
        ("ooo.csv", """
            type,device,t,lat,lon,accuracy
            fix,a,1772352005,48.8,2.3,5
            fix,a,1772352000.123456789,48.8,2.3,5

            """, 3, "1772352000.123456789 < 1772352005"),
    ])
    func bothTimesAreStatedAsTheInputWritesThem(_ name: String, _ text: String, _ line: Int, _ times: String) throws {
        let path = try Fixture.write(text, named: name)
        let run = try ToolProcess.run(["evaluate", "--assume", "unsatisfied", "--conditions", Fixture.path("city/conditions.geojson"),
                                       "--observations", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(path):\(line): field \"t\": record is older than device \"a\"'s previous record ("), "\(run.stderr)")
        #expect(run.stderr.contains(times), "\(run.stderr)")
    }
}
