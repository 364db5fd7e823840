public import Logging
public import MultiFactor
public import TesseraCore
public import TesseraCrypto
public import TesseraHTTP

/// The factor services registered in the database, as factors for the router's ``FactorDirectory``: each
/// registration becomes a ``RemoteFactor`` whose client signs with its secret. A registration that no longer
/// checks (a descriptor from an older version) is left out and logged, never fatal.
public struct RegisteredFactorServices: FactorSource {
    let keyRing: KeyRing
    let http: HTTPClient
    let health: FactorServiceHealth
    let logger: Logger

    /// The registrations sealed under `keyRing`, called through `http` (whose answers must be limited to
    /// ``FactorServiceClient/maxResponseBytes``), recording into `health`.
    public init(keyRing: KeyRing, http: HTTPClient, health: FactorServiceHealth, logger: Logger) {
        self.keyRing = keyRing
        self.http = http
        self.health = health
        self.logger = logger
    }

    /// The factors of every registration.
    public func factors(_ db: any SQLRunner) async throws -> [any Factor] {
        try await FactorServiceStore.all(db, keyRing: keyRing).compactMap { record in
            do {
                health.know(record.factorID)
                return try factor(record)
            } catch {
                logger.error(
                    "factor service registration left out", metadata: ["factor": .string(record.factorID)])
                return nil
            }
        }
    }

    /// The factor of `record`.
    func factor(_ record: FactorServiceRecord) throws -> RemoteFactor {
        RemoteFactor(
            described: try FactorServiceDescriptor(json: record.descriptor),
            client: try client(
                factorID: record.factorID,
                endpoints: FactorServiceEndpoints(record.endpoints, allowInsecureHttp: record.allowInsecureHttp),
                secret: record.secret, timeoutMilliseconds: record.timeoutMilliseconds))
    }

    /// A client of one service, recording into `health` (the server's, unless a call is not about a registered
    /// service: describing a new one).
    func client(
        factorID: String, endpoints: FactorServiceEndpoints, secret: [UInt8]?, timeoutMilliseconds: Int,
        health: FactorServiceHealth? = nil
    ) throws -> FactorServiceClient {
        FactorServiceClient(
            factorID: factorID, endpoints: endpoints, secret: secret, timeout: .milliseconds(timeoutMilliseconds),
            http: http, health: health ?? self.health, logger: logger)
    }
}
