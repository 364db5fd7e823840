import TesseraCrypto
import TesseraLoop

/// Passwords (API §9): 8–4096 characters, hashed with scrypt on libuv's thread pool, never on the event loop,
/// through the server's ``PasswordHashingQueue``.
struct PasswordPolicy: Sendable {
    /// The accepted lengths, in characters.
    static let lengths = 8...4096

    let hasher: PasswordHasher
    let queue: PasswordHashingQueue

    /// `WEAK_PASSWORD` unless `password` has an accepted length.
    static func check(_ password: String) throws(AuthError) {
        guard lengths.contains(password.count) else {
            throw AuthError(.weakPassword, "The password must be 8 to 4096 characters long.")
        }
    }

    /// The scrypt PHC string of `password`, computed off the loop.
    func hash(_ password: String) async throws -> String {
        try await queue.run { try await hasher.hash(password) { work in try await Self.offload(work) } }
    }

    /// Whether `password` matches `phc`, computed off the loop.
    func verify(_ password: String, against phc: String) async throws -> Bool {
        try await queue.run { try await hasher.verify(password, against: phc) { work in try await Self.offload(work) } }
    }

    /// Runs `work` on the thread pool of the calling loop; a caller on no loop (a test) runs it in place.
    private static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard let loop = EventLoop.current else { return try work() }
        return try await loop.offload(work)
    }
}
