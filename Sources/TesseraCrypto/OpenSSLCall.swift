internal import COpenSSL

/// Small helpers around OpenSSL's calling conventions, so every call site turns a failure into a ``CryptoError``
/// the same way.
enum OpenSSLCall {
    /// A ``CryptoError/library(operation:detail:)`` carrying and clearing this thread's OpenSSL error queue.
    static func failure(_ operation: String) -> CryptoError {
        var messages: [String] = []
        var code = ERR_get_error()
        while code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let message = buffer.withUnsafeBufferPointer { pointer in
                String(decoding: UnsafeRawBufferPointer(pointer).prefix { $0 != 0 }, as: UTF8.self)
            }
            messages.append(message)
            code = ERR_get_error()
        }
        return .library(operation: operation, detail: messages.joined(separator: "; "))
    }

    /// Throws ``failure(_:)`` unless an OpenSSL status is 1, OpenSSL's success value for most calls.
    static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(CryptoError) {
        if status != 1 { throw failure(operation()) }
    }

    /// Discards whatever an expected failure (a wrong signature, a wrong tag) left on the error queue, so it
    /// cannot be mistaken for the cause of a later, unrelated failure on this thread.
    static func clearErrors() {
        ERR_clear_error()
    }
}
