/// An authorization prompt on screen, waiting for an `answer`.
public enum Prompt: Sendable, Hashable, Codable {
    /// The first prompt (Allow Once / Allow While Using / Don't Allow); `alwaysIntent` when the app
    /// asked for always, so that Allow While Using enters provisional always.
    case first(alwaysIntent: Bool)
    /// The always prompt (Change to Always Allow / Keep While Using): at once from when-in-use
    /// (iOS 13.4), or `deferred` — the one provisional always raises when it first holds an event.
    case always(deferred: Bool)
    /// The temporary full-accuracy prompt (Allow Once / Don't Allow).
    case temporaryFullAccuracy

    /// The answers this prompt offers.
    public var choices: Set<PromptAnswer.Choice> {
        switch self {
        case .first: [.allowOnce, .allowWhileUsing, .deny]
        case .always: [.allowAlways, .keepWhileUsing]
        case .temporaryFullAccuracy: [.allowOnce, .deny]
        }
    }

    var name: String {
        switch self {
        case .first: "the first authorization prompt"
        case .always(let deferred): deferred ? "the deferred always prompt of provisional always" : "the always prompt"
        case .temporaryFullAccuracy: "the temporary full-accuracy prompt"
        }
    }
}

/// What became of an authorization request.
public enum RequestOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    /// A prompt opened.
    case prompted
    /// Made while the app was not in the foreground: no prompt can appear (000).
    case insufficientlyInUse
    /// Nothing to ask: already decided, already asked for always once, or a prompt is open.
    case noEffect
}
