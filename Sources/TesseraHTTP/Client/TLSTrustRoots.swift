/// The certificates an ``HTTPClient`` trusts when it verifies an https server.
public enum TLSTrustRoots: Sendable, Hashable {
    /// The operating system's trust store, found through OpenSSL's default verify paths (`/etc/ssl/certs` on
    /// Debian).
    case system
    /// Only the CA certificates of this PEM file: a private CA, or a test's self-signed one.
    case certificateFile(path: String)
}
