import Testing
@testable import Perimeter

/// `Fix` keeps its optional values in plain doubles: what goes in comes out, nil included.
@Suite struct FixTests {
    static let here = Coordinate(latitude: 48.85, longitude: 2.35)

    @Test func optionalValuesComeBackAsGiven() {
        let values: [Double?] = [nil, 0, -0.0, 3.5, -12, .infinity, .nan, .greatestFiniteMagnitude]
        for v in values {
            var fix = Fix(time: Timestamp(nanosecondsSinceEpoch: 0), coordinate: Self.here, horizontalAccuracy: 5,
                          speed: v, course: v, altitude: v)
            for read in [fix.speed, fix.course, fix.altitude] {
                #expect(read?.bitPattern == v?.bitPattern)
            }
            fix.speed = 7
            fix.altitude = nil
            #expect(fix.speed == 7 && fix.course?.bitPattern == v?.bitPattern && fix.altitude == nil)
        }
    }

    /// Equal fixes are equal and hash alike, a nil equal to nil; a value differs from nil.
    @Test func equalityAndHashing() {
        let a = Fix(time: Timestamp(nanosecondsSinceEpoch: 1), coordinate: Self.here, horizontalAccuracy: 5)
        var b = a
        #expect(a == b && a.hashValue == b.hashValue)
        b.course = 0
        #expect(a != b)
        b.course = nil
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        // (Smaller than with optional doubles, each padded to 16 bytes.)
        #expect(MemoryLayout<Fix>.stride == 56)
    }

    /// A batch record keeps what evaluation reads — time, position, accuracy — in 48 bytes; the
    /// rest of a fix comes back nil.
    @Test func batchRecordsKeepWhatEvaluationReads() {
        let full = Fix(time: Timestamp(nanosecondsSinceEpoch: 9), coordinate: Self.here, horizontalAccuracy: -1,
                       speed: 3, course: 90, altitude: 120)
        var record = FixRecord(device: DeviceID(index: 4), fix: full, cause: 17)
        #expect(record.fix == Fix(time: full.time, coordinate: full.coordinate, horizontalAccuracy: -1))
        #expect(record.fix.speed == nil && record.fix.course == nil && record.fix.altitude == nil)
        #expect(record.device == DeviceID(index: 4) && record.cause == 17)
        record.fix.horizontalAccuracy = 12
        #expect(record.fix.horizontalAccuracy == 12 && record.fix.time == full.time)
        #expect(MemoryLayout<FixRecord>.stride == 48)
    }
}

extension FixTests {
    /// A batch refuses exactly the fixes `process` refuses one at a time, with the same problem:
    /// the batch's quick check passes only values the full validation accepts.
    @Test func batchRecordsAreRefusedAsSingleFixesAre() {
        let values: [Double] = [0, -0.0, 45, -90, 90, 90.000001, -90.5, 179.9, 180, -180, 180.5, -200, .nan, .infinity,
                                -.infinity, 5, -1, .greatestFiniteMagnitude]
        var checked = 0
        for latitude in values {
            for longitude in values {
                for accuracy in [5.0, 0, -0.0, -1, .nan, .infinity, -.infinity] {
                    let fix = Fix(time: Timestamp(nanosecondsSinceEpoch: 0),
                                  coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: accuracy)
                    var single: ObservationProblem?
                    do throws(ObservationProblem) { try MonitoringEngine.validate(.fix(fix)) } catch { single = error }
                    let record = FixRecord(device: DeviceID(index: 0), fix: fix, cause: 0)
                    #expect(record.problem == single, "\(latitude), \(longitude), \(accuracy)")
                    checked += single == nil ? 1 : 0
                }
            }
        }
        #expect(checked > 100)
    }
}
