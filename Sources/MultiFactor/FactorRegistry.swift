public import TesseraCore
public import TesseraPostgres

/// The factors a server offers, in the order they were registered. Plugins register themselves by being listed
/// here at start-up (`FactorRegistry([TOTPFactor(), PhoneFactor()])`); the router finds them by id and by the
/// members they add to the multi-factor methods, and the migrator applies their migrations.
public struct FactorRegistry: Sendable {
    /// The factors in registration order.
    public let factors: [any Factor]

    /// A registry of `factors`. Two factors with one id or one member name are a programming error that stops
    /// the process at start-up.
    public init(_ factors: [any Factor]) {
        var ids: Set<FactorID> = []
        var members: Set<String> = []
        for factor in factors {
            let descriptor = factor.descriptor
            precondition(ids.insert(descriptor.id).inserted, "factor registered twice: \(descriptor.id)")
            for name in Self.memberNames(of: descriptor) {
                precondition(members.insert(name).inserted, "factor member registered twice: \(name)")
            }
        }
        self.factors = factors
    }

    /// This registry with `others` added after its own factors, leaving out any whose id or member names are
    /// taken (by a factor of this registry or an earlier one of `others`): factors registered at run time never
    /// stop the process.
    public func adding(_ others: [any Factor]) -> FactorRegistry {
        var ids = Set(factors.map(\.descriptor.id))
        var members = Set(factors.flatMap { Self.memberNames(of: $0.descriptor) })
        var added = factors
        for factor in others {
            let names = Self.memberNames(of: factor.descriptor)
            guard !ids.contains(factor.descriptor.id), members.isDisjoint(with: names) else { continue }
            ids.insert(factor.descriptor.id)
            members.formUnion(names)
            added.append(factor)
        }
        return FactorRegistry(checked: added)
    }

    /// The param member names a factor adds to the multi-factor methods, which must be unique on a server.
    public static func memberNames(of descriptor: FactorDescriptor) -> [String] {
        [descriptor.enrollmentInfo.name, descriptor.verificationInfo.name]
            + (descriptor.signInStart.map { [$0.info.name] } ?? [])
    }

    private init(checked factors: [any Factor]) {
        self.factors = factors
    }

    /// The factor with id `id`, or nil.
    public func factor(_ id: FactorID) -> (any Factor)? {
        factors.first { $0.descriptor.id == id }
    }

    /// Every factor's migrations, in registration order.
    public var migrations: [Migration] {
        factors.flatMap(\.descriptor.migrations)
    }

    /// Whether `config` enables at least one registered factor, so that enrolment is possible at all.
    public func anyEnabled(by config: MultiFactorAuthConfig) -> Bool {
        factors.contains { $0.isEnabled(by: config) }
    }

    /// The enabled factor of `enrollment`, or nil when its factor is not registered or not enabled.
    func usableFactor(of enrollment: Enrollment, under config: MultiFactorAuthConfig) -> (any Factor)? {
        guard let factor = factor(enrollment.factor), factor.isEnabled(by: config) else { return nil }
        return factor
    }
}
