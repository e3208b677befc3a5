import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The reader on the authorization record types (`app`, `request`, `answer`, `settings`, `session`),
/// which `ReaderFuzzTests` leaves unchecked, in JSON Lines and CSV, against an oracle written from the
/// docs/observations.md: every generated line, valid or not, must give exactly the oracle's record,
/// or an error on that line naming the field the oracle names.
@Suite struct AuthorizationRecordReadingTests {
    /// A field's value as generated: a string, a boolean, a number, or absent.
    enum Value: Equatable {
        case string(String), bool(Bool), number(String)

        var json: String {
            switch self {
            case .string(let s): "\"\(s)\""
            case .bool(let b): b ? "true" : "false"
            case .number(let n): n
            }
        }

        var csv: String {
            switch self {
            case .string(let s): s.contains(",") ? "\"\(s)\"" : s
            case .bool(let b): b ? "true" : "false"
            case .number(let n): n
            }
        }
    }

    /// What the oracle expects of a line: the observation, or an error naming a field (nil: any).
    enum Expected {
        case record(Observation)
        /// Refused, naming one of these fields (a line may have several problems; any may be named).
        case error(fields: Set<String>)
    }

    static let columns = ["type", "device", "t", "state", "what", "purpose", "choice", "precise", "status", "locationServices",
                          "action", "id", "goal", "fullAccuracyPurpose"]

    struct Generated {
        var fields: [(String, Value)]
        var expected: Expected
    }

