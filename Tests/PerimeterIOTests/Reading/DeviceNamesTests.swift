import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

@Suite struct DeviceNamesTests {
    @Test func numbersNamesInOrderOfFirstAppearanceAndFindsThemAgain() {
        var names = DeviceNames()
        var rng = SplitMix64(seed: 41)
        var expected: [String: Int32] = [:]
        for _ in 0..<50_000 {
            let name = ["d\(Int.random(in: 0..<5000, using: &rng))", "é\(Int.random(in: 0..<50, using: &rng))", "",
                        String(repeating: "x", count: Int.random(in: 1..<80, using: &rng))].randomElement(using: &rng)!
            let got = Array(name.utf8).withUnsafeBufferPointer { names.number($0) }
            let want = expected[name] ?? Int32(expected.count)
            expected[name] = want
            #expect(got == want)
        }
        #expect(names.names.count == expected.count)
        for (name, number) in expected { #expect(names.names[Int(number)] == name) }
        #expect([UInt8]([0x64, 0xFF]).withUnsafeBufferPointer { names.number($0) } == nil)
    }

    @Test func theReaderNumbersDevicesOnBothPaths() throws {
        // Fast-path fixes and general-path records (a sighting, an app record) share the numbering.
        let path = try Fixture.write("""
            {"type":"fix","device":"b","t":1,"lat":1,"lon":2,"accuracy":5}
            {"type":"app","device":"a","t":2,"state":"foreground"}
            {"type":"fix","device":"a","t":3,"lat":1,"lon":2,"accuracy":5}
            {"type":"fix","device":"b","t":4,"lat":1,"lon":2,"accuracy":5,"speed":1}
            {"type":"fix","device":"\\u0062","t":5,"lat":1,"lon":2,"accuracy":5}

            """, named: "numbers.jsonl")
        var reader = try ObservationReader(path: path)
        var numbers: [String] = []
        while let next = reader.next() {
            let record = try next.get()
            numbers.append("\(record.device)=\(record.deviceNumber)")
        }
        #expect(numbers == ["b=0", "a=1", "a=1", "b=0", "b=0"])
    }
}
