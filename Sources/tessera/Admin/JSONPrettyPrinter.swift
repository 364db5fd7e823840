import TesseraJSON

/// Writes JSON for people and scripts: two-space indentation, one member or element per line, members in their
/// order, `[]` and `{}` for empty containers.
enum JSONPrettyPrinter {
    /// The pretty text of `value`, without a trailing newline.
    static func format(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", to: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: String, to out: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            for (position, element) in elements.enumerated() {
                out += inner
                write(element, indent: inner, to: &out)
                out += position == elements.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (position, member) in object.members.enumerated() {
                out += inner + JSONValue.string(member.key).description + ": "
                write(member.value, indent: inner, to: &out)
                out += position == object.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        default:
            out += value.description
        }
    }
}
