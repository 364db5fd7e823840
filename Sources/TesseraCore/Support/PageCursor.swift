public import FoundationEssentials
import TesseraCrypto

/// The position after the last item of a page, handed to clients as an opaque `nextPageToken`: base64url of
/// `<microseconds>:<id>` (or `:<id>` for lists ordered by id alone). Clients must not read it; the server checks
/// it when it comes back.
public struct PageCursor: Equatable, Sendable {
    /// The sort time of the last item, for lists ordered by time.
    public var time: Date?
    /// The id of the last item.
    public var id: String

    /// The cursor after the item `id`, sorted at `time` in lists ordered by time (nil in lists ordered by id).
    public init(time: Date?, id: String) {
        self.time = time
        self.id = id
    }

    /// The token text.
    public var encoded: String {
        let micros = time.map { String(Int64(($0.timeIntervalSince1970 * 1_000_000).rounded())) } ?? ""
        return Base64URL.encode(Array("\(micros):\(id)".utf8))
    }

    /// Parses a token made by ``encoded``; anything else is `INVALID_ARGUMENT`.
    public static func decode(_ token: String) throws(AuthError) -> PageCursor {
        let invalid = AuthError(.invalidArgument, "pageToken is not a token this server handed out.")
        guard let bytes = try? Base64URL.decode(token), let text = String(validating: bytes, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { throw invalid }
        let id = String(text[text.index(after: colon)...])
        let micros = text[..<colon]
        guard !id.isEmpty else { throw invalid }
        if micros.isEmpty { return PageCursor(time: nil, id: id) }
        guard let value = Int64(micros) else { throw invalid }
        return PageCursor(time: Date(timeIntervalSince1970: Double(value) / 1_000_000), id: id)
    }

    /// `pageSize` when given, else `defaultSize`; outside 1–100 is `INVALID_ARGUMENT`.
    public static func pageSize(_ requested: Int?, defaultSize: Int = 20) throws(AuthError) -> Int {
        let size = requested ?? defaultSize
        guard (1...100).contains(size) else { throw AuthError(.invalidArgument, "pageSize must be from 1 to 100.") }
        return size
    }
}
