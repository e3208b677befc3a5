import Foundation

// Conditions decode through their checking initialisers, so that a stored condition is as valid as
// one made in code: a decoded radius of 0, or a minor without a major, is an error, not a condition.

extension CircularGeographicCondition: Codable {
    private enum CodingKeys: String, CodingKey { case center, radius }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(center: values.decode(Coordinate.self, forKey: .center), radius: values.decode(Double.self, forKey: .radius))
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(center, forKey: .center)
        try values.encode(radius, forKey: .radius)
    }
}

extension PolygonalGeographicCondition: Codable {
    private enum CodingKeys: String, CodingKey { case polygons }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(polygons: values.decode([GeoPolygon].self, forKey: .polygons))
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(polygons, forKey: .polygons)
    }
}

extension BeaconIdentityCondition: Codable {
    private enum CodingKeys: String, CodingKey { case uuid, major, minor }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        let uuid = try values.decode(UUID.self, forKey: .uuid)
        let major = try values.decodeIfPresent(UInt16.self, forKey: .major)
        let minor = try values.decodeIfPresent(UInt16.self, forKey: .minor)
        switch (major, minor) {
        case (nil, nil): self.init(uuid: uuid)
        case (let major?, nil): self.init(uuid: uuid, major: major)
        case (let major?, let minor?): self.init(uuid: uuid, major: major, minor: minor)
        case (nil, _?):
            throw DecodingError.dataCorruptedError(forKey: .minor, in: values, debugDescription: "a minor needs a major")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(uuid, forKey: .uuid)
        try values.encodeIfPresent(major, forKey: .major)
        try values.encodeIfPresent(minor, forKey: .minor)
    }
}
