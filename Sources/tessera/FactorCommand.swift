import ArgumentParser
import FactorServices
import FoundationEssentials
import Logging
import MultiFactor
import PhoneCodes
import PhoneFactor
import TOTPFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraLoop
import TesseraPostgres
import TesseraServer

#if canImport(Glibc)
import Glibc
#endif

/// `tessera factor …`: Tessera's built-in factors run as factor services (`docs/factor-protocol.md`).
struct FactorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "factor", abstract: "Run a built-in factor as a factor service.", subcommands: [Serve.self])

    /// `tessera factor serve totp|phone`: the same plugin code as in `tessera serve`, behind the factor protocol,
    /// until SIGTERM or SIGINT.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a built-in factor (totp or phone) over the factor protocol.",
            discussion: """
                Register it with `tessera admin factor-services register --endpoint http://HOST:PORT/rpc`, then give \
                it the secret the registration shows. The phone factor needs the database (for the fleet-wide SMS \
                send limits) and an SMS webhook; the TOTP factor needs neither.
                """)

        @Argument(help: "totp or phone.")
        var name: String
        @Option(help: "The factor id to describe itself with (default: the factor's own, totp or phone).")
        var id: String?
        @Option(help: "HOST:PORT to listen on (TESSERA_FACTOR_LISTEN; default 127.0.0.1:9101).")
        var listen: String?
        @Option(help: "File with the service's secret, base64url of 32 bytes (TESSERA_FACTOR_SECRET_FILE). Required.")
        var secretFile: String?
        @Option(help: "Event loops (TESSERA_LOOPS; default the number of cores).")
        var loops: Int?
        @Option(help: "phone: libpq connection string or URI (TESSERA_DATABASE_URL).")
        var databaseURL: String?
        @Option(help: "phone: where SMS are delivered (TESSERA_SMS_WEBHOOK_URL; default: the log, without codes).")
        var smsWebhookURL: String?
        @Option(help: "phone: enforced or disabled-for-testing (TESSERA_APP_VERIFICATION; default enforced).")
        var appVerification: String?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            func value(_ option: String?, _ variable: String) -> String? { option ?? environment[variable] }
            guard ["totp", "phone"].contains(name) else {
                throw ValidationError("unknown factor '\(name)': use totp or phone")
            }
            if let id, !ProviderConfig.isFactorServiceID(id) {
                throw ValidationError("--id must be 1 to 32 of a-z, 0-9 and -, got '\(id)'")
            }
            let listenText = value(listen, "TESSERA_FACTOR_LISTEN") ?? "127.0.0.1:9101"
            guard let address = ListenAddress(parsing: listenText) else {
                throw ValidationError("--listen must be HOST:PORT with a numeric host, got '\(listenText)'")
            }
            guard let secretPath = value(secretFile, "TESSERA_FACTOR_SECRET_FILE") else {
                throw ValidationError("--secret-file is required (the secret factorServices.register showed)")
            }
            let secret = try Self.secret(at: secretPath)
            let loopCount =
                loops ?? environment["TESSERA_LOOPS"].flatMap(Int.init)
                ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            guard (1...256).contains(loopCount) else { throw ValidationError("--loops must be from 1 to 256") }
            let logger = makeLogger(environment: environment)
            let group = try EventLoopGroup(loopCount: loopCount)
            var database: PostgresClient?
            let factor: any Factor
            switch name {
            case "phone":
                guard let url = value(databaseURL, "TESSERA_DATABASE_URL") else {
                    throw ValidationError("the phone factor needs --database-url (its SMS send limits are fleet-wide)")
                }
                let mode = value(appVerification, "TESSERA_APP_VERIFICATION") ?? "enforced"
                guard ["enforced", "disabled-for-testing"].contains(mode) else {
                    throw ValidationError("--app-verification must be enforced or disabled-for-testing, got '\(mode)'")
                }
                let client = PostgresClient(configuration: PostgresConfiguration(url: url), group: group)
                database = client
                let sms: any SMSSender =
                    try value(smsWebhookURL, "TESSERA_SMS_WEBHOOK_URL").map { url in
                        WebhookSMSSender(
                            webhook: try WebhookClient(client: HTTPClient(group: group)), url: url, logger: logger)
                    } ?? LogSMSSender(logger: logger, revealsCodes: false)
                factor = PhoneFactor(
                    codes: SMSCodeIssuer(
                        sender: sms,
                        appVerification: mode == "enforced" ? .enforced(AcceptingAppVerifier()) : .disabledForTesting))
            default:
                factor = TOTPFactor()
            }
            let host = try FactorHost(
                factor: factor, id: id, secret: secret, database: PostgresClientRunner(database))
            var router = HTTPRouter()
            router.on(.get, "/healthz", immediate: { _ in HTTPResponse.text("ok\n") })
            router.on(.post, "/rpc", handler: { request in await host.respond(to: request) })
            let server = HTTPServer(
                name: "factor-\(name)", loops: group.loops, host: address.host, port: address.port, router: router,
                logger: logger)
            do {
                try await database?.start(timeout: .seconds(10))
                try await server.start()
            } catch {
                await database?.shutdown()
                group.shutdown()
                throw (error as? PostgresError).map { ValidationError($0.message) } ?? error
            }
            logger.info("factor service \(name) listening on \(address.host):\(server.port)")
            let signal = await ShutdownSignal.wait(on: group.loops[0])
            logger.info("received \(signal), stopping")
            await server.shutdown(gracePeriod: .seconds(10))
            await database?.shutdown()
            group.shutdown()
        }

        /// The secret in `path`: base64url of 32 bytes, surrounding white space ignored.
        static func secret(at path: String) throws -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read the secret file \(path)")
            }
            let text = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
            guard let bytes = try? Base64URL.decode(text), bytes.count == FactorServiceSignature.secretByteCount else {
                throw ValidationError("the secret file \(path) must hold base64url of 32 bytes")
            }
            return bytes
        }
    }
}
