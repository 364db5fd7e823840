internal import COpenSSL

/// The OpenSSL client context of one ``HTTPClient``: TLS 1.2 or newer, and peer verification against the
/// configured ``TLSTrustRoots``.
///
/// The context is set up once and never changed afterwards; OpenSSL allows sessions to be created from such a
/// context on any thread, which is why it may be shared by every loop.
final class TLSClientContext: @unchecked Sendable {
    /// The `SSL_CTX`.
    let context: OpaquePointer

    /// Creates the context; fails when OpenSSL cannot create it or cannot load the trust roots.
    init(trustRoots: TLSTrustRoots) throws(HTTPClientError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .tlsSetupFailed(reason: "cannot create a TLS context: \(TLSErrorQueue.drain())")
        }
        self.context = context
        guard tessera_ssl_ctx_require_tls12(context) == 1 else {
            throw .tlsSetupFailed(reason: "cannot require TLS 1.2: \(TLSErrorQueue.drain())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        switch trustRoots {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw .tlsSetupFailed(reason: "cannot use the system trust store: \(TLSErrorQueue.drain())")
            }
        case .certificateFile(let path):
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                throw .tlsSetupFailed(reason: "cannot load CA certificates from \(path): \(TLSErrorQueue.drain())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }
}
