import TesseraJSON

/// Human-readable output of the admin CLI: aligned `key: value` lines for one object, compact tables for lists.
enum AdminTextFormat {
    /// One line per scalar of `value`, keyed by its dotted path (`mfa.state`, `mfaInfo[0].mfaEnrollmentId`), with
    /// the values aligned. Arrays of scalars are joined with `, `; empty containers show as `[]` and `{}`. Anything
    /// but a non-empty object is one line.
    static func objectLines(_ value: JSONValue) -> [String] {
        guard case .object(let object) = value, !object.isEmpty else { return [scalarText(value)] }
        var pairs: [(key: String, value: String)] = []
        flatten(value, path: "", into: &pairs)
        let width = pairs.map { $0.key.count }.max() ?? 0
        return pairs.map { pair in
            pair.key + ":" + String(repeating: " ", count: width - pair.key.count + 1) + pair.value
        }
    }

    /// A table: the header row, then one row per entry, columns two spaces apart and padded to their widest cell.
    static func table(headers: [String], rows: [[String]]) -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return ([headers] + rows).map { row in
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            return String(cells.joined(separator: "  ").reversed().drop { $0 == " " }.reversed())
        }
    }

    /// A scalar as text: strings without quotes, `-` for null or a missing value, containers as compact JSON.
    static func scalarText(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "-"
        case .string(let text)?: text
        case .bool(let flag)?: flag ? "true" : "false"
        case let other?: other.description
        }
    }

    private static func flatten(_ value: JSONValue, path: String, into pairs: inout [(key: String, value: String)]) {
        switch value {
        case .object(let object):
            guard !object.isEmpty else { return pairs.append((path, "{}")) }
            for member in object {
                flatten(member.value, path: path.isEmpty ? member.key : path + "." + member.key, into: &pairs)
            }
        case .array(let elements):
            if elements.allSatisfy(isScalar) {
                pairs.append((path, elements.isEmpty ? "[]" : elements.map { scalarText($0) }.joined(separator: ", ")))
            } else {
                for (index, element) in elements.enumerated() {
                    flatten(element, path: "\(path)[\(index)]", into: &pairs)
                }
            }
        default:
            pairs.append((path, scalarText(value)))
        }
    }

    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: false
        default: true
        }
    }
}
