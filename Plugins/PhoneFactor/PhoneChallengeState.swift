import TesseraCore

/// What an SMS enrolment's start step hands its finalize step (sealed by the router until then): the number the
/// code went to and the code's digest.
struct PhoneChallengeState: Equatable {
    /// The number being enrolled.
    var phoneNumber: String
    /// ``PhoneCode/digest(_:sessionInfo:)`` of the code sent.
    var codeDigest: [UInt8]

    /// The digest's length (HMAC-SHA256).
    private static let digestLength = 32

    /// The state as bytes: the digest, then the number's UTF-8.
    var bytes: [UInt8] { codeDigest + Array(phoneNumber.utf8) }

    /// A state with both parts given.
    init(phoneNumber: String, codeDigest: [UInt8]) {
        self.phoneNumber = phoneNumber
        self.codeDigest = codeDigest
    }

    /// Reads ``bytes``; `INVALID_SESSION_INFO` when they are not a state of this factor.
    init(bytes: [UInt8]) throws(AuthError) {
        guard bytes.count > Self.digestLength else {
            throw AuthError(.invalidSessionInfo, "The sessionInfo is not one of an SMS enrolment.")
        }
        codeDigest = Array(bytes.prefix(Self.digestLength))
        phoneNumber = String(decoding: bytes.dropFirst(Self.digestLength), as: UTF8.self)
    }
}
