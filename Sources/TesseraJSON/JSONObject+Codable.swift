extension JSONObject: Codable {
    /// Decodes any JSON object. ``JSONValueDecoder`` hands the object over whole, unchecked.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? JSONValueDecoderImpl, case .object(let object) = direct.value {
            self = object
            return
        }
        let container = try decoder.container(keyedBy: JSONStringKey.self)
        self.init()
        for key in container.allKeys {
            self[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
    }

    /// Encodes the members in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONStringKey.self)
        for member in members {
            try container.encode(member.value, forKey: JSONStringKey(member.key))
        }
    }
}
