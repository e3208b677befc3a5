/// What one feature gives, before its identifier is checked against the features before it.
enum FeatureOutcome: Sendable {
    /// A problem found before the feature's identifier was known.
    case unidentified(InputError)
    /// A feature with an identifier, and its definition or its first problem.
    case identified(IdentifiedFeature)
}

struct IdentifiedFeature: Sendable {
    var index: Int
    var identifier: String
    /// The line of its `id` member.
    var line: Int
    var body: Result<ConditionDefinition, InputError>
}

/// Collects features' outcomes in feature order: a feature whose identifier an earlier one has is
/// a duplicate, whatever else is right or wrong with it.
struct FeatureMerge {
    let file: String
    private(set) var definitions: [ConditionDefinition] = []
    private(set) var problems: [InputError] = []
    private var firstLineOfIdentifier: [String: Int] = [:]

    init(file: String) {
        self.file = file
    }

    mutating func add(_ outcome: FeatureOutcome) {
        switch outcome {
        case .unidentified(let problem):
            problems.append(problem)
        case .identified(let feature):
            if let first = firstLineOfIdentifier[feature.identifier] {
                problems.append(InputError(file: file, line: feature.line,
                                           field: "\(FeatureReader.name(feature.index, feature.identifier)).id",
                                           message: "duplicate identifier \(InputText.quoted(feature.identifier)) (first used on line \(first))"))
                return
            }
            firstLineOfIdentifier[feature.identifier] = feature.line
            switch feature.body {
            case .success(let definition): definitions.append(definition)
            case .failure(let problem): problems.append(problem)
            }
        }
    }
}
