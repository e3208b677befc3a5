import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The conditions reader on mutated GeoJSON: tokens replaced by other JSON values (numbers at and
/// beyond every limit, strings, nulls, arrays, objects), members dropped or doubled, brackets cut,
/// bytes flipped. Whatever the file, the reader must return or report, never crash or hang; every
/// problem must name a line inside the file; the same file must give the same answer on 1 and 3
/// threads; and whatever it accepts must be usable: an engine takes every condition, and fixes and
/// sightings run against them.
@Suite struct ConditionsFuzzTests {
    static let fixture = try! Data(contentsOf: URL(fileURLWithPath: "Fixtures/city/conditions.geojson"))

    /// JSON values a token may become: numbers at and past the limits the reader checks (latitude,
    /// longitude, radius, major/minor), and values of every other kind.
    static let replacements = [
        "0", "-0", "1", "-1", "90", "-90", "90.0000001", "180", "-180", "180.0000001", "1000000", "1000000.0001", "65535", "65536",
        "-65536", "1e308", "1e400", "-1e400", "5e-324", "1.5", "3", "\"\"", "\"x\"", "\"Point\"", "\"Polygon\"", "\"MultiPolygon\"",
        "\"Feature\"", "\"FeatureCollection\"", "\"satisfied\"", "\"unknown\"", "\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"", "null",
        "true", "[]", "[[]]", "[[[]]]", "[0,0]", "[0]", "[0,0,0]", "[[[0,0],[1,0],[1,1],[0,0]]]", "[[[0,0],[1,0],[0,0]]]",
        "[[[0,0],[1,1],[1,0],[0,1],[0,0]]]", "{}", "{\"major\":1}", "{\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"minor\":2}",
    ]

    /// The file's tokens: runs of a JSON string, a number or a literal, with their byte ranges.
    static func tokens(_ bytes: [UInt8]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                var j = i + 1
                while j < bytes.count && bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
                result.append(i..<min(j + 1, bytes.count))
                i = j + 1
            } else if b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7A) {
                var j = i + 1
                while j < bytes.count, ",]} \n\r\t:".utf8.contains(bytes[j]) == false { j += 1 }
                result.append(i..<j)
                i = j
            } else {
                i += 1
            }
        }
        return result
    }

    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        let tokens = Self.tokens(bytes)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...5:  // a token becomes another value (ranges taken from the original: apply to the original once)
                let t = tokens.randomElement(using: &rng)!
                guard t.upperBound <= out.count else { continue }
                out.replaceSubrange(t, with: Array(replacements.randomElement(using: &rng)!.utf8))
                return out
            case 6:  // a cut
                out = Array(out[..<Int.random(in: 0..<out.count, using: &rng)])
            case 7:  // a byte flipped to a structural or other character
                let k = Int.random(in: 0..<out.count, using: &rng)
                out[k] = Array("{}[],:\"0-e. x\\".utf8).randomElement(using: &rng)!
            case 8:  // a line doubled (a member twice, or a broken structure)
                let lines = out.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                let k = Int.random(in: 0..<lines.count, using: &rng)
                var joined: [UInt8] = []
                for (n, line) in lines.enumerated() {
                    joined += line + [UInt8(ascii: "\n")]
                    if n == k { joined += line + [UInt8(ascii: "\n")] }
                }
                out = joined
            default:  // a line dropped
                let lines = out.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                let k = Int.random(in: 0..<lines.count, using: &rng)
                out = Array(lines.enumerated().filter { $0.offset != k }.map(\.element).joined(separator: [UInt8(ascii: "\n")]))
            }
        }
        return out
    }

    @Test func mutatedFilesAreReadOrReportedNeverCrash() throws {
        let original = [UInt8](Self.fixture)
        let lineCount = original.count { $0 == UInt8(ascii: "\n") } + 1
        var rng = SplitMix64(seed: 0xF0F0)
        var accepted = 0, refused = 0, partly = 0
        for _ in 0..<4000 {
            let bytes = Self.mutate(original, &rng)
            let data = Data(bytes)
            // (Repair, GEOS's make-valid, also meets what the mutations make of polygons: rings of two
            // points, bow ties, zero areas.)
            let repair = Bool.random(using: &rng)
            let (one, oneProblems) = ConditionsReader.parse(data, file: "f.geojson", repair: repair, threads: 1)
            let (three, threeProblems) = ConditionsReader.parse(data, file: "f.geojson", repair: repair, threads: 3)
            #expect(one == three && oneProblems == threeProblems, "threads change the answer for:\n\(String(decoding: bytes, as: UTF8.self))")
            let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
            for p in oneProblems {
                #expect(p.line.map { $0 >= 1 && $0 <= max(lines, lineCount) } ?? true, "\(p) outside the file")
                #expect(!p.message.isEmpty)
            }
            if oneProblems.isEmpty { accepted += 1 } else if one.isEmpty { refused += 1 } else { partly += 1 }
            // Whatever was read is usable.
            var engine = MonitoringEngine()
            engine.batchThreads = 2
            for d in one { try engine.add(d.condition, identifier: d.identifier, assuming: d.assuming) }
            var events: [MonitorEvent] = []
            for (k, (lat, lon)) in [(48.8606, 2.3376), (48.859, 2.3615), (0.0, 0.0), (90.0, 180.0), (-90.0, -180.0)].enumerated() {
                try engine.process(.fix(Fix(time: Timestamp(nanosecondsSinceEpoch: Int64(k) * 1_000_000_000),
                                            coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: 50)),
                                   device: "d", cause: k, into: &events)
            }
            try engine.process(.sighting(BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: 9_000_000_000),
                                                        identity: BeaconIdentity(uuid: T.uuid, major: 1, minor: 2), rssi: -60)),
                               device: "d", cause: 9, into: &events)
            engine.finish(into: &events)
        }
        print("ConditionsFuzz: \(accepted) accepted whole, \(partly) in part, \(refused) refused")
        #expect(accepted > 100 && partly > 300 && refused > 100)
    }
}

private enum T {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
}
