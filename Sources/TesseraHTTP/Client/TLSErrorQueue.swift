internal import COpenSSL

/// Reads OpenSSL's per-thread error queue into text.
enum TLSErrorQueue {
    /// The reasons on this thread's error queue, oldest first and joined by `; `, and empties the queue. Returns
    /// "unknown error" when the queue is empty.
    static func drain() -> String {
        var reasons: [String] = []
        var code = ERR_get_error()
        while code != 0 {
            if let reason = ERR_reason_error_string(code) {
                reasons.append(String(cString: reason))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            code = ERR_get_error()
        }
        return reasons.isEmpty ? "unknown error" : reasons.joined(separator: "; ")
    }
}
