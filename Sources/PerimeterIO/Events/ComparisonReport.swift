import Perimeter

/// `perimeter compare`'s report of a `WhatIfComparison` (docs/whatif.md): a table per variant as
/// text, or one JSON object.
public enum ComparisonReport {
    /// Reasons in the order every report lists them.
    static let reasons = Delivery.Reason.allCases

    /// The report as aligned text: each variant's counts, the dropped events by reason, and the
    /// conditions whose delivered events differ (the first `differenceLimit` of them).
    public static func text(_ c: WhatIfComparison, records: Int, differenceLimit: Int = 50) -> String {
        var lines = ["\(c.variants.count) variants over \(records) records; geometry evaluated \(c.geometryPasses) "
                     + (c.geometryPasses == 1 ? "time" : "times"), ""]
        let names = c.variants.enumerated().map { "\($0.offset + 1)  \($0.element.name)" }
        let width = max(8, names.map(\.count).max() ?? 0)
        // Each column as wide as its heading and two spaces, numbers to the right.
        func row(_ label: String, _ cells: [String], _ headings: [String]) -> String {
            label.padding(toLength: width, withPad: " ", startingAt: 0)
                + zip(cells, headings).map { cell, heading in
                    String(repeating: " ", count: max(2, max(heading.count, 9) + 2 - cell.count)) + cell
                }.joined()
        }
        let columns = ["events", "delivered", "held", "dropped", "refused"]
        lines.append(row("variant", columns, columns))
        for (name, o) in zip(names, c.outcomes) {
            lines.append(row(name, ["\(o.events)", "\(o.delivered)", "\(o.held)", "\(o.droppedCount)", "\(o.refused)"], columns))
        }
        let present = reasons.filter { r in c.outcomes.contains { $0.dropped[r, default: 0] > 0 } }.map(\.rawValue)
        if !present.isEmpty {
            lines += ["", "dropped, by reason"]
            lines.append(row("variant", present, present))
            for (name, o) in zip(names, c.outcomes) {
                lines.append(row(name, present.map { "\(o.dropped[Delivery.Reason(rawValue: $0)!, default: 0])" }, present))
            }
        }
        lines += ["", "conditions whose delivered events differ: \(c.differences.count)"]
        if !c.differences.isEmpty {
            let idWidth = max(10, c.differences.prefix(differenceLimit).map(\.identifier.count).max() ?? 0) + 2
            let headings = c.variants.indices.map { "\($0 + 1)" }
            func cells(_ values: [String]) -> String {
                values.map { String(repeating: " ", count: max(2, 11 - $0.count)) + $0 }.joined()
            }
            lines.append("identifier".padding(toLength: idWidth, withPad: " ", startingAt: 0) + cells(headings))
            for d in c.differences.prefix(differenceLimit) {
                lines.append(d.identifier.padding(toLength: idWidth, withPad: " ", startingAt: 0) + cells(d.delivered.map(String.init)))
            }
            if c.differences.count > differenceLimit { lines.append("… and \(c.differences.count - differenceLimit) more (--json lists them all)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report as one JSON object (keys in this order):
    /// `{"records","geometryPasses","variants":[{"variant","events","delivered","held","dropped","reasons":{…},"refused","requests":{…}}],"differences":[{"identifier","delivered":[…]}]}`.
    public static func json(_ c: WhatIfComparison, records: Int) -> String {
        func object(_ pairs: [(String, String)]) -> String {
            "{" + pairs.map { "\(JSONText.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        }
        let variants = zip(c.variants, c.outcomes).map { v, o in
            object([("variant", JSONText.quoted(v.name)), ("events", "\(o.events)"), ("delivered", "\(o.delivered)"),
                    ("held", "\(o.held)"), ("dropped", "\(o.droppedCount)"),
                    ("reasons", object(reasons.filter { o.dropped[$0, default: 0] > 0 }.map { ($0.rawValue, "\(o.dropped[$0]!)") })),
                    ("refused", "\(o.refused)"),
                    ("requests", object(RequestOutcome.allCases.map { ($0.rawValue, "\(o.requestOutcomes[$0, default: 0])") }))])
        }
        let differences = c.differences.map { d in
            object([("identifier", JSONText.quoted(d.identifier)), ("delivered", "[" + d.delivered.map(String.init).joined(separator: ",") + "]")])
        }
        return object([("records", "\(records)"), ("geometryPasses", "\(c.geometryPasses)"),
                       ("variants", "[" + variants.joined(separator: ",") + "]"),
                       ("differences", "[" + differences.joined(separator: ",") + "]")]) + "\n"
    }
}
