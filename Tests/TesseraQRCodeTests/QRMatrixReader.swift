/// Reads back what a QR module matrix says, independently of libqrencode, so the tests can prove the matrix
/// encodes the text: no QR decoder (zbarimg, a Python library) is installed on the build machine.
///
/// Follows ISO/IEC 18004 (the layout as Project Nayuki's reference generator draws it): finder patterns, the
/// format information (error correction level and mask), and for versions 1–3, which hold one Reed–Solomon block
/// at level M, the byte-mode payload.
struct QRMatrixReader {
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    let modules: [[Bool]]
    var size: Int { modules.count }
    var version: Int { (size - 17) / 4 }

    init(_ modules: [[Bool]]) throws {
        guard modules.count >= 21, modules.count <= 177, (modules.count - 17) % 4 == 0,
            modules.allSatisfy({ $0.count == modules.count })
        else { throw Unreadable(description: "not a square of 17 + 4 * version modules") }
        self.modules = modules
    }

    func isDark(x: Int, y: Int) -> Bool { modules[y][x] }

    /// Whether a finder pattern (a 7x7 dark ring, a 5x5 light ring, a 3x3 dark core) has its top left corner at
    /// (x, y), with the light separator around it where it lies inside the symbol.
    func hasFinderPattern(x left: Int, y top: Int) -> Bool {
        for dy in -1...7 {
            for dx in -1...7 {
                let x = left + dx
                let y = top + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx - 3), abs(dy - 3))
                if isDark(x: x, y: y) != (ring != 2 && ring != 4) { return false }
            }
        }
        return true
    }

    /// The (error correction bits, mask) of the format information, when both copies hold the same valid
    /// codeword. Error correction bits: L = 1, M = 0, Q = 3, H = 2.
    func formatInformation() throws -> (errorCorrection: Int, mask: Int) {
        var first = 0
        var second = 0
        for bit in 0..<15 {
            let firstPosition: (x: Int, y: Int) =
                switch bit {
                case 0...5: (8, bit)
                case 6: (8, 7)
                case 7: (8, 8)
                case 8: (7, 8)
                default: (14 - bit, 8)
                }
            let secondPosition: (x: Int, y: Int) = bit < 8 ? (size - 1 - bit, 8) : (8, size - 15 + bit)
            if isDark(x: firstPosition.x, y: firstPosition.y) { first |= 1 << bit }
            if isDark(x: secondPosition.x, y: secondPosition.y) { second |= 1 << bit }
        }
        guard first == second else { throw Unreadable(description: "the two format information copies differ") }
        guard isDark(x: 8, y: size - 8) else { throw Unreadable(description: "the dark module is light") }
        for data in 0..<32 where Self.formatCodeword(data) == first {
            return (data >> 3, data & 7)
        }
        throw Unreadable(description: "format information \(first) is no valid codeword")
    }

    /// The UTF-8 text of a version 1–3, level M symbol in byte mode.
    func byteModeText() throws -> String {
        let dataCodewords = [1: 16, 2: 28, 3: 44]
        guard let count = dataCodewords[version] else {
            throw Unreadable(description: "version \(version) has several blocks; only 1-3 are read")
        }
        let format = try formatInformation()
        guard format.errorCorrection == 0 else { throw Unreadable(description: "level is not M") }
        var bits: [Bool] = []
        for (x, y) in dataModulePositions() where bits.count < count * 8 {
            bits.append(isDark(x: x, y: y) != Self.masked(format.mask, x: x, y: y))
        }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 << 1 | (bits[$1] ? 1 : 0) } }
        guard number(0..<4) == 0b0100 else { throw Unreadable(description: "first segment is not byte mode") }
        let length = number(4..<12)
        guard 12 + length * 8 + 4 <= bits.count else { throw Unreadable(description: "length \(length) too long") }
        let bytes = (0..<length).map { UInt8(number(12 + $0 * 8..<20 + $0 * 8)) }
        let terminatorStart = 12 + length * 8
        guard number(terminatorStart..<terminatorStart + 4) == 0 else {
            throw Unreadable(description: "no terminator after the segment")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The 15-bit format codeword of 5 data bits: a BCH(15, 5) code, XORed with 101010000010010.
    static func formatCodeword(_ data: Int) -> Int {
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// Whether mask pattern `mask` inverts the module at (x, y).
    static func masked(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// The positions of data modules in placement order: two-column strips from the right, alternately upward and
    /// downward, skipping the vertical timing column and every function module.
    func dataModulePositions() -> [(x: Int, y: Int)] {
        var positions: [(x: Int, y: Int)] = []
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for x in [right, right - 1] where !isFunctionModule(x: x, y: y) {
                    positions.append((x, y))
                }
            }
            right -= 2
        }
        return positions
    }

    /// Whether (x, y) belongs to a finder pattern with its separator and format area, a timing pattern, or the
    /// alignment pattern of versions 2–6.
    func isFunctionModule(x: Int, y: Int) -> Bool {
        if x <= 8 && y <= 8 { return true }
        if x >= size - 8 && y <= 8 { return true }
        if x <= 8 && y >= size - 8 { return true }
        if x == 6 || y == 6 { return true }
        if (2...6).contains(version) && abs(x - (size - 7)) <= 2 && abs(y - (size - 7)) <= 2 { return true }
        return false
    }
}
