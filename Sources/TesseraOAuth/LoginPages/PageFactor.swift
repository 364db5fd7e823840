import MultiFactor
import TesseraCore
import TesseraJSON

/// A registered factor the login pages can drive: its descriptor and the ``FactorLoginPages`` it declares.
struct PageFactor: Sendable {
    /// The factor's descriptor.
    let descriptor: FactorDescriptor
    /// Its login pages.
    let pages: FactorLoginPages

    /// The factor `id` of `factors`, when it is there and declares login pages.
    init?(_ id: String?, in factors: FactorRegistry) {
        guard let id, let factor = factors.factor(FactorID(rawValue: id)) else { return nil }
        self.init(factor.descriptor)
    }

    /// The descriptor's factor, when it declares login pages.
    init?(_ descriptor: FactorDescriptor) {
        guard let pages = descriptor.loginPages else { return nil }
        self.descriptor = descriptor
        self.pages = pages
    }

    /// The factor id (`totp`), as forms post it and flows store it.
    var id: String { descriptor.id.rawValue }

    /// How the pages name `enrollment` of this factor: its label, filled from the masked public info, or the
    /// factor's display name.
    func label(of enrollment: MFAEnrollment) -> String {
        FactorLoginPages.fill(Texts.current(pages.enrollmentLabel)) { enrollment.factorInfo[$0]?.stringValue }
            ?? Texts.current(descriptor.displayName)
    }
}
