/// A problem in an input file, located by file, line and field.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's path as given.
    public var file: String
    /// 1-based; `nil` when the problem is with the file as a whole.
    public var line: Int?
    /// The field (`lat`, `properties.radius`, …); `nil` when the problem is with the whole record.
    public var field: String?
    /// What is wrong, in words.
    public var message: String

    /// A field or message longer than about a thousand characters is cut (saying so): they may quote
    /// the input, and a message is never as long as what it is about.
    public init(file: String, line: Int?, field: String?, message: String) {
        self.file = file
        self.line = line
        self.field = field.map(InputText.bounded)
        self.message = InputText.bounded(message)
    }

    /// `file:line: field "lat": message`.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let field { text += "field \"\(field)\": " }
        return text + message
    }
}

/// Several problems found in one pass (a conditions file is checked whole).
public struct InputErrors: Error, Sendable, CustomStringConvertible {
    /// Every problem, in file order.
    public var errors: [InputError]

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
