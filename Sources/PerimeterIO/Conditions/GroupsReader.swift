import Foundation
import Perimeter

/// Reads a groups file (SPEC §5.6): CSV with the header `device,group`, then one membership per line.
/// A device may be in several groups and a group hold several devices; a line repeated is one
/// membership; blank lines are skipped. Cells follow RFC 4180 (quotes for a name with a comma).
///
/// ```swift
/// engine.setGroups(try GroupsReader.read(contentsOf: "groups.csv"))
/// ```
public enum GroupsReader {
    /// Each group's devices, in file order, each once. Throws every problem found, each naming file,
    /// line and field.
    public static func read(contentsOf path: String) throws(InputErrors) -> [String: [String]] {
        let data: Data
        do throws(InputError) {
            data = try InputFile.contents(of: path)
        } catch {
            throw InputErrors(errors: [error])
        }
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var members: [String: [String]] = [:], seen = Set<[String]>(), problems: [InputError] = []
        var sawHeader = false
        for (k, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let line = k + 1
            var text = Array(raw)
            if text.last == UInt8(ascii: "\r") { text.removeLast() }
            guard !text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { continue }
            func problem(_ field: String?, _ message: String) {
                problems.append(InputError(file: path, line: line, field: field, message: message))
            }
            switch CSVRow.split(text) {
            case .failure(let message, let cell):
                problem(cell.map { $0 == 0 ? "device" : $0 == 1 ? "group" : "cell \($0 + 1)" }, message)
            case .success(let cells) where !sawHeader:
                sawHeader = true
                if cells != ["device", "group"] {
                    problem(nil, "expected the header \"device,group\", got \(InputText.quoted(String(decoding: text, as: UTF8.self)))")
                }
            case .success(let cells):
                guard cells.count == 2 else {
                    problem(nil, "expected 2 cells (device,group), got \(cells.count)")
                    continue
                }
                if cells[0].isEmpty { problem("device", "a device name cannot be empty") }
                if cells[1].isEmpty { problem("group", "a group name cannot be empty") }
                if !cells[0].isEmpty && !cells[1].isEmpty && seen.insert(cells).inserted {
                    members[cells[1], default: []].append(cells[0])
                }
            }
            if problems.count >= 20 { break }
        }
        if !sawHeader { problems.append(InputError(file: path, line: nil, field: nil, message: "empty: expected the header \"device,group\"")) }
        guard problems.isEmpty else { throw InputErrors(errors: problems) }
        return members
    }
}
