/// `application/x-www-form-urlencoded` and query-string encoding and decoding.
enum FormEncoding {
    /// `value` with every byte outside the unreserved set of RFC 3986 percent-encoded.
    static func escape(_ value: String) -> String {
        var output: [UInt8] = []
        append(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// `pairs` as `name=value&...`, both sides escaped.
    static func encode(_ pairs: [(String, String)]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        for (name, value) in pairs {
            if !output.isEmpty { output.append(UInt8(ascii: "&")) }
            append(name, to: &output)
            output.append(UInt8(ascii: "="))
            append(value, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends `value` escaped as ``escape(_:)`` does.
    private static func append(_ value: String, to output: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 15)])
            }
        }
    }

    /// The value of parameter `name` in the query of `url` (or in a bare query string), decoded.
    static func queryValue(_ name: String, in url: String) -> String? {
        let bytes = Array(url.utf8)
        let key = Array(name.utf8)
        var position = (bytes.firstIndex(of: UInt8(ascii: "?")) ?? -1) + 1
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        while position < end {
            let pairEnd = bytes[position..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            let equals = bytes[position..<pairEnd].firstIndex(of: UInt8(ascii: "=")) ?? pairEnd
            let pairName = bytes[position..<equals]
            let matches =
                pairName.contains(UInt8(ascii: "%")) || pairName.contains(UInt8(ascii: "+"))
                ? unescape(Substring(String(decoding: pairName, as: UTF8.self))) == name
                : pairName.elementsEqual(key)
            if matches {
                let value = equals < pairEnd ? bytes[(equals + 1)..<pairEnd] : []
                return unescape(Substring(String(decoding: value, as: UTF8.self)))
            }
            position = pairEnd + 1
        }
        return nil
    }

    /// Decodes `%XX` escapes and `+` (a space).
    static func unescape(_ text: Substring) -> String {
        var output: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                output.append(value)
                index += 3
            } else {
                output.append(byte == UInt8(ascii: "+") ? 32 : byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
