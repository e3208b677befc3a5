import Foundation
import Perimeter
import PerimeterIO

/// `perimeter-bench storage CONDITIONS`: what a conditions file's conditions take in the engine once
/// added and indexed (`MonitoringEngine.conditionStorage`, by part), and per condition: the memory
/// that stays, where a process's peak RSS also counts the file's parse.
enum StorageReport {
    static func run(_ path: String) {
        let definitions: [ConditionDefinition]
        do { definitions = try ConditionsReader.read(contentsOf: path) } catch { die("\(error)") }
        var engine = MonitoringEngine()
        do { try engine.add(contentsOf: definitions) } catch { die("\(error)") }
        engine.prepare()
        let parts = engine.conditionStorage.filter { $0.bytes > 0 }
        let total = parts.reduce(0) { $0 + $1.bytes }
        let count = max(1, definitions.count)
        func line(_ name: String, _ bytes: Int) -> String {
            name.padding(toLength: 22, withPad: " ", startingAt: 0) + String(format: "%14d bytes  %8.1f per condition", bytes, Double(bytes) / Double(count))
        }
        for part in parts { print(line(part.part, part.bytes)) }
        print(line("total", total) + " (\(definitions.count) conditions)")
    }
}
