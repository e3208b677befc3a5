import Perimeter

extension ReportBuilder {
    /// Reads the event lines (docs/outputs.md): every line counts in the summary; the shown devices'
    /// events are kept, a held event's second line becoming its outcome.
    public mutating func readEvents(path: String) throws(InputError) {
        var pending: [String: Int] = [:]  // a held event's key → its index in its device's events
        try Self.forEachLine(in: path) { (bytes, line) throws(InputError) in
            // The tool's own lines are scanned; any other valid line goes through the JSON parser.
            let event: EventLineScan
            if let scanned = EventLineScan.scan(bytes) {
                event = scanned
            } else {
                let object = try Self.object(bytes, file: path, line: line)
                event = try Self.naming(file: path, line: line) { () throws(ObservationProblem) in
                    let field = RecordFields(object)
                    return EventLineScan(device: try field.string("device"), identifier: try field.string("identifier"),
                                         state: try field.string("state"), date: try field.string("date"),
                                         delivery: try field.string("delivery"), reason: try field.optionalString("reason"),
                                         refinement: Self.refinementKey(object["refinement"]), cause: try field.integer("cause", in: Self.lines))
                }
            }
            try add(event, file: path, line: line, pending: &pending)
        }
        data.summary.stillHeld = pending.count
    }

    /// Counts an event line, and keeps it (or, for a held event's second line, its outcome) when its
    /// device is shown.
    private mutating func add(_ event: EventLineScan, file: String, line: Int, pending: inout [String: Int]) throws(InputError) {
        data.summary.eventLines += 1
        data.summary.verdicts[event.delivery, default: 0] += 1
        if let reason = event.reason { data.summary.reasons[reason, default: 0] += 1 }
        let key = [event.device, event.identifier, event.state, event.date, event.refinement].joined(separator: "\u{1}")
        let k = shown[event.device]
        if let k, let index = pending.removeValue(forKey: key) {
            data.devices[k].events[index].outcome = event.delivery
            data.devices[k].events[index].outcomeReason = event.reason
            data.devices[k].events[index].outcomeAt = time(ofLine: event.cause, device: k)
            return
        }
        if k == nil, event.delivery != "held", pending.removeValue(forKey: key) != nil { return }
        guard let t = RFC3339.parse(event.date) else {
            throw InputError(file: file, line: line, field: "date", message: "not an RFC 3339 time: \(event.date)")
        }
        if event.delivery == "held" { pending[key] = k.map { data.devices[$0].events.count } ?? -1 }
        guard let k else { return }
        data.devices[k].events.append(ReportData.Event(condition: event.identifier, state: event.state, t: Self.seconds(t),
                                                       delivery: event.delivery, reason: event.reason, line: event.cause))
    }

    /// Reads the authorization changes (`evaluate --authorization-out`) of the shown devices.
    public mutating func readAuthorization(path: String) throws(InputError) {
        try Self.forEachObject(in: path) { (field) throws(ObservationProblem) in
            guard let k = shown[try field.string("device")] else { return }
            data.devices[k].authorization.append(ReportData.AuthorizationState(
                t: Self.seconds(try field.time("date")), status: try field.string("status"), temporary: try field.bool("temporary"),
                provisional: try field.bool("provisional"), accuracy: try field.string("accuracy"),
                temporaryFullAccuracy: try field.bool("temporaryFullAccuracy"),
                locationServices: try field.bool("locationServices"), inUse: try field.bool("inUse")))
        }
    }

    /// Calls `body` with each quarantined record (`evaluate --quarantine`) as an error message names it.
    public static func forEachQuarantined(in path: String, _ body: (String) -> Void) throws(InputError) {
        try forEachObject(in: path) { (field) throws(ObservationProblem) in
            let name = try field.optionalString("field")
            body("\(try field.string("file")):\(try field.integer("line", in: lines)): " + (name.map { "field \"\($0)\": " } ?? "")
                 + (try field.string("reason")))
        }
    }

    /// The time of a shown device's record at `line` (the record that resolved a held event).
    func time(ofLine line: Int, device k: Int) -> Double? {
        let times = recordTimes[k]
        let at = Self.partitionIndex(times) { $0.line < line }
        return at < times.count && times[at].line == line ? times[at].t : nil
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

    /// The line numbers a `cause` or a quarantined record's `line` may give.
    static let lines = 0...(1 << 53)

    /// Calls `body` with each line's members; a line that is not a JSON object, or a member `body`
    /// finds wrong, is an error naming the file and line.
    static func forEachObject(in path: String, _ body: (RecordFields) throws(ObservationProblem) -> Void) throws(InputError) {
        try forEachLine(in: path) { (bytes, line) throws(InputError) in
            let fields = RecordFields(try object(bytes, file: path, line: line))
            try naming(file: path, line: line) { () throws(ObservationProblem) in try body(fields) }
        }
    }

    /// `body`'s result, a field's problem becoming an error that names `file` and `line`.
    static func naming<T>(file: String, line: Int, _ body: () throws(ObservationProblem) -> T) throws(InputError) -> T {
        do throws(ObservationProblem) {
            return try body()
        } catch {
            throw InputError(file: file, line: line, field: error.field, message: error.message)
        }
    }

    /// Calls `body` with each line that is not blank, as bytes, and its number.
    static func forEachLine(in path: String, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(InputError) -> Void) throws(InputError) {
        var lines = try LineReader(path: path, maxLineBytes: LineReader.defaultMaxLineBytes)
        while lines.nextLine() {
            let bytes = lines.line
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            try body(bytes, lines.lineNumber)
        }
        if let code = lines.readError {
            throw InputError(file: path, line: lines.lineNumber + 1, field: nil, message: "cannot read the file: error \(code)")
        }
    }

    /// The line as a JSON object, or an error naming it.
    static func object(_ bytes: UnsafeBufferPointer<UInt8>, file: String, line: Int) throws(InputError) -> JSONObject {
        let value: JSONValue
        do { value = try JSONParser.parse(String(decoding: bytes, as: UTF8.self)) } catch {
            throw InputError(file: file, line: line, field: nil, message: "not JSON: \(error.message)")
        }
        guard case .object(let object) = value else {
            throw InputError(file: file, line: line, field: nil, message: "expected a JSON object, got \(value.kindName)")
        }
        return object
    }
}
