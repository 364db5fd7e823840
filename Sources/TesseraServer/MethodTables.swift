import TesseraRPC

/// The JSON-RPC methods of the public listener (API §3, §4). `rpc.discover` is always there; the account,
/// token and MFA methods are registered here as their modules land.
enum PublicMethods {
    static func table() -> RPCMethodTable {
        RPCMethodTable(title: "Tessera public API", version: "1")
    }
}

/// The JSON-RPC methods of the admin listener (API §5).
enum AdminMethods {
    static func table() -> RPCMethodTable {
        RPCMethodTable(title: "Tessera admin API", version: "1")
    }
}
