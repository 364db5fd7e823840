/// The value being built by one ``JSONValueEncoderImpl``: nothing yet, a finished value, or an object or array whose
/// members may still be written through containers handed out earlier.
final class EncodingNode {
    /// What the node holds.
    enum Kind {
        case empty, value, object, array
    }

    /// A member or element: finished, or still open (a nested container or super-encoder may write to it later).
    enum Slot {
        case value(JSONValue)
        case node(EncodingNode)
    }

    private(set) var kind = Kind.empty
    private var value = JSONValue.null
    private var keys: [String] = []
    private var slots: [Slot] = []
    private var keyIndex: [String: Int]?

    /// Makes the node a finished value, dropping whatever it held.
    func setValue(_ newValue: JSONValue) {
        kind = .value
        value = newValue
        keys = []
        slots = []
        keyIndex = nil
    }

    /// Makes the node an object, keeping its members when it already is one.
    func becomeObject() {
        guard kind != .object else { return }
        kind = .object
        keys = []
        slots = []
        keyIndex = nil
    }

    /// Makes the node an array, keeping its elements when it already is one.
    func becomeArray() {
        guard kind != .array else { return }
        kind = .array
        keys = []
        slots = []
        keyIndex = nil
    }

    /// Sets an object member: a new key is appended, a known one keeps its position and takes the new slot.
    func setMember(_ key: String, _ slot: Slot) {
        if let position = position(of: key) {
            slots[position] = slot
            return
        }
        keys.append(key)
        slots.append(slot)
        if keyIndex != nil {
            keyIndex?[key] = keys.count - 1
        } else if keys.count > JSONObject.indexThreshold {
            keyIndex = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, $0.offset) })
        }
    }

    /// Appends an array element.
    func appendElement(_ slot: Slot) {
        slots.append(slot)
    }

    /// The number of array elements so far.
    var elementCount: Int { slots.count }

    private func position(of key: String) -> Int? {
        if let keyIndex { return keyIndex[key] }
        return keys.firstIndex(of: key)
    }

    /// The finished value.
    func resolve() -> JSONValue {
        switch kind {
        case .empty:
            return .object(JSONObject())
        case .value:
            return value
        case .object:
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(keys.count)
            for (key, slot) in zip(keys, slots) {
                members.append((key: key, value: EncodingNode.resolve(slot)))
            }
            return .object(JSONObject(uniqueMembers: members))
        case .array:
            return .array(slots.map(EncodingNode.resolve))
        }
    }

    private static func resolve(_ slot: Slot) -> JSONValue {
        switch slot {
        case .value(let value): value
        case .node(let node): node.resolve()
        }
    }
}
