import FactorServices
import MultiFactor
import PhoneSignIn
import TesseraCore
import TesseraHTTP
import TesseraOAuth
import TesseraRPC

/// The JSON-RPC methods of the public listener (API §3, §4).
enum PublicMethods {
    static func table(
        _ services: CoreServices, router: MultiFactorRouter, phoneSignIn: PhoneSignIn
    ) -> RPCMethodTable {
        var table = RPCMethodTable(title: "Tessera public API", version: "1")
        AccountMethods.register(services.accounts, signIn: FirstFactorSignIn(router: router), into: &table)
        PhoneSignInMethods.register(phoneSignIn, into: &table)
        MultiFactorMethods.register(router, into: &table)
        return table
    }
}

/// The JSON-RPC methods of the admin listener (API §5). Every call but `rpc.discover` needs an admin key in
/// `Authorization: Bearer`, checked before its params are read.
enum AdminMethods {
    static func table(_ services: CoreServices, factorServices: FactorServicesAdmin) -> RPCMethodTable {
        var table = RPCMethodTable(title: "Tessera admin API", version: "1")
        let keys = services.adminKeys
        table.authenticator = { context in
            var context = context
            context.principal = try await keys.authenticate(authorization: context.headers["Authorization"])
            return context
        }
        registerConfig(services.configAdmin, into: &table)
        registerKeys(services.adminKeys, signingKeys: services.signingKeys, into: &table)
        registerUsers(services.usersAdmin, into: &table)
        registerClients(
            OAuthClientsAdmin(
                database: services.database, configs: services.configs, clock: services.clock,
                changes: services.changes),
            into: &table)
        registerFactorServices(factorServices, into: &table)
        return table
    }
}
