import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The event writer's bytes against Foundation's JSON parser as the oracle: names that need escaping,
/// text beyond ASCII, every verdict with its reason and diagnostics, refinements, dates before 1970
/// and with fractions.
@Suite struct EventEncodingTests {
    @Test func everyEventParsesBackToItsFields() throws {
        var rng = SplitMix64(seed: 41)
        let names = ["d1", "a\"quote", "back\\slash", "new\nline", "tab\t", "bell\u{07}", "é-ü", "🛰️ sat", "", "c9944",
                     "cr\r bs\u{08} ff\u{0C} us\u{1F} del\u{7F}", String(repeating: "\u{01}\"", count: 700)]
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        for k in 0..<2_000 {
            let verdict = Delivery.Verdict.allCases.randomElement(using: &rng)!
            let reason = verdict == .delivered ? nil : Delivery.Reason.allCases.randomElement(using: &rng)!
            let diagnostics = Diagnostics(rawValue: UInt16.random(in: 0...255, using: &rng))
            let event = MonitorEvent(
                device: names.randomElement(using: &rng)!, identifier: names.randomElement(using: &rng)!,
                state: [.satisfied, .unsatisfied, .unknown].randomElement(using: &rng)!,
                date: Timestamp(nanosecondsSinceEpoch: Int64.random(in: -4_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &rng)
                    / [1, 1_000, 1_000_000_000].randomElement(using: &rng)!),
                refinement: k % 3 == 0 ? BeaconIdentity(uuid: uuid, major: .random(in: 0...65535, using: &rng), minor: 7) : nil,
                delivery: Delivery(verdict: verdict, reason: reason, diagnostics: diagnostics), cause: k)
            let line = EventEncoding.jsonLine(event)
            #expect(line == Self.plainLine(event))
            #expect(line.hasSuffix("}\n") && line.hasPrefix("{\"device\":"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["device"] as? String == event.device)
            #expect(object["identifier"] as? String == event.identifier)
            #expect(object["state"] as? String == event.state.rawValue)
            #expect(object["date"] as? String == RFC3339.format(event.date))
            #expect(RFC3339.parse(RFC3339.format(event.date)) == event.date)
            #expect(object["delivery"] as? String == verdict.rawValue)
            #expect((object["reason"] as? String) == reason?.rawValue)
            #expect(object["diagnostics"] as? [String] == diagnostics.names)
            #expect(object["cause"] as? Int == k)
            if let r = event.refinement {
                let refinement = object["refinement"] as? [String: Any]
                #expect(refinement?["uuid"] as? String == uuid.uuidString)
                #expect(refinement?["major"] as? Int == Int(r.major) && refinement?["minor"] as? Int == 7)
            } else {
                #expect(object["refinement"] is NSNull)
            }
        }
    }
}

extension EventEncodingTests {
    /// The literals the writer copies are the raw values, and the longest line without names fits
    /// the room the writer sets aside for it.
    @Test func namesAreTheRawValuesAndTheLongestLineFits() {
        for state in ConditionState.allCases { #expect("\(EventEncoding.name(state))" == state.rawValue) }
        for verdict in Delivery.Verdict.allCases { #expect("\(EventEncoding.name(verdict))" == verdict.rawValue) }
        for reason in Delivery.Reason.allCases { #expect("\(EventEncoding.name(reason))" == reason.rawValue) }
        let longestReason = Delivery.Reason.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!
        let event = MonitorEvent(device: "", identifier: "", state: .unsatisfied,
                                 date: Timestamp(nanosecondsSinceEpoch: Int64.min + 1),
                                 refinement: BeaconIdentity(uuid: UUID(), major: 65535, minor: 65535),
                                 delivery: Delivery(verdict: .delivered, reason: longestReason, diagnostics: Diagnostics(Diagnostics.named.map(\.0))),
                                 cause: Int.min)
        let line = EventEncoding.jsonLine(event)
        #expect(line == Self.plainLine(event))
        #expect(line.utf8.count <= EventEncoding.longestWithoutNames)
    }

    /// The line as plain string building writes it, the writer's byte-for-byte oracle: each scalar
    /// escaped as RFC 8259 requires (the writer escapes bytes).
    static func plainLine(_ e: MonitorEvent) -> String {
        let quoted = Fixture.jsonQuoted
        let reason = e.delivery.reason.map { quoted($0.rawValue) } ?? "null"
        let refinement = e.refinement.map { "{\"uuid\":\"\($0.uuid.uuidString)\",\"major\":\($0.major),\"minor\":\($0.minor)}" } ?? "null"
        return "{\"device\":" + quoted(e.device) + ",\"identifier\":" + quoted(e.identifier)
            + ",\"state\":\"" + e.state.rawValue + "\",\"date\":\"" + RFC3339.format(e.date)
            + "\",\"delivery\":\"" + e.delivery.verdict.rawValue + "\",\"reason\":" + reason + ",\"refinement\":" + refinement
            + ",\"diagnostics\":[" + e.delivery.diagnostics.names.map { "\"" + $0 + "\"" }.joined(separator: ",")
            + "],\"cause\":\(e.cause)}\n"
    }
}
