import TesseraJSON

/// The params of a method that takes none. The dispatcher accepts absent params, `{}` and `[]` for it; any member
/// is an unknown param.
public struct RPCNoParams: Codable, Sendable, Hashable {
    /// Creates the empty params.
    public init() {}

    /// Accepts an empty object only (``JSONValueDecoder`` rejects any member, since none is asked for).
    public init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: JSONStringKey.self)
    }

    /// Encodes `{}`.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: JSONStringKey.self)
    }
}
