internal import Glibc

/// Why ``QRCodeSVG`` could not draw a text. Nothing is ever drawn partially: every failure is one of these.
public enum QRCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text has no bytes; a QR code of nothing is never what a caller meant.
    case emptyText
    /// The text contains a NUL character, which a C string (and so libqrencode's string encoder) cannot carry.
    case textContainsNul
    /// The text's UTF-8 form is longer than ``QRCodeSVG/maximumByteCount``.
    case textTooLong(byteCount: Int, limit: Int)
    /// A module size outside 1...64 pixels.
    case moduleSizeOutOfRange(Int)
    /// A quiet zone outside 0...64 modules.
    case quietZoneOutOfRange(Int)
    /// libqrencode returned no symbol; `errno` is what it set (`ERANGE`: too large, `ENOMEM`, `EINVAL`).
    case encodingFailed(errno: Int32)

    /// One line saying what is wrong; never includes the text, which may carry a secret (`otpauth://`).
    public var description: String {
        switch self {
        case .emptyText: "QR code text is empty"
        case .textContainsNul: "QR code text contains a NUL character"
        case .textTooLong(let byteCount, let limit): "QR code text of \(byteCount) bytes is longer than \(limit)"
        case .moduleSizeOutOfRange(let size): "QR code module size \(size) is outside 1...64"
        case .quietZoneOutOfRange(let zone): "QR code quiet zone \(zone) is outside 0...64"
        case .encodingFailed(let code): "libqrencode failed: \(Self.message(errno: code))"
        }
    }

    /// The C library's message for `errno`, e.g. "Numerical result out of range" for `ERANGE`.
    private static func message(errno code: Int32) -> String {
        guard let message = strerror(code) else { return "errno \(code)" }
        return String(cString: message) + " (errno \(code))"
    }
}
