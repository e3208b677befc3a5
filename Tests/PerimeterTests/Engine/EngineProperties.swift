import PerimeterPropertySupport
import PerimeterTestSupport
import PropertyBased
import Testing
@testable import Perimeter

/// SPEC §2's event rules as properties over random scenarios (`ScenarioGen`): small conditions of
/// every kind, random policies, and streams of fixes, sightings and authorization records for up to
/// three devices. The seeded tests sample these rules; here every failure is shrunk to a few records.
@Suite(.shrinking) struct EngineProperties {
    /// A (device, condition) pair.
    struct Pair: Hashable {
        var device: String
        var identifier: String
    }

    /// 1. An event only on a change of state: each event's state differs from the pair's state before
    /// it (the starting state for the first), and after every record the engine's state of each pair is
    /// the state of its last event, so that no change goes without an event either.
    @Test func anEventOnlyOnAChangeOfState() async {
        await propertyCheck(count: PropertyRuns.of(500), input: ScenarioGen.scenario()) { scenario in
            var state: [Pair: ConditionState] = [:]
            func current(_ pair: Pair) -> ConditionState {
                state[pair] ?? scenario.startingState(Int(pair.identifier.dropFirst())!)
            }
            func check(_ events: ArraySlice<MonitorEvent>, engine: MonitoringEngine, after what: String) {
                for event in events where !event.isFinalVerdict {
                    let pair = Pair(device: event.device, identifier: event.identifier)
                    // (Dwelling changes no state: it comes while the device is inside.)
                    if event.state == .dwelling {
                        #expect(current(pair) == .satisfied, "\(what): \(event.device) \(event.identifier) dwelling while \(current(pair))")
                        continue
                    }
                    #expect(event.state != current(pair),
                            "\(what): \(event.device) \(event.identifier) → \(event.state), already \(current(pair))")
                    state[pair] = event.state
                }
                for device in scenario.devices {
                    for identifier in scenario.identifiers {
                        let pair = Pair(device: device, identifier: identifier)
                        // (A device is told of a condition left unmonitored at its first record.)
                        if state[pair] == nil && engine.state(of: identifier, device: device) == .unmonitored { continue }
                        #expect(engine.state(of: identifier, device: device) == current(pair),
                                "\(what): \(device) \(identifier) is \(String(describing: engine.state(of: identifier, device: device))) but its events say \(current(pair))")
                    }
                }
            }
            var run = try ScenarioRun(scenario)
            try run.feed(ScenarioRun.numbered(scenario), .single) { cause, start, run in
                check(run.events[start...], engine: run.engine, after: "record #\(cause)")
            }
            let start = run.events.count
            run.finish()
            check(run.events[start...], engine: run.engine, after: "the end")
        }
    }

    /// 2. A pair's states alternate: no two consecutive events of one pair have the same state, and
    /// none is `unknown`. A held event's second line (`isFinalVerdict`) is a re-verdict of that event,
    /// not a new one: it must resolve exactly one earlier held line of its device (same holding number,
    /// condition, state, date and refinement), once, with a verdict other than held.
    @Test func statesAlternateAndFinalLinesResolveHeldEvents() async {
        await propertyCheck(count: PropertyRuns.of(500), input: ScenarioGen.scenario()) { scenario in
            let run = try ScenarioRun.whole(scenario)
            var last: [Pair: ConditionState] = [:]
            var unresolved: [String: [UInt32: MonitorEvent]] = [:]
            for (k, event) in run.events.enumerated() {
                let pair = Pair(device: event.device, identifier: event.identifier)
                if event.isFinalVerdict {
                    let held = unresolved[event.device]?.removeValue(forKey: event.holding)
                    #expect(held != nil, "event \(k) is a final line with no held line open (holding \(event.holding))")
                    if let held {
                        #expect(held.identifier == event.identifier && held.state == event.state && held.date == event.date
                                    && held.refinement == event.refinement,
                                "event \(k), final line of \(held), differs from it")
                    }
                    #expect(event.delivery.verdict != .held, "event \(k) is a final line that is still held")
                    continue
                }
                #expect(event.state != .unknown, "event \(k) has state unknown")
                #expect(last[pair] != event.state, "event \(k): \(event.device) \(event.identifier) \(event.state) twice in a row")
                last[pair] = event.state
                if event.delivery.verdict == .held {
                    #expect(event.holding > 0 && unresolved[event.device]?[event.holding] == nil,
                            "event \(k) is held with holding \(event.holding), not a fresh number")
                    unresolved[event.device, default: [:]][event.holding] = event
                } else {
                    #expect(event.holding == 0, "event \(k) was not held but has holding \(event.holding)")
                }
            }
            // Whatever is still held is what the engine still holds (SPEC: nothing is invented at the end).
            #expect(unresolved.values.reduce(0) { $0 + $1.count } == run.engine.heldEventCount)
        }
    }

    /// 3. Splitting the stream at any record and continuing gives the same events: records [0..<k]
    /// then [k...], each part fed one record at a time or through the batch paths (runs of fixes and of
    /// sightings as `[FixRecord]` / `[SightingRecord]` batches, cut at k), on 1–4 batch threads, and the
    /// second part fed to the engine as it stood or to a copy of it (the engine is a value; its shard
    /// pool must not be shared between copies) — all equal one pass, one record at a time.
    @Test func splittingTheStreamChangesNoEvent() async {
        await propertyCheck(count: PropertyRuns.of(500), input: ScenarioGen.scenario(), Gen.int(in: 0...60), Gen.int(in: 0...1),
                            Gen.int(in: 0...1), Gen.bool, Gen.int(in: 1...4)) { scenario, at, first, second, copy, threads in
            let expected = try ScenarioRun.whole(scenario)
            let records = ScenarioRun.numbered(scenario)
            let k = min(at, records.count)
            let feedings = (Feeding.allCases[first], Feeding.allCases[second])
            var run = try ScenarioRun(scenario, batchThreads: threads)
            try run.feed(records[..<k], feedings.0)
            var continued = run
            try continued.feed(records[k...], feedings.1)
            continued.finish()
            let what = "split at \(k), \(feedings.0) then \(feedings.1) on \(threads) threads"
            expectSameRun(continued, expected, what)
            if copy {
                // The original, fed the same rest after its copy was: the copy must not have touched it.
                try run.feed(records[k...], feedings.1)
                run.finish()
                expectSameRun(run, expected, what + ", the engine copied at the split")
            }
        }
    }

    func expectSameRun(_ got: ScenarioRun, _ expected: ScenarioRun, _ what: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        // (Only the first difference is written: `#expect(a == b)` would print both whole lists.)
        #expect(firstDifference(got.events, expected.events) == nil,
                "\(what): events differ: \(firstDifference(got.events, expected.events) ?? "")", sourceLocation: sourceLocation)
        #expect(firstDifference(got.changes, expected.changes) == nil,
                "\(what): authorization changes differ: \(firstDifference(got.changes, expected.changes) ?? "")",
                sourceLocation: sourceLocation)
        #expect(got.refused == expected.refused, "\(what): refused records differ", sourceLocation: sourceLocation)
    }

    /// 4. Interleaving different devices' records differently — any merge that keeps each device's own
    /// order, chosen by `choices` — changes no device's events (their causes are the records' numbers
    /// in the scenario, whatever order they were fed in), authorization changes or refusals.
    @Test func interleavingDevicesChangesNoDevicesEvents() async {
        await propertyCheck(count: PropertyRuns.of(500), input: ScenarioGen.scenario(), Gen.int(in: 0...2).array(of: 0...60),
                            Gen.int(in: 0...1)) { scenario, choices, feeding in
            let expected = try ScenarioRun.whole(scenario)
            var queues = scenario.devices.map { device in ScenarioRun.numbered(scenario).filter { $0.record.device == device }[...] }
            var merged: [Numbered] = []
            var choice = choices.makeIterator()
            while true {
                let open = queues.indices.filter { !queues[$0].isEmpty }
                guard !open.isEmpty else { break }
                let q = open[(choice.next() ?? 0) % open.count]
                merged.append(queues[q].removeFirst())
            }
            var run = try ScenarioRun(scenario)
            try run.feed(merged, Feeding.allCases[feeding])
            run.finish()
            let order = merged.map(\.cause)
            for device in scenario.devices {
                let got = run.events.filter { $0.device == device }, want = expected.events.filter { $0.device == device }
                let gotChanges = run.changes.filter { $0.device == device }, wantChanges = expected.changes.filter { $0.device == device }
                #expect(firstDifference(got, want) == nil, "\(device), records fed in the order \(order): \(firstDifference(got, want) ?? "")")
                #expect(firstDifference(gotChanges, wantChanges) == nil,
                        "\(device), records fed in the order \(order): authorization changes differ: \(firstDifference(gotChanges, wantChanges) ?? "")")
            }
            #expect(run.refused.sorted() == expected.refused, "records fed in the order \(order): refused records differ")
        }
    }

    /// 5. `assuming` never yields an event for the assumed state: a pair starting satisfied never
    /// gets a first event satisfied, nor one starting unsatisfied a first event unsatisfied; before its
    /// device's first record the engine reports the assumed state. Every condition here starts in a
    /// known state (its own `assuming`, or the policy's default); one pass one record at a time, one
    /// through the batch paths.
    @Test func assumingNeverYieldsTheAssumedState() async {
        let scenarios = ScenarioGen.scenario().map { scenario in
            var scenario = scenario
            for k in scenario.conditions.indices where scenario.startingState(k) == .unknown {
                scenario.conditions[k].assuming = k % 2 == 0 ? .satisfied : .unsatisfied
            }
            return scenario
        }
        await propertyCheck(count: PropertyRuns.of(500), input: scenarios, Gen.int(in: 0...1)) { scenario, feeding in
            let fresh = try scenario.engine()
            for (k, identifier) in scenario.identifiers.enumerated() where !fresh.unmonitoredIdentifiers(for: "d0").contains(identifier) {
                #expect(fresh.state(of: identifier, device: "d0") == scenario.startingState(k))
            }
            let run = try ScenarioRun.whole(scenario, Feeding.allCases[feeding])
            var seen: Set<Pair> = []
            for event in run.events where !event.isFinalVerdict {
                let pair = Pair(device: event.device, identifier: event.identifier)
                guard seen.insert(pair).inserted else { continue }
                let k = Int(event.identifier.dropFirst())!
                #expect(event.state != scenario.startingState(k),
                        "the first event of \(event.device) \(event.identifier), assumed \(scenario.startingState(k)), is \(event.state)")
            }
        }
    }
}
