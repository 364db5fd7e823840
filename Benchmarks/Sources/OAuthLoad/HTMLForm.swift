/// A form read from an HTML page: where it posts and the named inputs with their values. Enough for the login
/// pages the generator signs in through (API §6: fields `email`, `password`, hidden inputs posted back unchanged).
struct HTMLForm: Sendable {
    /// The `action` attribute, entity-decoded; empty means the page's own URL.
    var action: String
    /// The `method` attribute, lowercased (`get` when absent).
    var method: String
    /// Every `<input>` with a name, in document order: name, value and type.
    var inputs: [(name: String, value: String, type: String)]

    /// Whether an input of this name exists.
    func has(_ name: String) -> Bool { inputs.contains { $0.name == name } }

    /// Every form of `html`, in document order.
    static func forms(in html: String) -> [HTMLForm] {
        let bytes = Array(html.utf8)
        // ASCII-only lowercasing keeps every offset of `bytes` valid in `lowered`.
        let lowered = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
        func find(_ needle: String, from start: Int, to end: Int) -> Int? {
            let pattern = Array(needle.utf8)
            guard end - start >= pattern.count else { return nil }
            for index in start...(end - pattern.count)
            where lowered[index..<index + pattern.count].elementsEqual(pattern) {
                return index
            }
            return nil
        }
        func text(_ range: Range<Int>) -> Substring { Substring(String(decoding: bytes[range], as: UTF8.self)) }
        var forms: [HTMLForm] = []
        var searchStart = 0
        while let open = find("<form", from: searchStart, to: lowered.count) {
            let close = find("</form", from: open, to: lowered.count) ?? lowered.count
            guard let tagEnd = lowered[(open + 5)..<close].firstIndex(of: UInt8(ascii: ">")) else { break }
            let formAttributes = attributes(of: text((open + 5)..<tagEnd))
            var form = HTMLForm(
                action: formAttributes["action"] ?? "", method: (formAttributes["method"] ?? "get").lowercased(),
                inputs: [])
            var inputStart = tagEnd
            while let input = find("<input", from: inputStart, to: close) {
                guard let inputEnd = lowered[(input + 6)..<close].firstIndex(of: UInt8(ascii: ">")) else { break }
                let inputAttributes = attributes(of: text((input + 6)..<inputEnd))
                if let name = inputAttributes["name"] {
                    form.inputs.append(
                        (name, inputAttributes["value"] ?? "", (inputAttributes["type"] ?? "text").lowercased()))
                }
                inputStart = inputEnd
            }
            forms.append(form)
            searchStart = close
        }
        return forms
    }

    /// The attributes of a start tag's inside (after the tag name), names lowercased, values entity-decoded.
    static func attributes(of tag: Substring) -> [String: String] {
        var result: [String: String] = [:]
        let characters = Array(tag)
        var index = 0
        func skipSpaces() {
            while index < characters.count, characters[index].isWhitespace || characters[index] == "/" { index += 1 }
        }
        while true {
            skipSpaces()
            guard index < characters.count else { break }
            var name = ""
            while index < characters.count, !characters[index].isWhitespace, characters[index] != "=",
                characters[index] != "/"
            {
                name.append(characters[index])
                index += 1
            }
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            var value = ""
            if index < characters.count, characters[index] == "=" {
                index += 1
                while index < characters.count, characters[index].isWhitespace { index += 1 }
                if index < characters.count, characters[index] == "\"" || characters[index] == "'" {
                    let quote = characters[index]
                    index += 1
                    while index < characters.count, characters[index] != quote {
                        value.append(characters[index])
                        index += 1
                    }
                    index += 1
                } else {
                    while index < characters.count, !characters[index].isWhitespace {
                        value.append(characters[index])
                        index += 1
                    }
                }
            }
            if !name.isEmpty { result[name.lowercased()] = decodeEntities(value) }
        }
        return result
    }

    /// `text` with the character references HTML escaping produces decoded.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            guard let semicolon = rest[afterAmpersand...].prefix(10).firstIndex(of: ";") else {
                output += "&"
                rest = rest[afterAmpersand...]
                continue
            }
            let entity = rest[afterAmpersand..<semicolon]
            let decoded: String? =
                switch entity {
                case "amp": "&"
                case "lt": "<"
                case "gt": ">"
                case "quot": "\""
                case "apos": "'"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                    } else if entity.hasPrefix("#") {
                        UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                    } else {
                        nil
                    }
                }
            if let decoded {
                output += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output += "&"
                rest = rest[afterAmpersand...]
            }
        }
        output += rest
        return output
    }
}
