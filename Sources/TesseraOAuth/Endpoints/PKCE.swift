import TesseraCrypto
import TesseraHTTP

/// Proof Key for Code Exchange with `S256` only (RFC 7636).
public enum PKCE {
    /// The `code_challenge` of `verifier`: base64url (no padding) of its SHA-256 (RFC 7636 §4.2). `invalid_request`
    /// when the verifier is not 43 to 128 unreserved characters (RFC 7636 §4.1).
    public static func challenge(of verifier: String) throws(OAuthError) -> String {
        guard isWellFormed(verifier) else {
            throw OAuthError(.invalidRequest, "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
        }
        do { return Base64URL.encode(try Digest.sha256(verifier)) } catch {
            throw OAuthError(.serverError, "cannot hash the code verifier: \(error)")
        }
    }

    /// Whether `text` has the syntax of a verifier, and so of an S256 challenge's input.
    public static func isWellFormed(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.allUTF8Bytes(satisfy: PercentEncoding.isUnreserved)
    }
}
