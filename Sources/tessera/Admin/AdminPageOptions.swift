import ArgumentParser

/// The paging options of the list commands.
struct AdminPageOptions: ParsableArguments {
    @Option(help: "Entries per page, 1 to 100 (the server's default is 20).")
    var pageSize: Int?

    @Option(help: "The page to fetch: the nextPageToken of the previous page.")
    var pageToken: String?

    @Flag(help: "Fetch every page, following nextPageToken.")
    var all = false

    func validate() throws {
        if let pageSize, !(1...100).contains(pageSize) {
            throw ValidationError("--page-size must be from 1 to 100")
        }
    }

    /// The page asked for.
    var page: AdminCall.Page { AdminCall.Page(size: pageSize, token: pageToken) }
}
