import Testing

@testable import PerimeterIO

/// The report's scan of the tool's own event lines: every field as the JSON parser would give it,
/// and any line not in the tool's exact form left to the parser.
@Suite struct EventLineScanTests {
    static func scan(_ line: String) -> EventLineScan? {
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { EventLineScan.scan(UnsafeBufferPointer($0)) }
    }

    @Test func theToolsLinesAreReadFieldByField() throws {
        let beacon = try #require(Self.scan(#"{"device":"dave","identifier":"store-any","state":"satisfied","date":"2026-03-01T08:01:10Z","delivery":"held","reason":"provisionalAlways","refinement":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":7},"diagnostics":["insufficientlyInUse","accuracyLimited"],"cause":23}"#))
        #expect(beacon.device == "dave" && beacon.identifier == "store-any" && beacon.state == "satisfied")
        #expect(beacon.date == "2026-03-01T08:01:10Z" && beacon.delivery == "held" && beacon.reason == "provisionalAlways")
        #expect(beacon.refinement == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0,1,7" && beacon.cause == 23)
        let plain = try #require(Self.scan(#"{"device":"Zoé","identifier":"louvre","state":"unsatisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":null,"refinement":null,"diagnostics":[],"cause":1}"#))
        #expect(plain.device == "Zoé" && plain.reason == nil && plain.refinement == "" && plain.cause == 1)
    }

    @Test(arguments: [
        #"{"device":"a\"b","identifier":"x","state":"satisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":null,"refinement":null,"diagnostics":[],"cause":1}"#,
        #"{"identifier":"x","device":"a","state":"satisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":null,"refinement":null,"diagnostics":[],"cause":1}"#,
        #"{"device":"a","identifier":"x","state":"satisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":null,"refinement":null,"diagnostics":[],"cause":1"#,
        #"{"device": "a","identifier":"x","state":"satisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":null,"refinement":null,"diagnostics":[],"cause":1}"#,
        #"{"device":"a","identifier":"x","state":"satisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":7,"refinement":null,"diagnostics":[],"cause":1}"#,
        #"{"device":"a","identifier":"x","state":"satisfied","date":"2026-03-01T08:00:00Z","delivery":"delivered","reason":null,"refinement":null,"diagnostics":[],"cause":1} x"#,
    ])
    func otherFormsAreLeftToTheParser(line: String) {
        #expect(Self.scan(line) == nil)
    }
}
