import Foundation
import Testing
import PerimeterTestSupport
@testable import Perimeter
@testable import PerimeterIO

/// Conditions read feature by feature, on one thread or several, give exactly what the whole-tree
/// reader gives: the same definitions in the same order, the same problems in the same order, each
/// with the same line, field and message; and text that is not JSON gets the whole parse's error.
@Suite struct ConditionsLoadingTests {
    /// A generated conditions file and a few facts about it that the tests check by name.
    struct Generated {
        var text: String
        var features: Int
        /// A duplicate whose first use is dozens of chunks earlier: its line, and the line it names.
        var farDuplicate: (index: Int, line: Int, firstLine: Int, identifier: String)
    }

    /// A few thousand features of every kind, good and bad, some spread over several lines, some with
    /// brackets and quotes inside strings.
    static let generated = generate(count: 3000)
    /// The same kinds, fewer, for tests that parse many variants.
    static let small = generate(count: 300)

    static func generate(count: Int) -> Generated {
        var random = SplitMix64(seed: 0xC0DE_F00D)
        func number(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &random) }
        func square(_ lon: Double, _ lat: Double, _ half: Double) -> String {
            "[[\(lon - half),\(lat - half)],[\(lon + half),\(lat - half)],[\(lon + half),\(lat + half)],[\(lon - half),\(lat + half)],[\(lon - half),\(lat - half)]]"
        }
        func roughCircle(_ lon: Double, _ lat: Double, _ radius: Double, vertices: Int) -> String {
            var points: [String] = []
            for k in 0..<vertices {
                let angle = Double(k) / Double(vertices) * 2 * .pi
                let r = radius * Double.random(in: 0.7...1.0, using: &random)
                points.append("[\(lon + r * cos(angle)),\(lat + r * sin(angle))]")
            }
            return "[" + (points + [points[0]]).joined(separator: ",") + "]"
        }
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        var features: [String] = []
        var identifiers: [String?] = []
        for i in 0..<count {
            let lon = number(-170...170), lat = number(-80...80)
            var id = "f\(i)"
            if i % 97 == 5 { id = "odd \\\"]}{[\\\\ \\u00e9 \(i)" }  // escaped quote, backslash, brackets
            let head = #"{"type":"Feature","id":"\#(id)","#
            var feature: String
            switch i % 41 {
            case 1: feature = head + #""geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]},"properties":{}}"#  // bow-tie
            case 3: feature = head + #""geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"radius":\#(["0", "-5", "\"100\"", "1000001"][i % 4])}}"#
            case 7: feature = #"{"type":"Feature","geometry":null,"properties":{"beacon":{"uuid":"\#(uuid)"}}}"#  // no id
            case 9: feature = ["7", "\"feature\"", "null", "[1,2]"][i % 4]
            case 11: feature = #"{"type":"Thing","id":"\#(id)","geometry":null,"properties":{}}"#
            case 13: feature = head + #""geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{}}"#
            case 15: feature = head + #""geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]},"properties":{}}"#  // unclosed
            case 17: feature = head + #""geometry":{"type":"Point","coordinates":[200,\#(lat)]},"properties":{"radius":5}}"#
            case 19: feature = head + #""geometry":{"type":"Polygon","coordinates":[[[0,0],["a",1],[1,1],[0,0]]]},"properties":{}}"#
            case 21: feature = head + #""geometry":null,"properties":{"beacon":{"uuid":"\#(["nope", uuid][i % 2])","minor":3}}}"#
            case 23: feature = head + #""geometry":null,"properties":{"beacon":{"uuid":"\#(uuid)","major":70000}}}"#
            case 25: feature = head + #""geometry":null,"properties":[]}"#
            case 27: feature = head + #""geometry":null,"properties":{"assuming":"maybe","beacon":{"uuid":"\#(uuid)"}}}"#
            case 29: feature = head + #""geometry":null,"properties":{"radius":5}}"#
            case 31: feature = head + #""geometry":{"type":"Polygon"},"properties":{}}"#
            case 33: feature = head + #""geometry":"here","properties":{}}"#
            case 35: feature = #"{"type":"Feature","id":"","geometry":null,"properties":{}}"#
            case 37, 39:
                // A duplicate of a feature anything from one to a few thousand features earlier.
                let earlier = Int.random(in: 0..<i, using: &random)
                if let earlierID = identifiers[earlier] { id = earlierID }
                feature = #"{"type":"Feature","id":"\#(id)","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"radius":50}}"#
            default:
                switch i % 6 {
                case 0:
                    feature = head + #""geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"radius":\#(number(1...5000))\#(i % 12 == 0 ? #","assuming":"satisfied""# : "")}}"#
                case 1:
                    // Spread over lines, with a hole.
                    feature = head + "\n  \"geometry\": {\"type\": \"Polygon\",\n    \"coordinates\": [" + square(lon, lat, 0.5) + ",\n      "
                        + square(lon, lat, 0.1) + "]},\n  \"properties\": {\"assuming\": \"unsatisfied\"}\n}"
                case 2:
                    feature = head + #""geometry":{"type":"MultiPolygon","coordinates":[[\#(square(lon, lat, 0.2))],[\#(square(lon + 1, lat, 0.2))]]},"properties":null}"#
                case 3:
                    let beacon = [#"{"uuid":"\#(uuid)"}"#, #"{"uuid":"\#(uuid)","major":\#(i % 65536)}"#,
                                  #"{"uuid":"\#(uuid.lowercased())","major":1,"minor":\#(i % 65536)}"#][i % 3]
                    feature = head + #""geometry":null,"properties":{"beacon":\#(beacon)}}"#
                default:
                    feature = head + #""geometry":{"type":"Polygon","coordinates":[\#(roughCircle(lon, lat, 0.3, vertices: 6 + i % 11))]},"properties":{}}"#
                }
            }
            features.append(feature)
            identifiers.append(feature.hasPrefix(#"{"type":"Feature","id":""#) && id != "" ? id : nil)
        }
        // A duplicate far from its first use: feature 0 is in the first chunk, this one in the last.
        let far = count - 2
        features[far] = #"{"type":"Feature","id":"f0","geometry":null,"properties":{"beacon":{"uuid":"\#(uuid)"}}}"#
        var lines = [2]  // the line each feature starts on
        for feature in features { lines.append(lines.last! + 1 + feature.count { $0 == "\n" }) }
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
        return Generated(text: text, features: count, farDuplicate: (far, lines[far], lines[0], "f0"))
    }

    static func whole(_ text: String, repair: Bool = false) -> ([ConditionDefinition], [InputError]) {
        Array(text.utf8).withUnsafeBufferPointer { ConditionsReader.parseWhole($0, reader: FeatureReader(file: "g.geojson", repair: repair)) }
    }

    static func byFeature(_ text: String, threads: Int) -> ([ConditionDefinition], [InputError])? {
        Array(text.utf8).withUnsafeBufferPointer {
            ConditionsReader.parseByFeature($0, reader: FeatureReader(file: "g.geojson", repair: false), threads: threads)
        }
    }

    /// The generated file read by the whole-tree reader, and by the public entry point on one thread.
    static let reference = whole(generated.text)
    static let sequential = ConditionsReader.parse(Data(generated.text.utf8), file: "g.geojson", threads: 1)

    @Test(arguments: [3, 4])
    func severalThreadsReadExactlyWhatOneAndTheWholeTreeRead(threads: Int) throws {
        let generated = Self.generated, whole = Self.reference, one = Self.sequential
        // Feature by feature (not left to the whole parse, as text that is not JSON would be).
        let many = try #require(Self.byFeature(generated.text, threads: threads))
        #expect(many.0 == one.0)
        #expect(many.1 == one.1)
        #expect(one.0 == whole.0)
        #expect(one.1 == whole.1)
        // Element by element too, so that a failure names the first difference.
        for (a, b) in zip(many.1, whole.1) where a != b {
            Issue.record("first differing problem: \(a) ≠ \(b)")
            break
        }
        for (a, b) in zip(many.0, whole.0) where a != b {
            Issue.record("first differing definition: \(a.identifier) line \(a.line) ≠ \(b.identifier) line \(b.line)")
            break
        }

        // The file has what it should: good features of every kind and every kind of problem.
        #expect(whole.0.count > 1500)
        let kinds = Set(whole.0.map { definition -> String in
            switch definition.condition {
            case .circle: "circle"
            case .polygon(let p): p.polygons.count > 1 ? "multipolygon" : p.polygons[0].holes.isEmpty ? "polygon" : "hole"
            case .beacon: "beacon"
            }
        })
        #expect(kinds == ["circle", "polygon", "multipolygon", "hole", "beacon"])
        #expect(whole.0.contains { $0.identifier.contains("\"]}{[\\ é") })
        let messages = whole.1.map(\.message)
        for expected in ["duplicate identifier", "Self-intersection", "radius must be > 0", "expected a Feature object",
                         "non-empty string id", "expected \"Feature\"", "is not a condition", "out of range",
                         "expected a position", "expected a UUID", "minor without major", "expected an integer 0…65535",
                         "expected an object, got an array", "expected \"unknown\"", "needs properties.beacon",
                         "missing", "expected an object or null", "radius must be a number of metres, got a string"] {
            #expect(messages.contains { $0.contains(expected) }, "no problem says \(expected)")
        }
        let far = generated.farDuplicate
        let problem = try #require(whole.1.first { $0.field == #"features[\#(far.index)] (id "f0").id"# })
        #expect(problem.line == far.line)
        #expect(problem.message == "duplicate identifier \"f0\" (first used on line \(far.firstLine))")
        #expect(many.1.contains(problem))
        #expect(whole.1.filter { $0.message.hasPrefix("duplicate identifier") }.count > 100)
    }

    @Test func repairedPolygonsAreTheSameOnEveryThread() {
        let data = Data(Self.small.text.utf8)
        let one = ConditionsReader.parse(data, file: "g.geojson", repair: true, threads: 1)
        let three = ConditionsReader.parse(data, file: "g.geojson", repair: true, threads: 3)
        #expect(three.0 == one.0)
        #expect(three.1 == one.1)
        #expect(one.0 == Self.whole(Self.small.text, repair: true).0)
        #expect(!one.1.contains { $0.message.contains("Self-intersection") })
    }

    /// Deferring the features and parsing each alone gives the tree the whole parse gives, lines and all.
    @Test func deferredElementsParseToTheWholeTree() throws {
        let bytes = Array(Self.small.text.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            let whole = try JSONParser.parse(buffer)
            let (outline, elements) = try JSONParser.parse(buffer, deferringElementsOf: "features")
            let deferred = try #require(elements)
            #expect(deferred.count == Self.small.features)
            guard case .object(var collection) = outline, case .array(let empty)? = collection["features"], empty.isEmpty else {
                Issue.record("outline \(outline)")
                return
            }
            let index = try #require(collection.members.firstIndex { $0.key == "features" })
            collection.members[index].value = .array(try deferred.map { try JSONParser.parse(buffer, deferred: $0) })
            #expect(JSONValue.object(collection) == whole)
        }
    }

    /// Text that is not JSON, wherever the fault: the message and line of the whole parse.
    @Test func textThatIsNotJSONGetsTheWholeParsesError() throws {
        let text = Self.small.text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        /// The text with the first `target` on or after the middle line (or on `line`) replaced.
        func breaking(_ target: String, _ replacement: String, line: Int? = nil) -> String {
            var copy = lines
            let k = line.map { $0 - 1 } ?? copy.indices.dropFirst(lines.count / 2).first { copy[$0].contains(target) }!
            let range = copy[k].range(of: target)!
            copy[k].replaceSubrange(range, with: replacement)
            return copy.joined(separator: "\n")
        }
        let broken = [
            breaking(",\"geometry\"", "\"geometry\""),  // missing comma
            breaking("}}", "]}"),  // mismatched bracket
            breaking("\"Feature\"", "\"Fea\nture\""),  // raw newline in a string
            breaking("\"type\"", "\"type\\q\""),  // bad escape
            breaking(":[", ":[-"),
            breaking(":null", ":nul"),
            breaking(",", ",,"),
            breaking("\"radius\":", "\"radius\":0"),
            breaking("{", "[{", line: 2),  // unbalanced to the end
            breaking("}", "}}", line: 2),
            String(text.dropLast(3)),  // cut short
            text + "x",
            text.replacingOccurrences(of: "]}\n", with: "]\n"),
            "{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\"},\n]}",
            "{\"type\":\"FeatureCollection\",\"features\":[\n,{\"type\":\"Feature\"}]}",
            "{\"type\":\"FeatureCollection\",\"features\":[\n\"open]}",
            "{\"type\":\"FeatureCollection\",\"features\":[1 2]}",
        ]
        for (k, text) in broken.enumerated() {
            let whole = Self.whole(text)
            #expect(whole.0.isEmpty && whole.1.count == 1 && whole.1[0].message.hasPrefix("not JSON"), "case \(k): \(whole.1.prefix(3))")
            let many = ConditionsReader.parse(Data(text.utf8), file: "g.geojson", threads: 3)
            #expect(many.0 == whole.0, "case \(k)")
            #expect(many.1 == whole.1, "case \(k)")
            #expect(Self.byFeature(text, threads: 3) == nil, "case \(k)")
        }
    }

    /// A feature is parsed at the depth it has in the file, so the nesting limit falls where it did.
    @Test(arguments: 506...512)
    func nestingLimitIsTheWholeParses(depth: Int) throws {
        let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + Self.small.text.split(separator: "\n")[1].dropLast() + ",\n" + deep + "\n]}"
        let whole = Self.whole(text)
        let two = ConditionsReader.parse(Data(text.utf8), file: "g.geojson", threads: 2)
        #expect(two.0 == whole.0)
        #expect(two.1 == whole.1)
        #expect(whole.1.count == 1)
    }

    /// Collections whose `features` is missing, not an array, named twice, or empty.
    @Test func oddCollectionsReadAsBefore() {
        let feature = #"{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"radius":100}}"#
        let other = #"{"type":"Feature","id":"b","geometry":null,"properties":{"beacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}}}"#
        let texts = [
            "{\"type\":\"FeatureCollection\",\"features\":[\n\(feature),\n\(other)],\n\"features\":[\(other)]}",
            "{\"type\":\"FeatureCollection\",\"features\":{\"a\":[\(feature)]},\n\"features\":[\(other)]}",
            "{\"features\":[\n\(feature)],\n\"type\":\"Collection\"}",
            "{\"features\":[\n\(feature)],\n\"type\":\"FeatureCollection\",\"bbox\":[0,0,1,1],\"more\":{\"features\":[1]}}",
            "{\"type\":\"FeatureCollection\",\"features\":[]}",
            "{\"type\":\"FeatureCollection\",\"features\":[ ]}",
            "{\"type\":\"FeatureCollection\"}",
            "[{\"type\":\"FeatureCollection\",\"features\":[\(feature)]}]",
            "\"features\"",
            "",
            "  \n",
            "{\"type\":\"FeatureCollection\",\"features\":[\(feature),\(feature),\(other),\(feature)]}",
            "{\"type\":\"FeatureCollection\",\"features\":[\n  \(feature) ,\n\t\(other)\r\n]\n}\n",
        ]
        for text in texts {
            let whole = Self.whole(text)
            for threads in [1, 2] {
                let read = ConditionsReader.parse(Data(text.utf8), file: "g.geojson", threads: threads)
                #expect(read.0 == whole.0, "\(text)")
                #expect(read.1 == whole.1, "\(text)")
            }
        }
    }

    @Test func numbersWithoutTheirTextHaveTheSameValues() throws {
        let numbers = ["2.1257861594550715", "0", "-0", "-0.0", "1E-7", "48.85", "123456789012345678901234567890", "1e400", "-1e400", "5e-324"]
        let text = "[" + numbers.joined(separator: ",") + "]"
        guard case .array(let kept) = try JSONParser.parse(text),
              case .array(let dropped) = try JSONParser.parse(text, keepingNumberText: false) else {
            Issue.record("not arrays")
            return
        }
        #expect(kept.count == numbers.count && dropped.count == numbers.count)
        for (k, (a, b)) in zip(kept, dropped).enumerated() {
            guard case .number(let text, let value) = a, case .number(let none, let same) = b else {
                Issue.record("\(a), \(b)")
                continue
            }
            #expect(text == numbers[k], "the default keeps the text")
            #expect(none.isEmpty)
            #expect(value.bitPattern == same.bitPattern, "\(numbers[k])")
        }
        // The other entry points take the option too, and still default to keeping the text.
        #expect(try JSONParser.parse(Data("[1.50]".utf8)) == .array([.number(text: "1.50", value: 1.5)]))
        #expect(try JSONParser.parse(Data("[1.50]".utf8), keepingNumberText: false) == .array([.number(text: "", value: 1.5)]))
        #expect(try JSONParser.parse(Array("1.50".utf8), keepingNumberText: false) == .number(text: "", value: 1.5))
    }
}
