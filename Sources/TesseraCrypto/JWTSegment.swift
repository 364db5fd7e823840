/// The three dot-separated parts of a compact JWS, named in ``JWTError`` so a failure says where it is.
public enum JWTSegment: String, Sendable, Equatable {
    /// The protected header.
    case header
    /// The payload (the claims).
    case payload
    /// The signature.
    case signature
}
