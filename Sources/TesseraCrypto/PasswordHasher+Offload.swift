/// Asynchronous variants that run scrypt through the caller's `offload` function, e.g. the event loop's
/// `offload` onto libuv's thread pool, so the loop keeps serving while a password is hashed. This module does not
/// depend on the loop; the caller passes the function: `hasher.hash(password) { try await loop.offload($0) }`.
extension PasswordHasher {
    /// ``hash(_:)`` run by `offload`. Throws what the work throws (``PasswordHashError``) or what `offload`
    /// throws.
    public func hash(
        _ password: String,
        offload: (@escaping @Sendable () throws -> String) async throws -> String
    ) async throws -> String {
        let hasher = self
        return try await offload { try hasher.hash(password) }
    }

    /// ``verify(_:against:)`` run by `offload`. Throws what the work throws (``PasswordHashError``) or what
    /// `offload` throws.
    public func verify(
        _ password: String,
        against phc: String,
        offload: (@escaping @Sendable () throws -> Bool) async throws -> Bool
    ) async throws -> Bool {
        let hasher = self
        return try await offload { try hasher.verify(password, against: phc) }
    }
}
