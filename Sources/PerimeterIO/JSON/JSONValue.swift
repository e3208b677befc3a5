/// A parsed JSON value that remembers the line it started on, so readers can say where a bad value is.
///
/// Not `indirect`: arrays and objects already keep their elements out of line, and a heap box for
/// every value (two per position of a large conditions file) took about a seventh of its load.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text as written (kept so that times convert exactly; empty when parsed without
    /// `keepingNumberText`) and its `Double` value.
    case number(text: String, value: Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object's members in written order, each with the line its key is on.
public struct JSONObject: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue
        public var line: Int
    }

    public var members: [Member]
    /// The line of the opening brace.
    public var line: Int

    /// The value of the first member named `key` (`nil` if absent; `.null` if written as null).
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// The line of the member named `key`, or the object's own line.
    public func line(of key: String) -> Int {
        members.first { $0.key == key }?.line ?? line
    }
}
