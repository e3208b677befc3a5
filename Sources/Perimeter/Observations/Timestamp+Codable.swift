// Stream time stores as its integer nanoseconds: exact, and as compact as a number gets.

extension Timestamp: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(nanosecondsSinceEpoch: decoder.singleValueContainer().decode(Int64.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        try value.encode(nanosecondsSinceEpoch)
    }
}

extension TimeSpan: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(nanoseconds: decoder.singleValueContainer().decode(Int64.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        try value.encode(nanoseconds)
    }
}
