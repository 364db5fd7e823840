import TesseraJSON

/// One JSON-RPC call of the admin CLI: a method of the admin listener (API §5) and its params, by name.
struct AdminCall: Equatable, Sendable {
    /// The method name, e.g. `tenants.get`.
    let method: String
    /// The params object (possibly empty).
    let params: JSONObject

    /// Creates a call; params default to `{}`, which every method without params accepts.
    init(_ method: String, _ params: JSONObject = JSONObject()) {
        self.method = method
        self.params = params
    }
}
