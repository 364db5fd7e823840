public import MultiFactor
public import TesseraCore
public import TesseraJSON

/// The answer of a factor service's `factor.describe` (`docs/factor-protocol.md` §4), checked: what Tessera stores
/// at registration and builds the service's ``FactorDescriptor`` from.
public struct FactorServiceDescriptor: Sendable {
    /// The protocol versions Tessera speaks.
    public static let protocolVersions: Set<Int64> = [1]
    /// Ids a factor service may not take: the first factors'. A built-in factor's id (`totp`, `phone`) is free
    /// only on servers that run that factor as a service (`tessera serve --remote-factor`), which registration
    /// checks against the factors offered.
    public static let reservedIDs: Set<String> = ["password"]
    /// The lifetimes a start step's session may have, in seconds.
    public static let lifetimes: ClosedRange<Int64> = 30...3600

    /// The descriptor as the service sent it (stored as is, shown by `factorServices.get`).
    public let json: JSONObject
    /// The factor id.
    public let id: String
    /// What people call it.
    public let displayName: String
    /// Its RFC 8176 authentication method reference.
    public let amr: String
    /// The router's view of it.
    public let descriptor: FactorDescriptor

    /// Checks `json`: `INVALID_ARGUMENT` naming what is wrong.
    public init(json: JSONObject) throws(AuthError) {
        let version = json["protocolVersion"]?.int64Value
        guard let version, Self.protocolVersions.contains(version) else {
            throw Self.invalid("protocolVersion must be 1")
        }
        guard let id = json["id"]?.stringValue, ProviderConfig.isFactorServiceID(id) else {
            throw Self.invalid("id must be 1 to 32 of a-z, 0-9 and -")
        }
        guard !Self.reservedIDs.contains(id) else { throw Self.invalid("id \(id) is reserved") }
        let displayName = json["displayName"]?.stringValue ?? id
        guard (1...64).contains(displayName.count) else { throw Self.invalid("displayName must be 1 to 64 characters") }
        guard let amr = json["amr"]?.stringValue, (1...16).contains(amr.utf8.count),
            amr.utf8.allSatisfy({ (0x61...0x7A).contains($0) })
        else { throw Self.invalid("amr must be 1 to 16 of a-z (RFC 8176)") }
        guard let members = json["members"]?.objectValue else { throw Self.invalid("members must be an object") }
        let signInStart: SignInStartMembers?
        switch members["signInStart"] {
        case nil, .null?:
            signInStart = nil
        case .object(let start)?:
            signInStart = SignInStartMembers(
                info: try Self.member(start["info"], "members.signInStart.info"),
                result: try Self.member(start["result"], "members.signInStart.result"))
        default:
            throw Self.invalid("members.signInStart must be an object or null")
        }
        let pages: FactorLoginPages?
        switch json["loginPages"] {
        case nil, .null?: pages = nil
        case .object(let object)?: pages = try FactorLoginPages(json: object, at: JSONPath([.key("loginPages")]))
        default: throw Self.invalid("loginPages must be an object or null")
        }
        let namedBy: EnrollmentReference?
        switch json["enrollmentNamedBy"] {
        case nil, .null?: namedBy = nil
        case .object(let object)?:
            guard let reference = EnrollmentReference(json: object) else {
                throw Self.invalid("enrollmentNamedBy must be {infoKey, publicInfoKey}")
            }
            namedBy = reference
        default: throw Self.invalid("enrollmentNamedBy must be an object or null")
        }
        let isBackup: Bool
        switch json["backup"] {
        case nil, .null?: isBackup = false
        case .bool(let flag)?: isBackup = flag
        default: throw Self.invalid("backup must be a boolean")
        }
        self.json = json
        self.id = id
        self.displayName = displayName
        self.amr = amr
        descriptor = FactorDescriptor(
            id: FactorID(rawValue: id), amr: amr, displayName: displayName,
            enrollmentInfo: try Self.member(members["enrollmentInfo"], "members.enrollmentInfo"),
            enrollmentResult: try Self.member(members["enrollmentResult"], "members.enrollmentResult"),
            verificationInfo: try Self.member(members["verificationInfo"], "members.verificationInfo"),
            signInStart: signInStart,
            enrollmentLifetime: Double(try Self.lifetime(json["enrollmentLifetime"], "enrollmentLifetime")),
            signInLifetime: Double(
                signInStart == nil
                    ? Self.lifetimes.lowerBound : try Self.lifetime(json["signInLifetime"], "signInLifetime")),
            loginPages: pages, enrollmentNamedBy: namedBy, isBackup: isBackup)
    }

    private static func member(_ value: JSONValue?, _ path: String) throws(AuthError) -> FactorMember {
        guard let object = value?.objectValue, let name = object["name"]?.stringValue, isMemberName(name) else {
            throw invalid("\(path).name must be a camelCase name of 1 to 64 letters and digits")
        }
        guard let schema = object["schema"], schema.objectValue != nil else {
            throw invalid("\(path).schema must be a JSON Schema object")
        }
        return FactorMember(name, schema: schema)
    }

    private static func lifetime(_ value: JSONValue?, _ path: String) throws(AuthError) -> Int64 {
        guard let seconds = value?.int64Value, lifetimes.contains(seconds) else {
            throw invalid("\(path) must be an integer from 30 to 3600")
        }
        return seconds
    }

    private static func isMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (1...64).contains(bytes.count), (0x61...0x7A).contains(first) else {
            return false
        }
        return bytes.allSatisfy {
            (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0)
        }
    }

    private static func invalid(_ detail: String) -> AuthError {
        AuthError(.invalidArgument, "The factor service's descriptor is not valid: \(detail).")
    }
}
