/// The `otpauth://` key URI that authenticator apps read (API §4):
/// `otpauth://totp/ISSUER:ACCOUNT?secret=…&issuer=ISSUER&algorithm=SHA1&digits=6&period=30`, with the issuer and
/// account percent-encoded (RFC 3986: everything but unreserved characters, and `@` kept in the label).
enum OTPAuthURI {
    /// The URI for `account` at `issuer` with the base32 `secret`.
    static func make(issuer: String, account: String, secret: String, digits: Int, period: Int) -> String {
        let label = encode(issuer, keeping: "") + ":" + encode(account, keeping: "@")
        return "otpauth://totp/\(label)?secret=\(secret)&issuer=\(encode(issuer, keeping: ""))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }

    /// `text` with every byte outside the unreserved set (and `extra`) as `%XX`.
    static func encode(_ text: String, keeping extra: String) -> String {
        let kept = Set(extra.utf8)
        var encoded = ""
        for byte in text.utf8 {
            let isUnreserved =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if isUnreserved || kept.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
            }
        }
        return encoded
    }
}
