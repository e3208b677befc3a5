#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Perimeter

extension ResumableEvaluation {
    /// The engine the state holds, its conditions brought in line with the conditions file (those
    /// no longer in it removed, new ones added, changed ones removed and added again), or a new
    /// engine with the file's conditions when the state has no monitor of that name yet.
    func restoredEngine(_ saved: Monitor.Snapshot?, notes: inout [String]) throws -> MonitoringEngine {
        guard let saved else {
            var engine = MonitoringEngine(policy: request.policy)
            engine.batchThreads = request.threads
            try engine.add(contentsOf: request.conditions)
            if let groups = request.groups { engine.setGroups(groups) }
            return engine
        }
        guard saved.policy == request.policy else {
            throw Refusal(description: """
                \(request.state): monitor \(request.monitor) was evaluated with other policy values; a run must repeat them (or use another --state or --monitor):
                saved:        \(saved.policy)
                this command: \(request.policy)
                """)
        }
        var engine = try MonitoringEngine(policy: saved.policy, restoring: saved.engine)
        engine.batchThreads = request.threads
        var live: [String: ConditionAddition] = [:]
        var order: [String] = []
        for addition in saved.engine.conditions {
            if addition.isRemoved {
                live[addition.identifier] = nil
            } else {
                live[addition.identifier] = addition
                order.append(addition.identifier)
            }
        }
        let wanted = Set(request.conditions.map(\.identifier))
        var removed = 0, changed = 0
        for identifier in order where live[identifier] != nil && !wanted.contains(identifier) {
            engine.remove(identifier)
            removed += 1
        }
        var added: [ConditionDefinition] = []
        for definition in request.conditions {
            if let addition = live[definition.identifier] {
                let initialState = definition.assuming ?? saved.policy.defaultAssumption
                if addition.condition == definition.condition && addition.initialState == initialState
                    && addition.audience == definition.audience { continue }
                engine.remove(definition.identifier)
                changed += 1
            }
            added.append(definition)
        }
        try engine.add(contentsOf: added)
        if removed + changed + added.count > 0 {
            notes.append("the conditions changed since the state's last run: \(added.count - changed) added, \(removed) removed, \(changed) changed (removed and added again)")
        }
        // (The groups file is read anew by every run: memberships hold from each device's next record.)
        if (request.groups ?? [:]).mapValues({ Set($0) }) != (saved.engine.groups ?? [:]).mapValues({ Set($0) }) {
            engine.setGroups(request.groups ?? [:])
            notes.append("the groups changed since the state's last run")
        }
        return engine
    }

    /// Refuses a file whose bytes before the position the state reached are not those it read there.
    func checkTail(_ stored: StoredInput?) throws {
        guard let stored, stored.position.offset > 0 else { return }
        let position = stored.position
        let tail: String
        do {
            tail = try InputFile.tailDigest(input, before: position.offset)
        } catch {
            throw Refusal(description: "\(request.observations): \(request.state) read it to byte \(position.offset) (line \(position.line)), but \(error.message)")
        }
        guard stored.tail == tail else {
            throw Refusal(description: "\(request.observations): not the file \(request.state) read to byte \(position.offset) (line \(position.line)): its bytes before that differ; a file may grow between runs, but not change")
        }
    }

    func fileSize(_ path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// The staged outputs of a run that stopped, cut back to their lengths at its last checkpoint.
    static func resumedOutputs(_ run: StoredRun) throws(InputError) -> BatchEvaluation.Outputs {
        func output(_ option: String) throws(InputError) -> BufferedOutput? {
            guard let stored = run.outputs.first(where: { $0.option == option }) else { return nil }
            return try BufferedOutput(resuming: stored.partial, replacing: stored.target, length: stored.length)
        }
        guard let events = try output("--out") else {
            throw InputError(file: run.input, line: nil, field: nil, message: "the state's run has no events output")
        }
        var outputs = BatchEvaluation.Outputs(events: events)
        outputs.quarantine = try output("--quarantine")
        outputs.authorization = try output("--authorization-out")
        return outputs
    }

    /// A new run's outputs as the state keeps them: each target with the name of its partial file
    /// (not made yet), lengths 0. A target that is not a file (a device, a pipe) cannot be cut back.
    static func plannedOutputs(_ request: Request) throws -> [StoredRun.Output] {
        let targets = [("--out", request.events), ("--quarantine", request.quarantine), ("--authorization-out", request.authorization)]
        return try targets.compactMap { option, target in
            guard let target else { return nil }
            var status = stat()
            if target == "-" || (stat(target, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG) {
                throw Refusal(description: "\(option) \(target): --state needs an output that is a file, which a stopped run can cut back")
            }
            return StoredRun.Output(option: option, target: target, partial: BufferedOutput.newPartialPath(for: target), length: 0)
        }
    }

    /// `outputs` with the lengths given.
    static func lengths(_ outputs: [StoredRun.Output], events: Int, quarantine: Int?, authorization: Int?) -> [StoredRun.Output] {
        outputs.map { output in
            var output = output
            switch output.option {
            case "--out": output.length = events
            case "--quarantine": output.length = quarantine ?? 0
            default: output.length = authorization ?? 0
            }
            return output
        }
    }

    /// Puts in place the outputs of a run that had finished and was doing so when it stopped: those
    /// still in their partial files (the others were put in place already).
    static func commit(_ run: StoredRun) throws(InputError) {
        for output in run.outputs where access(output.partial, F_OK) == 0 {
            var resumed = try BufferedOutput(resuming: output.partial, replacing: output.target, length: output.length)
            try resumed.commit()
        }
    }

    /// `path` made absolute (its folder's links resolved), for the text of a command.
    static func absolute(_ path: String) -> String {
        if let real = BufferedOutput.realPath(path) { return real }
        var folder = ".", name = path
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
            name = String(path[path.index(after: slash)...])
        }
        let resolved: String = BufferedOutput.realPath(folder) ?? folder
        return resolved + "/" + name
    }
}
