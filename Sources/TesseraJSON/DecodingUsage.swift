/// Records which parts of a JSON value a decoding asked for, mirroring the value's shape, so that members nobody
/// asked for can be found afterwards.
///
/// One node stands for one JSON value. A node whose object was opened as a keyed container must have every member
/// used, unless its keys were listed (`allKeys`, which is how dictionaries decode). Values that were never opened as
/// keyed containers (scalars, ``JSONValue`` properties) are not checked. Members and elements are tracked by
/// position, so marking costs no hashing.
final class DecodingUsage {
    /// Whether the value was opened as a keyed container.
    var openedAsObject = false
    /// Whether `allKeys` was read, making every key used.
    var listedAllKeys = false
    /// Which object members were asked for, by position; empty until the first one is.
    private var used: [Bool] = []
    /// Nodes of members or elements that were decoded further, by position; empty until the first one is.
    private var children: [DecodingUsage?] = []

    /// Marks the member at `position` of an object with `count` members as asked for.
    func markUsed(_ position: Int, of count: Int) {
        if used.isEmpty { used = Array(repeating: false, count: count) }
        used[position] = true
    }

    /// The node of the member or element at `position` of a container with `count` entries, created on first use.
    func child(_ position: Int, of count: Int) -> DecodingUsage {
        if children.isEmpty { children = Array(repeating: nil, count: count) }
        if let node = children[position] { return node }
        let node = DecodingUsage()
        children[position] = node
        return node
    }

    /// Looks for the first member, in document order, that was not asked for. On success `path` holds its location.
    func findUnknownField(in value: JSONValue, path: inout [JSONPath.Component]) -> Bool {
        switch value {
        case .object(let object):
            let checksKeys = openedAsObject && !listedAllKeys
            for (position, member) in object.members.enumerated() {
                path.append(.key(member.key))
                if checksKeys, used.isEmpty || !used[position] { return true }
                if let node = childIfAny(position), node.findUnknownField(in: member.value, path: &path) {
                    return true
                }
                path.removeLast()
            }
        case .array(let elements):
            guard !children.isEmpty else { return false }
            for (position, element) in elements.enumerated() {
                guard let node = childIfAny(position) else { continue }
                path.append(.index(position))
                if node.findUnknownField(in: element, path: &path) { return true }
                path.removeLast()
            }
        default:
            break
        }
        return false
    }

    private func childIfAny(_ position: Int) -> DecodingUsage? {
        children.isEmpty ? nil : children[position]
    }
}
