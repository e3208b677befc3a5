/// The members of a feature's `properties` that the reader uses, and how it tells a misspelling of
/// one of them from the other members users keep there (a `name`, a `continent`), which are allowed.
enum ConditionProperties {
    /// The properties a condition reads: a circle's radius, a beacon's identity, the starting state,
    /// whether a beacon identity is also ranged, the devices and groups that watch it.
    static let known = ["radius", "beacon", "assuming", "ranging", "devices", "groups"]

    /// The first member of `properties` that is not a known property but looks like a misspelling of
    /// one, with its line and the property meant.
    ///
    /// A near miss *(our rule)*: ignoring case, the name is at most one edit per four letters of a
    /// known name away from it — one from `radius` and `beacon`, two from `assuming`; an edit is a
    /// letter added, left out or changed, or two neighbours swapped (`radious`, `Radius`, `beakon`,
    /// `asuming`, `assumng`) — or it starts with the same five letters (`assume`, `beacons`,
    /// `radius_m`). Words of the user's own two edits from a known name (`reason`, `season`) stay
    /// allowed.
    static func nearMiss(in properties: JSONObject) -> (key: String, line: Int, meant: String)? {
        for member in properties.members where !known.contains(member.key) {
            // (A long name is no misspelling; it need not be compared.)
            guard member.key.utf8.count <= 16, let meant = known.first(where: { isNearMiss(member.key, of: $0) }) else { continue }
            return (member.key, member.line, meant)
        }
        return nil
    }

    static func isNearMiss(_ name: String, of known: String) -> Bool {
        let a = Array(name.lowercased().unicodeScalars), b = Array(known.unicodeScalars)
        if a.count >= 5 && a.prefix(5) == b.prefix(5) { return true }
        return editDistance(a, b) <= b.count / 4
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbouring characters, each one edit.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // d[i][j]: the distance between a's first i and b's first j characters.
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let substitution = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