    /// An enumeration's value: mostly one of `valid`, sometimes a wrong one (an error on `field`).
    static func choice(_ field: String, _ valid: [String], _ rng: inout SplitMix64, wrong: inout Set<String>) -> Value {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:
            wrong.insert(field)
            return [.string(valid[0].uppercased()), .string(""), .string("sometimes"), .number("1"), .bool(true)].randomElement(using: &rng)!
        default: return .string(valid.randomElement(using: &rng)!)
        }
    }

    /// A boolean field: true/false, or something else (an error on `field`).
    static func boolean(_ field: String, _ rng: inout SplitMix64, wrong: inout Set<String>) -> (Value, Bool?) {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0:
            wrong.insert(field)
            return ([.string("yes"), .number("1"), .string("TRUE")].randomElement(using: &rng)!, nil)
        default:
            let b = Bool.random(using: &rng)
            return (.bool(b), b)
        }
    }

    /// Line `n`: a record of a random authorization type. In CSV an empty cell is an absent field.
    static func generate(_ n: Int, csv: Bool, _ rng: inout SplitMix64) -> Generated {
        let t = 1_772_352_000 + n
        let time = Timestamp(nanosecondsSinceEpoch: Int64(t) * 1_000_000_000)
        var fields: [(String, Value)] = [("device", .string("d\(n % 7)")), ("t", .number("\(t)"))]
        var wrong = Set<String>()
        var observation: Observation?
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            fields.insert(("type", .string("app")), at: 0)
            let state = choice("state", AppState.allCases.map(\.rawValue), &rng, wrong: &wrong)
            fields.append(("state", state))
            if case .string(let s) = state, let a = AppState(rawValue: s) { observation = .app(AppStateChange(time: time, state: a)) }
        case 1:
            fields.insert(("type", .string("request")), at: 0)
            let what = choice("what", AuthorizationRequest.Kind.allCases.map(\.rawValue), &rng, wrong: &wrong)
            fields.append(("what", what))
            var purpose: String?
            if Bool.random(using: &rng) {
                let text = ["navigation", "a, b", ""].randomElement(using: &rng)!
                fields.append(("purpose", .string(text)))
                if !(csv && text.isEmpty) { purpose = text }
            }
            if case .string(let s) = what, let kind = AuthorizationRequest.Kind(rawValue: s) {
                // docs/observations.md: `purpose` goes with a temporary full-accuracy request.
                if purpose != nil && kind != .temporaryFullAccuracy { wrong.insert("purpose") }
                observation = .request(AuthorizationRequest(time: time, kind: kind, purpose: purpose))
            }
        case 2:
            fields.insert(("type", .string("answer")), at: 0)
            let choiceValue = choice("choice", PromptAnswer.Choice.allCases.map(\.rawValue), &rng, wrong: &wrong)
            fields.append(("choice", choiceValue))
            var precise: Bool?
            if Bool.random(using: &rng) {
                let (v, b) = boolean("precise", &rng, wrong: &wrong)
                fields.append(("precise", v))
                precise = b
            }
            if case .string(let s) = choiceValue, let c = PromptAnswer.Choice(rawValue: s) {
                observation = .answer(PromptAnswer(time: time, choice: c, precise: precise))
            }
        case 3:
            fields.insert(("type", .string("settings")), at: 0)
            var status: SettingsChange.Status?, precise: Bool?, services: Bool?
            // At least one of the three (a settings record with none is left to the open question below).
            repeat {
                if Bool.random(using: &rng) {
                    let v = choice("status", SettingsChange.Status.allCases.map(\.rawValue), &rng, wrong: &wrong)
                    fields.append(("status", v))
                    if case .string(let s) = v { status = SettingsChange.Status(rawValue: s) }
                    if csv && v == .string("") { wrong.remove("status") }  // (an empty cell: absent)
                }
                if Bool.random(using: &rng) {
                    let (v, b) = boolean("precise", &rng, wrong: &wrong)
                    fields.append(("precise", v))
                    precise = b
                }
                if Bool.random(using: &rng) {
                    let (v, b) = boolean("locationServices", &rng, wrong: &wrong)
                    fields.append(("locationServices", v))
                    services = b
                }
            } while fields.count == 3
            // docs/observations.md: a settings record changes at least one of them (the reader names `status`).
            if status == nil && precise == nil && services == nil && wrong.isEmpty { wrong.insert("status") }
            observation = .settings(SettingsChange(time: time, status: status, precise: precise, locationServices: services))
        default:
            fields.insert(("type", .string("session")), at: 0)
            let action = choice("action", ServiceSessionRecord.Action.allCases.map(\.rawValue), &rng, wrong: &wrong)
            fields.append(("action", action))
            let id = ["s1", "nav session", "x,y"].randomElement(using: &rng)!
            if Int.random(in: 0..<12, using: &rng) == 0 { wrong.insert("id") } else { fields.append(("id", .string(id))) }
            // A session starts with a goal; one that ends needs none, but a goal written must be one.
            var goal = ServiceSessionRecord.Goal.none
            if Int.random(in: 0..<4, using: &rng) != 0 {
                let v = choice("goal", ServiceSessionRecord.Goal.allCases.map(\.rawValue), &rng, wrong: &wrong)
                fields.append(("goal", v))
                if case .string(let s) = v, let g = ServiceSessionRecord.Goal(rawValue: s) { goal = g }
            } else if action == .string("start") {
                wrong.insert("goal")
            }
            if csv && fields.contains(where: { $0.0 == "goal" && $0.1 == .string("") }) {
                wrong.remove("goal")  // (an empty cell: absent, which a start refuses)
                if action == .string("start") { wrong.insert("goal") }
            }
            if action == .string("end") { goal = .none }
            var purpose: String?
            if Bool.random(using: &rng) {
                purpose = "turn by turn"
                fields.append(("fullAccuracyPurpose", .string(purpose!)))
            }
            if case .string(let s) = action, let a = ServiceSessionRecord.Action(rawValue: s) {
                observation = .session(ServiceSessionRecord(time: time, action: a, id: id, goal: goal, fullAccuracyPurpose: purpose))
            }
        }
        // Now and then a field of another record type: not a field of this one.
        if Int.random(in: 0..<15, using: &rng) == 0 {
            let type = fields[0].1 == .string("app") ? "what" : "state"
            fields.append((type, .string("foreground")))
            wrong.insert(type)
        }
        fields.shuffle(using: &rng)
        // In CSV an enumeration's empty cell is a missing field: still an error on it.
        if !wrong.isEmpty { return Generated(fields: fields, expected: .error(fields: wrong)) }
        return Generated(fields: fields, expected: .record(observation!))
    }

    static func jsonLine(_ g: Generated) -> String {
        "{" + g.fields.map { "\"\($0.0)\":\($0.1.json)" }.joined(separator: ",") + "}"
    }

    static func csvLine(_ g: Generated) -> String {
        columns.map { column in g.fields.first { $0.0 == column }.map { $0.1.csv } ?? "" }.joined(separator: ",")
    }

    @Test(arguments: [false, true])
    func recordsAreReadAsTheREADMESays(csv: Bool) throws {
        var rng = SplitMix64(seed: csv ? 0xA0C5 : 0xA0150)
        let generated = (0..<6000).map { Self.generate($0, csv: csv, &rng) }
        // (CSV has no way to write a JSON number or boolean apart from text: those lines say the same.)
        let text = (csv ? [Self.columns.joined(separator: ",")] : []) + generated.map { csv ? Self.csvLine($0) : Self.jsonLine($0) }
        let path = try Fixture.write(text.joined(separator: "\n") + "\n", named: csv ? "authorization-records.csv" : "authorization-records.jsonl")
        var reader = try ObservationReader(path: path)
        var n = 0, records = 0, errors = 0
        var problems: [String] = []
        while let next = reader.next() {
            let g = generated[n]
            let line = n + 1 + (csv ? 1 : 0)
            let written = text[n + (csv ? 1 : 0)]
            n += 1
            switch (next, g.expected) {
            case (.success(let record), .record(let observation)):
                records += 1
                if record.line != line || record.observation != observation || record.device != "d\((n - 1) % 7)" {
                    problems.append("line \(line) \(written): read \(record.observation) on line \(record.line), expected \(observation)")
                }
            case (.failure(let error), .error(let fields)):
                errors += 1
                if error.line != line || !fields.contains(error.field ?? "") {
                    problems.append("line \(line) \(written): \(error), expected an error on one of \(fields.sorted())")
                }
            case (.success(let record), .error(let fields)):
                problems.append("line \(line) \(written): read \(record.observation), expected an error on one of \(fields.sorted())")
            case (.failure(let error), .record(let observation)):
                problems.append("line \(line) \(written): \(error), expected \(observation)")
            }
        }
        #expect(n == generated.count)
        #expect(problems.isEmpty, "\(problems.count) disagreements, the first:\n\(problems.prefix(10).joined(separator: "\n"))")
        #expect(records > 3000 && errors > 800, "\(records) records, \(errors) errors")
    }
}
