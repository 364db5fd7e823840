internal import COpenSSL

/// One TLS client session over memory BIOs: the owner moves ciphertext between the session and the socket, so
/// OpenSSL never touches the socket and the loop never blocks.
///
/// Bytes read from the socket go in through ``receive(_:)``; whatever the session wants to send (handshake records,
/// encrypted data, alerts) comes out of ``takeOutput()`` after every call. The session verifies the server's
/// certificate chain against the context's trust roots and its name (or IP address) against the URL's host, and
/// sends the host name as SNI. Use it on one thread; OpenSSL's error queue is per thread, and each call reads
/// what it caused.
final class TLSClientSession {
    /// Where the handshake stands after a step.
    enum HandshakeProgress {
        /// The handshake is complete and the peer verified: application data may flow.
        case established
        /// The session waits for more bytes from the peer.
        case needsInput
        /// The handshake failed; the text is OpenSSL's reason.
        case failed(String)
    }

    /// What one attempt to read application data found.
    enum ReadOutcome {
        /// Decrypted application data.
        case plaintext([UInt8])
        /// Nothing more can be decrypted until more bytes arrive.
        case needsInput
        /// The peer closed the TLS stream cleanly (close_notify).
        case closed
        /// The stream failed; the text is OpenSSL's reason.
        case failed(String)
    }

    private let ssl: OpaquePointer
    private let networkInput: OpaquePointer
    private let networkOutput: OpaquePointer

    /// Creates a client session for `host` (a DNS name, or an IP address when `hostIsIPAddress`).
    init(context: TLSClientContext, host: String, hostIsIPAddress: Bool) throws(HTTPClientError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            throw .tlsFailure(host: host, reason: "cannot create a TLS session: \(TLSErrorQueue.drain())")
        }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tlsFailure(host: host, reason: "cannot create memory BIOs: \(TLSErrorQueue.drain())")
        }
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        networkInput = input
        networkOutput = output
        SSL_set_connect_state(ssl)
        let configured: Bool
        if hostIsIPAddress {
            configured = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
        } else {
            configured = SSL_set1_host(ssl, host) == 1 && tessera_ssl_set_server_name(ssl, host) == 1
        }
        guard configured else {
            throw .tlsFailure(host: host, reason: "cannot set the expected host: \(TLSErrorQueue.drain())")
        }
    }

    deinit { SSL_free(ssl) }

    /// Hands bytes read from the socket to the session.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        // A memory BIO grows as needed, so the write takes everything.
        _ = BIO_write(networkInput, base, Int32(bytes.count))
    }

    /// Advances the handshake as far as the bytes received so far allow.
    func handshake() -> HandshakeProgress {
        ERR_clear_error()
        let status = SSL_do_handshake(ssl)
        if status == 1 { return .established }
        let error = SSL_get_error(ssl, status)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .needsInput }
        return .failed(failureReason(error))
    }

    /// Encrypts application data; the records come out of ``takeOutput()``. Returns OpenSSL's reason on failure.
    func send(_ plaintext: [UInt8]) -> String? {
        var offset = 0
        while offset < plaintext.count {
            ERR_clear_error()
            let written = plaintext[offset...].withUnsafeBytes { buffer in
                SSL_write(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
            }
            guard written > 0 else { return failureReason(SSL_get_error(ssl, written)) }
            offset += Int(written)
        }
        return nil
    }

    /// Decrypts the next piece of application data from the bytes received so far.
    func read() -> ReadOutcome {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        ERR_clear_error()
        let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if count > 0 { return .plaintext(Array(buffer[0..<Int(count)])) }
        let error = SSL_get_error(ssl, count)
        switch error {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needsInput
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed(failureReason(error))
        }
    }

    /// Takes the bytes the session wants sent to the peer (possibly none).
    func takeOutput() -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(networkOutput))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(networkOutput, $0.baseAddress, Int32($0.count)) }
        return read > 0 ? Array(bytes[0..<Int(read)]) : []
    }

    /// OpenSSL's explanation of a failed call: the certificate verification result when verification failed,
    /// otherwise the error queue.
    private func failureReason(_ error: Int32) -> String {
        let verification = SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            ERR_clear_error()
            let text = X509_verify_cert_error_string(verification).map { String(cString: $0) } ?? "\(verification)"
            return "certificate verification failed: \(text)"
        }
        if ERR_peek_error() != 0 { return TLSErrorQueue.drain() }
        switch error {
        case SSL_ERROR_SYSCALL: return "the connection ended in the middle of the TLS stream"
        case SSL_ERROR_ZERO_RETURN: return "the peer closed the TLS stream"
        default: return "TLS error \(error)"
        }
    }
}
