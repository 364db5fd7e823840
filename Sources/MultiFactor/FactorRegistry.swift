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
            let names =
                [descriptor.enrollmentInfo.name, descriptor.verificationInfo.name]
                + (descriptor.signInStart.map { [$0.info.name] } ?? [])
            for name in names {
                precondition(members.insert(name).inserted, "factor member registered twice: \(name)")
            }
        }
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
