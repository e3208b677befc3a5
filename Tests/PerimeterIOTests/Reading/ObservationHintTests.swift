import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Hints for the commonest mistakes in an observations file: times in milliseconds or microseconds,
/// and a CSV file separated by semicolons.
@Suite struct ObservationHintTests {
    static func firstError(_ text: String, named name: String) throws -> InputError? {
        let path = try Fixture.write(text, named: name)
        var reader = try ObservationReader(path: path)
        while let next = reader.next() {
            if case .failure(let error) = next { return error }
        }
        return nil
    }

    @Test(arguments: [
        ("1772352000123", "1772352000123 looks like Unix milliseconds: t is in seconds (1772352000.123)"),
        ("1772352000000", "1772352000000 looks like Unix milliseconds: t is in seconds (1772352000)"),
        ("1772352000123456", "1772352000123456 looks like Unix microseconds: t is in seconds (1772352000.123456)"),
        ("1772352000123456789", "1772352000123456789 looks like Unix nanoseconds: t is in seconds (1772352000.123456789)"),
    ])
    func aTimeInSmallerUnitsIsHintedAt(_ t: String, _ hint: String) throws {
        let json = try Self.firstError(#"{"type":"fix","device":"a","t":"# + t + #","lat":48.8,"lon":2.3,"accuracy":5}"# + "\n",
                                       named: "ms.jsonl")
        #expect(json?.field == "t")
        #expect(json?.message == "expected an RFC 3339 time (2026-03-01T08:00:00Z) or Unix seconds; " + hint)
        let csv = try Self.firstError("type,device,t,lat,lon,accuracy\nfix,a,\(t),48.8,2.3,5\n", named: "ms.csv")
        #expect(csv?.line == 2 && csv?.message.hasSuffix(hint) == true, "\(String(describing: csv))")
    }

    /// Numbers that are no such time get no hint.
    @Test(arguments: ["17723520001", "1772352000123.5", "-", "12345678901234567890123"])
    func otherBadTimesGetNoHint(_ t: String) throws {
        let error = try Self.firstError("type,device,t,lat,lon,accuracy\nfix,a,\(t),48.8,2.3,5\n", named: "bad.csv")
        #expect(error?.message == "expected an RFC 3339 time (2026-03-01T08:00:00Z) or Unix seconds")
    }

    @Test func aSemicolonSeparatedHeaderIsNamedAsSuch() throws {
        let error = try Self.firstError("type;device;t;lat;lon;accuracy\nfix;a;1772352000;48,8;2,3;5\n", named: "semicolons.csv")
        #expect(error?.line == 1 && error?.field == nil)
        #expect(error?.message.hasPrefix("the CSV header has semicolons and no comma: cells must be separated by commas") == true)
        // A header with commas is read as always, a semicolon in it an unknown column.
        let mixed = try Self.firstError("type,device;t,lat,lon,accuracy\n", named: "mixed.csv")
        #expect(mixed?.field == "device;t")
    }
}
