public import TesseraJSON

extension TOTPProviderConfig {
    /// Reads `{adjacentIntervals?}`: a JSON integer from 0 to 10, 5 when omitted; any other key or value is
    /// `INVALID_CONFIG` naming its path below `path`.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(of: json, ["adjacentIntervals"], at: path, reason: .invalidConfig)
        var intervals = TOTPProviderConfig.defaultAdjacentIntervals
        if let value = ConfigJSON.member("adjacentIntervals", of: json) {
            intervals = try ConfigJSON.integer(
                value, in: TOTPProviderConfig.allowedAdjacentIntervals, at: path.appending("adjacentIntervals"),
                reason: .invalidConfig
            )
        }
        self.init(adjacentIntervals: intervals)
    }

    /// The normalized form: `{adjacentIntervals}`.
    public var json: JSONObject {
        ["adjacentIntervals": .integer(Int64(adjacentIntervals))]
    }
}
