/// A JSON object: an ordered list of members whose keys are unique.
///
/// Members keep the order in which they were parsed or added, so serializing an object gives back the order it was
/// built in. Lookup by key is a linear scan for small objects (faster than hashing for the handful of members a
/// request carries) and uses a hash index once an object grows past ``indexThreshold`` members.
///
/// Equality and hashing ignore member order, as JSON's data model does.
public struct JSONObject: Sendable {
    /// Objects with more members than this get a hash index for lookups.
    static let indexThreshold = 12

    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]
    /// Position of each key in `members`, present only for objects above the threshold.
    private var index: [String: Int]?

    /// Creates an empty object.
    public init() {
        members = []
        index = nil
    }

    /// Creates an object from members in order; when a key repeats, the last value wins at the first position.
    public init(_ members: some Sequence<(key: String, value: JSONValue)>) {
        self.init()
        for member in members {
            self[member.key] = member.value
        }
    }

    /// Creates an object from members whose keys the caller guarantees to be unique.
    init(uniqueMembers: [(key: String, value: JSONValue)]) {
        members = uniqueMembers
        index = nil
        rebuildIndex()
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of a member, or nil when absent. Setting nil removes the member; setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key: key, value: newValue)
            }
        }
    }

    /// Whether a member with this key exists.
    public func contains(key: String) -> Bool { position(of: key) != nil }

    /// Appends a member whose key is not present yet; returns false (and changes nothing) when the key exists.
    @discardableResult
    public mutating func insertNew(key: String, value: JSONValue) -> Bool {
        guard position(of: key) == nil else { return false }
        append(key: key, value: value)
        return true
    }

    /// Removes the member with this key and returns its value, or nil when absent.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(of: key) else { return nil }
        let value = members[position].value
        members.remove(at: position)
        rebuildIndex()
        return value
    }

    /// The position of a key in `members`.
    func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    private mutating func append(key: String, value: JSONValue) {
        members.append((key: key, value: value))
        if index != nil {
            index?[key] = members.count - 1
        } else if members.count > JSONObject.indexThreshold {
            rebuildIndex()
        }
    }

    private mutating func rebuildIndex() {
        guard members.count > JSONObject.indexThreshold else {
            index = nil
            return
        }
        var positions = [String: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() {
            positions[member.key] = position
        }
        index = positions
    }
}

extension JSONObject: Hashable {
    /// Two objects are equal when they have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Hashes the members independently of their order.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined = combined &+ memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: Sequence {
    /// Iterates over the members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal, keeping the literal's order. Repeated keys are a programming error.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements {
            let inserted = insertNew(key: key, value: value)
            precondition(inserted, "duplicate key '\(key)' in a JSON object literal")
        }
    }
}
