public import FoundationEssentials
public import TesseraCore
public import TesseraCrypto

/// The services the router hands a factor for one call. A factor reaches the database, the clock and the master
/// key only through it, so the router decides what runs inside a transaction and what time it is.
public struct FactorContext {
    /// Where an in-process factor's own queries run (the phone factor's send limits): the pool, never a
    /// transaction, since the router records outcomes itself after the factor answered.
    public let database: any SQLRunner
    /// The configuration in force for the user's tenant (API §4 rule 1).
    public let config: EffectiveConfig
    /// The time of the call.
    public let now: Date
    /// Seals the factor's secrets at rest (AES-256-GCM under the master key).
    public let keyRing: KeyRing
    /// The language the client asked for (`languageCode`), when the method takes one.
    public let languageCode: String?
    /// The client's IP address as the server believes it (after trusted proxies), when known; for the start
    /// steps that send something and limit sends per client.
    public let clientAddress: String?
    /// Whether the call comes from the server's own login pages after a passed first factor. The server vouches
    /// for itself as a first-party app, so factors that demand an app credential before sending something accept
    /// the call without one; limits, and a deployment's restriction to test numbers, still apply.
    public let appVerifiedByServer: Bool
    /// The user's enrolments of this factor, so that a start step can refuse a second enrolment of the same
    /// address early (`SECOND_FACTOR_EXISTS`); the router enforces ``EnrolledFactor/uniqueKey`` in any case.
    public let enrollments: [Enrollment]
    /// The user the call is for: being enrolled or signing in.
    public let user: UserRecord?

    /// A context with every service given.
    public init(
        database: any SQLRunner, config: EffectiveConfig, now: Date, keyRing: KeyRing, languageCode: String?,
        clientAddress: String? = nil, appVerifiedByServer: Bool = false, enrollments: [Enrollment] = [],
        user: UserRecord? = nil
    ) {
        self.database = database
        self.config = config
        self.now = now
        self.keyRing = keyRing
        self.languageCode = languageCode
        self.clientAddress = clientAddress
        self.appVerifiedByServer = appVerifiedByServer
        self.enrollments = enrollments
        self.user = user
    }
}
