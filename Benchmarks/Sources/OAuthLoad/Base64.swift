/// Base64 encodings: the URL-safe alphabet without padding (PKCE) and the standard one (HTTP Basic).
enum Base64 {
    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` in base64url without padding (RFC 4648 §5), as RFC 7636 wants for verifiers and challenges.
    static func urlEncoded(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: urlAlphabet, padding: false)
    }

    /// `bytes` in standard base64 with padding.
    static func encoded(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: standardAlphabet, padding: true)
    }

    private static func encode(_ bytes: [UInt8], alphabet: [UInt8], padding: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            let group = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if remaining == 2 { output.append(alphabet[Int(group >> 6 & 63)]) }
            if padding { output.append(contentsOf: Array(repeating: UInt8(ascii: "="), count: 3 - remaining)) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
