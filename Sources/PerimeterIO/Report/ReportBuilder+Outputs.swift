import Perimeter

extension ReportBuilder {
    /// Reads the event lines (docs/outputs.md): every line counts in the summary; the shown devices'
    /// events are kept, a held event's second line becoming its outcome.
    public mutating func readEvents(path: String) throws(InputError) {
        var pending: [String: Int] = [:]  // a held event's key → its index in its device's events
        try Self.forEachObject(in: path) { (object, line) throws(InputError) in
            let field = Fields(object: object, file: path, line: line)
            let device = try field.string("device")
            let delivery = try field.string("delivery")
            let reason = try field.optionalString("reason")
            data.summary.eventLines += 1
            data.summary.verdicts[delivery, default: 0] += 1
            if let reason { data.summary.reasons[reason, default: 0] += 1 }
            let identifier = try field.string("identifier"), state = try field.string("state"), date = try field.string("date")
            let key = [device, identifier, state, date, Self.refinementKey(object["refinement"])].joined(separator: "\u{1}")
            let cause = try field.int("cause")
            if let k = shown[device], let index = pending.removeValue(forKey: key) {
                data.devices[k].events[index].outcome = delivery
                data.devices[k].events[index].outcomeReason = reason
                data.devices[k].events[index].outcomeAt = time(ofLine: cause, device: k)
                return
            }
            if shown[device] == nil, delivery != "held", pending.removeValue(forKey: key) != nil { return }
            guard let t = RFC3339.parse(date) else { throw field.problem("date", "not an RFC 3339 time: \(date)") }
            if delivery == "held" { pending[key] = shown[device].map { data.devices[$0].events.count } ?? -1 }
            guard let k = shown[device] else { return }
            data.devices[k].events.append(ReportData.Event(condition: identifier, state: state, t: Self.seconds(t), delivery: delivery,
                                                           reason: reason, line: cause))
        }
        data.summary.stillHeld = pending.count
    }

    /// Reads the authorization changes (`evaluate --authorization-out`) of the shown devices.
    public mutating func readAuthorization(path: String) throws(InputError) {
        try Self.forEachObject(in: path) { (object, line) throws(InputError) in
            let field = Fields(object: object, file: path, line: line)
            guard let k = shown[try field.string("device")] else { return }
            let date = try field.string("date")
            guard let t = RFC3339.parse(date) else { throw field.problem("date", "not an RFC 3339 time: \(date)") }
            data.devices[k].authorization.append(ReportData.AuthorizationState(
                t: Self.seconds(t), status: try field.string("status"), temporary: try field.bool("temporary"),
                provisional: try field.bool("provisional"), accuracy: try field.string("accuracy"),
                temporaryFullAccuracy: try field.bool("temporaryFullAccuracy"),
                locationServices: try field.bool("locationServices"), inUse: try field.bool("inUse")))
        }
    }

    /// Calls `body` with each quarantined record (`evaluate --quarantine`) as an error message names it.
    public static func forEachQuarantined(in path: String, _ body: (String) -> Void) throws(InputError) {
        try forEachObject(in: path) { (object, line) throws(InputError) in
            let field = Fields(object: object, file: path, line: line)
            let name = try field.optionalString("field")
            body("\(try field.string("file")):\(try field.int("line")): " + (name.map { "field \"\($0)\": " } ?? "") + (try field.string("reason")))
        }
    }

    /// The time of a shown device's record at `line` (the record that resolved a held event).
    func time(ofLine line: Int, device k: Int) -> Double? {
        let times = recordTimes[k]
        var lo = 0, hi = times.count
        while lo < hi { let mid = (lo + hi) / 2; if times[mid].line < line { lo = mid + 1 } else { hi = mid } }
        return lo < times.count && times[lo].line == line ? times[lo].t : nil
    }

    static func refinementKey(_ value: JSONValue?) -> String {
        guard case .object(let object) = value else { return "" }
        return object.members.map { member in
            switch member.value {
            case .string(let s): s
            case .number(let text, let value): text.isEmpty ? String(value) : text
            default: ""
            }
        }.joined(separator: ",")
    }

    /// Calls `body` with each line's object; a line that is not a JSON object is an error naming it.
    static func forEachObject(in path: String, _ body: (JSONObject, Int) throws(InputError) -> Void) throws(InputError) {
        var lines = try LineReader(path: path, maxLineBytes: LineReader.defaultMaxLineBytes)
        while lines.nextLine() {
            let text = String(decoding: lines.line, as: UTF8.self)
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let value: JSONValue
            do { value = try JSONParser.parse(text) } catch {
                throw InputError(file: path, line: lines.lineNumber, field: nil, message: "not JSON: \(error.message)")
            }
            guard case .object(let object) = value else {
                throw InputError(file: path, line: lines.lineNumber, field: nil, message: "expected a JSON object, got \(value.kindName)")
            }
            try body(object, lines.lineNumber)
        }
        if let code = lines.readError {
            throw InputError(file: path, line: lines.lineNumber + 1, field: nil, message: "cannot read the file: error \(code)")
        }
    }

    /// A line's members, each missing or mistyped one an error naming file, line and field.
    struct Fields {
        let object: JSONObject
        let file: String
        let line: Int

        func problem(_ key: String, _ message: String) -> InputError {
            InputError(file: file, line: line, field: key, message: message)
        }

        func string(_ key: String) throws(InputError) -> String {
            guard case .string(let s)? = object[key] else { throw problem(key, "expected a string") }
            return s
        }

        func optionalString(_ key: String) throws(InputError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: throw problem(key, "expected a string or null")
            }
        }

        func bool(_ key: String) throws(InputError) -> Bool {
            guard case .bool(let b)? = object[key] else { throw problem(key, "expected true or false") }
            return b
        }

        func int(_ key: String) throws(InputError) -> Int {
            guard case .number(_, let value)? = object[key], let n = Int(exactly: value) else { throw problem(key, "expected an integer") }
            return n
        }
    }
}
