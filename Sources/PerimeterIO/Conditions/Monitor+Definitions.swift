import Perimeter

extension Monitor {
    /// Starts monitoring every condition of a conditions file, as `ConditionsReader` gives them, in
    /// file order: the same as `add(_:identifier:assuming:audience:)` for each, with each feature's
    /// own `assuming` (or the policy's default) and `devices` and `groups`. A duplicate identifier throws, with the conditions
    /// before it added.
    ///
    /// ```swift
    /// let monitor = Monitor(name: "city")
    /// try await monitor.add(contentsOf: ConditionsReader.read(contentsOf: "Fixtures/city/conditions.geojson"))
    /// try await monitor.process(.fix(fix), device: "phone-1")
    /// ```
    public func add(contentsOf definitions: [ConditionDefinition]) throws(ConditionCatalogError) {
        try add(contentsOf: definitions.map { ($0.condition, $0.identifier, $0.assuming, $0.audience) })
    }
}

extension MonitoringEngine {
    /// Adds every condition of a conditions file, as `ConditionsReader` gives them: the same as
    /// `add(contentsOf:)` with each definition's condition, identifier, `assuming` and audience (polygons'
    /// evaluation data built on `batchThreads` threads).
    ///
    /// ```swift
    /// var engine = MonitoringEngine(policy: policy)
    /// try engine.add(contentsOf: ConditionsReader.read(contentsOf: "conditions.geojson"))
    /// ```
    public mutating func add(contentsOf definitions: [ConditionDefinition]) throws(ConditionCatalogError) {
        try add(contentsOf: definitions.map { ($0.condition, $0.identifier, $0.assuming, $0.audience) })
    }
}
