/// Records which parts of a JSON value a decoding asked for, mirroring the value's shape, so that members nobody
/// asked for can be found afterwards.
///
/// One node stands for one JSON value. A node whose object was opened as a keyed container must have every member
/// used, unless its keys were listed (`allKeys`, which is how dictionaries decode). Values that were never opened as
/// keyed containers (scalars, ``JSONValue`` properties) are not checked.
final class DecodingUsage {
    /// Whether the value was opened as a keyed container.
    var openedAsObject = false
    /// Whether `allKeys` was read, making every key used.
    var listedAllKeys = false
    /// The keys asked for.
    var usedKeys: Set<String> = []
    /// Nodes of members that were decoded further.
    private var members: [String: DecodingUsage] = [:]
    /// Nodes of array elements that were decoded further.
    private var elements: [Int: DecodingUsage] = [:]

    /// The node of a member, created on first use.
    func member(_ key: String) -> DecodingUsage {
        if let node = members[key] { return node }
        let node = DecodingUsage()
        members[key] = node
        return node
    }

    /// The node of an array element, created on first use.
    func element(_ index: Int) -> DecodingUsage {
        if let node = elements[index] { return node }
        let node = DecodingUsage()
        elements[index] = node
        return node
    }

    /// Looks for the first member, in document order, that was not asked for. On success `path` holds its location.
    func findUnknownField(in value: JSONValue, path: inout [JSONPath.Component]) -> Bool {
        switch value {
        case .object(let object):
            let checksKeys = openedAsObject && !listedAllKeys
            for member in object.members {
                path.append(.key(member.key))
                if checksKeys, !usedKeys.contains(member.key) { return true }
                if let node = members[member.key], node.findUnknownField(in: member.value, path: &path) { return true }
                path.removeLast()
            }
        case .array(let values):
            guard !elements.isEmpty else { return false }
            for (index, element) in values.enumerated() {
                guard let node = elements[index] else { continue }
                path.append(.index(index))
                if node.findUnknownField(in: element, path: &path) { return true }
                path.removeLast()
            }
        default:
            break
        }
        return false
    }
}
