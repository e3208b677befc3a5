import ArgumentParser
import Perimeter
import PerimeterIO

extension Evaluate {
    /// `evaluate --state FILE`: the run goes on from the state the file holds (`ResumableEvaluation`).
    func runWithState(_ state: String) throws {
        let outputs = [("--out", out), ("--quarantine", quarantine), ("--authorization-out", authorizationOut), ("--summary", summary),
                       ("--state", state)].compactMap { option, path in path.map { (option: option, path: $0) } }
        do throws(InputError) {
            try SameFileCheck.refuseOverlaps(inputs: [("--conditions", conditions), ("--observations", observations)]
                                                + (groups.map { [("--groups", $0)] } ?? []), outputs: outputs)
        } catch {
            throw CommandSupport.fail(error.description)
        }
        let threads = threads ?? CommandSupport.usableProcessorCount
        let definitions = try CommandSupport.readConditions(conditions, repair: repairPolygons, threads: threads)
        let memberships = try groups.map(CommandSupport.readGroups)
        do {
            var summaryFile: BufferedOutput?
            if let summary { summaryFile = try BufferedOutput(replacing: summary) }
            InterruptNote.install("perimeter: error: stopped by a signal; run the same command again to go on from the last checkpoint in \(state)\n")
            var request = ResumableEvaluation.Request(
                state: state, monitor: monitor, conditions: definitions, policy: try policy.policy(), threads: threads,
                observations: observations, format: format, maxLineBytes: maxLineBytes, events: out!, quarantine: quarantine,
                authorization: authorizationOut, endsStream: final, checkpointInterval: .milliseconds(Int64(checkpointInterval * 1000)),
                checkpointRecords: checkpointRecords)
            request.endStoppedRun = endStoppedRun
            request.groups = memberships
            let outcome = try ResumableEvaluation.run(request) {
                CommandSupport.printError("perimeter: … \($0.recordsRead) records, \($0.events) events, \(Int($0.recordsPerSecond)) records/s")
            }
            for note in outcome.notes { CommandSupport.printError("perimeter: note: " + note) }
            if outcome.nothingNew {
                CommandSupport.warn("\(observations): nothing after what \(state) has read of it already; the outputs are left as they were")
                return
            }
            if outcome.resumed { CommandSupport.printError("perimeter: note: went on with the run that had stopped") }
            if var file = summaryFile.take() {
                try file.append(outcome.summary.report + "\n")
                try file.commit()
            } else {
                CommandSupport.printError("perimeter: " + outcome.summary.report.replacingNewlines(with: "\nperimeter: "))
            }
        } catch let error as ExitCode {
            throw error
        } catch let error as InputError {
            // A run that started and stopped: its state and partial outputs wait for the same command.
            throw CommandSupport.fail("\(error)\n(\(state) holds the run as its last checkpoint left it: the same command goes on from there)")
        } catch {
            throw CommandSupport.fail("\(error)")
        }
    }
}
