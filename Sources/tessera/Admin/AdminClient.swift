import ArgumentParser
import FoundationEssentials
import TesseraHTTP
import TesseraJSON
import TesseraLoop

/// The admin CLI's connection to the admin listener: a one-loop ``EventLoopGroup``, an ``HTTPClient`` on it, and
/// numbered JSON-RPC calls carrying the admin key.
final class AdminClient {
    /// The resolved URL, key and timeout.
    let settings: AdminSettings
    /// Whether results are printed as pretty JSON.
    let printsJSON: Bool
    private let http: HTTPClient
    private var nextID = 1

    /// Creates a client calling as `settings` say, on `group` (which the caller shuts down).
    init(settings: AdminSettings, printsJSON: Bool, group: EventLoopGroup) throws(HTTPClientError) {
        self.settings = settings
        self.printsJSON = printsJSON
        http = try HTTPClient(group: group)
    }

    /// Resolves the options, runs `body` with a client, and shuts the loop down afterwards. An ``AdminFailure`` is
    /// printed as `tessera: …` on stderr and ends the process with status 1; usage errors propagate (status 2).
    static func run(_ options: AdminOptions, _ body: (AdminClient) async throws -> Void) async throws {
        let settings = try AdminSettings.resolve(options, environment: ProcessInfo.processInfo.environment) {
            path throws(AdminUsageError) in
            try AdminInput.key(fromFileText: String(decoding: AdminInput.readFile(path), as: UTF8.self), path: path)
        }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = try AdminClient(settings: settings, printsJSON: options.json, group: group)
        do {
            try await body(client)
        } catch let failure as AdminFailure {
            FileHandleStandardError.write("tessera: \(failure)\n")
            throw ExitCode(1)
        }
    }

    /// Makes one call and returns its `result`.
    func call(_ call: AdminCall) async throws(AdminFailure) -> JSONValue {
        let id = nextID
        nextID += 1
        let request = HTTPClientRequest(
            method: .post, url: settings.endpoint,
            headers: [
                "Content-Type": "application/json", "Accept": "application/json",
                "Authorization": "Bearer \(settings.key)",
            ],
            body: AdminRPCEnvelope.requestBody(for: call, id: id))
        let response: HTTPClientResponse
        do {
            response = try await http.send(request, timeout: settings.timeout)
        } catch {
            switch error {
            case .malformedResponse, .responseTooLarge:
                throw .unexpectedAnswer(url: settings.url, detail: error.description)
            default:
                throw .unreachable(url: settings.url, detail: error.description)
            }
        }
        return try AdminRPCEnvelope.result(status: response.status.code, body: response.body, url: settings.url)
    }

    /// A list, one page or (with `all`) every page; see ``AdminPager``.
    func list(
        _ listing: AdminListing, page: AdminCall.Page, all: Bool, _ makeCall: (AdminCall.Page) -> AdminCall
    ) async throws(AdminFailure) -> JSONValue {
        try await AdminPager.collect(listing, page: page, all: all) { page throws(AdminFailure) in
            try await call(makeCall(page))
        }
    }

    /// Prints `result` as pretty JSON with `--json`, else as `lines(result)`.
    func show(_ result: JSONValue, _ lines: (JSONValue) -> [String]) {
        let text = printsJSON ? [JSONPrettyPrinter.format(result)] : lines(result)
        for line in text { print(line) }
    }

    /// Prints `result` as pretty JSON with `--json`, else as aligned `key: value` lines.
    func showObject(_ result: JSONValue) {
        show(result, AdminTextFormat.objectLines)
    }

    /// Prints `result` as pretty JSON with `--json`, else `message` (for results that are `{}`).
    func showDone(_ result: JSONValue, _ message: String) {
        show(result) { _ in [message] }
    }
}
