public import TesseraJSON

extension SMSRegionConfig {
    /// Reads exactly one of `{allowByDefault: {disallowedRegions?}}` or `{allowlistOnly: {allowedRegions?}}`.
    ///
    /// A missing list is empty. Region codes are two ASCII upper-case letters and are kept in the given order.
    /// `{}`, both forms together, an unknown key or a wrong type is `INVALID_CONFIG` naming the path below `path`.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(
            of: json, ["allowByDefault", "allowlistOnly"], at: path, reason: .invalidConfig)
        switch (ConfigJSON.member("allowByDefault", of: json), ConfigJSON.member("allowlistOnly", of: json)) {
        case (let value?, nil):
            let regions = try SMSRegionConfig.regions(
                in: value, listKey: "disallowedRegions", at: path.appending("allowByDefault")
            )
            self = .allowByDefault(disallowedRegions: regions)
        case (nil, let value?):
            let regions = try SMSRegionConfig.regions(
                in: value, listKey: "allowedRegions", at: path.appending("allowlistOnly")
            )
            self = .allowlistOnly(allowedRegions: regions)
        default:
            throw AuthError(.invalidConfig, "\(path.named) must have exactly one of allowByDefault or allowlistOnly")
        }
    }

    /// The normalized form: `{allowByDefault: {disallowedRegions}}` or `{allowlistOnly: {allowedRegions}}`.
    public var json: JSONObject {
        switch self {
        case .allowByDefault(let regions):
            ["allowByDefault": ["disallowedRegions": .array(regions.map { .string($0) })]]
        case .allowlistOnly(let regions):
            ["allowlistOnly": ["allowedRegions": .array(regions.map { .string($0) })]]
        }
    }

    /// The region list of one form, `{listKey?: ["CC", …]}`.
    private static func regions(in value: JSONValue, listKey: String, at path: JSONPath) throws(AuthError) -> [String] {
        let object = try ConfigJSON.object(value, at: path, reason: .invalidConfig)
        try ConfigJSON.requireKnownKeys(of: object, [listKey], at: path, reason: .invalidConfig)
        guard let list = ConfigJSON.member(listKey, of: object) else { return [] }
        let listPath = path.appending(listKey)
        var regions: [String] = []
        for (index, element) in try ConfigJSON.array(list, at: listPath, reason: .invalidConfig).enumerated() {
            guard let code = element.stringValue, isRegionCode(code) else {
                let detail = "\(listPath.appending(index)) must be a two-letter upper-case region code"
                throw AuthError(.invalidConfig, detail)
            }
            regions.append(code)
        }
        return regions
    }

    /// Whether the text is two ASCII upper-case letters.
    private static func isRegionCode(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 2 && bytes.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}
