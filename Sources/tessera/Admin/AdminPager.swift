import TesseraJSON

/// Follows `nextPageToken` for `--all`: fetches page after page and merges the entries into one result.
enum AdminPager {
    /// The result of the first page alone, or with `all` every page's entries under the listing's key (and no
    /// `nextPageToken`). A token the server hands out twice is an error, so a faulty server cannot loop forever.
    static func collect(
        _ listing: AdminListing, page: AdminCall.Page, all: Bool,
        fetch: (AdminCall.Page) async throws(AdminFailure) -> JSONValue
    ) async throws(AdminFailure) -> JSONValue {
        guard all else { return try await fetch(page) }
        var entries: [JSONValue] = []
        var token = page.token
        var seen: Set<String> = []
        repeat {
            let result = try await fetch(AdminCall.Page(size: page.size, token: token))
            entries += result[listing.resultKey]?.arrayValue ?? []
            token = result["nextPageToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            if let token, !seen.insert(token).inserted {
                throw .refused("the server returned the page token \(token) twice; stopping")
            }
        } while token != nil
        return .object([listing.resultKey: .array(entries)])
    }
}
