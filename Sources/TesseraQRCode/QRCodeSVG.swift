internal import CQRencode
internal import Glibc

/// QR codes (ISO/IEC 18004) drawn as SVG, encoded by libqrencode in 8-bit mode with error correction level M.
///
/// The SVG is self-contained markup: one white background `<rect>` and one black `<path>`, no scripts, styles,
/// links or external references, so it can be inlined into an HTML page under a strict Content-Security-Policy.
/// Rendering takes well under a millisecond for an `otpauth://` URI; libqrencode is built thread-safe on Debian,
/// so calls from several threads are fine.
public enum QRCodeSVG {
    /// The longest text, in UTF-8 bytes, that ``render(_:moduleSize:quietZone:)`` accepts. Level M holds up to
    /// 2331 bytes, but a code that large (version 40, 177 modules) is hard to scan off a screen.
    public static let maximumByteCount = 2000

    /// The module sizes, in pixels, that ``render(_:moduleSize:quietZone:)`` accepts.
    static let moduleSizes = 1...64
    /// The quiet zones, in modules, that ``render(_:moduleSize:quietZone:)`` accepts; the standard asks for 4.
    static let quietZones = 0...64

    /// The SVG of the QR code of `text` (its UTF-8 bytes, case preserved), each module `moduleSize` pixels square
    /// (1...64), surrounded by `quietZone` white modules (0...64). The drawing is `(n + 2 * quietZone)` modules
    /// wide and high, where n = 17 + 4 * version; `width` and `height` are that times `moduleSize` pixels.
    ///
    /// The same input always gives the same output. Throws ``QRCodeError`` for an empty text, a text with a NUL
    /// character, a text longer than ``maximumByteCount`` bytes, sizes out of range, or when libqrencode fails.
    public static func render(_ text: String, moduleSize: Int = 4, quietZone: Int = 4) throws(QRCodeError) -> String {
        guard moduleSizes.contains(moduleSize) else { throw .moduleSizeOutOfRange(moduleSize) }
        guard quietZones.contains(quietZone) else { throw .quietZoneOutOfRange(quietZone) }
        let matrix = try modules(text)
        let side = matrix.count + 2 * quietZone
        let pixels = side * moduleSize
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\""
        svg += " width=\"\(pixels)\" height=\"\(pixels)\" role=\"img\" aria-label=\"QR code\">"
        svg += "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#ffffff\"/>"
        svg += "<path fill=\"#000000\" shape-rendering=\"crispEdges\" d=\""
        svg += darkModulesPath(matrix, offset: quietZone)
        svg += "\"/></svg>"
        return svg
    }

    /// The module matrix of the QR code of `text`, row by row from the top, true for a dark module; square, with
    /// 17 + 4 * version rows. Throws as ``render(_:moduleSize:quietZone:)`` does for the text.
    static func modules(_ text: String) throws(QRCodeError) -> [[Bool]] {
        let byteCount = text.utf8.count
        guard byteCount > 0 else { throw .emptyText }
        guard byteCount <= maximumByteCount else { throw .textTooLong(byteCount: byteCount, limit: maximumByteCount) }
        guard !text.utf8.contains(0) else { throw .textContainsNul }
        errno = 0
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw .encodingFailed(errno: errno)
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { throw .encodingFailed(errno: EINVAL) }
        // libqrencode's bit 0 of each byte is the module's colour (1 = dark); the other bits describe its role.
        return (0..<width).map { row in
            (0..<width).map { column in data[row * width + column] & 1 == 1 }
        }
    }

    /// SVG path data covering every dark module of `matrix`, moved right and down by `offset` modules: each
    /// horizontal run of dark modules is one rectangle `M x y h n v 1 h -n z`.
    private static func darkModulesPath(_ matrix: [[Bool]], offset: Int) -> String {
        var path = ""
        for (row, modules) in matrix.enumerated() {
            var column = 0
            while column < modules.count {
                guard modules[column] else {
                    column += 1
                    continue
                }
                let start = column
                while column < modules.count, modules[column] { column += 1 }
                let run = column - start
                path += "M\(start + offset) \(row + offset)h\(run)v1h-\(run)z"
            }
        }
        return path
    }
}
