/// The location of a value inside a JSON document: object keys and array indices from the root.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step into an object or an array.
    public enum Component: Sendable, Hashable {
        /// An object member by key.
        case key(String)
        /// An array element by position.
        case index(Int)
    }

    /// The steps from the root, outermost first.
    public var components: [Component]

    /// Creates a path from its steps.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// Creates a path from a `Codable` coding path; array positions become indices.
    public init(codingPath: [any CodingKey]) {
        components = codingPath.map { key in
            if let index = key as? JSONIndexKey { return .index(index.index) }
            return .key(key.stringValue)
        }
    }

    /// Whether this is the root.
    public var isRoot: Bool { components.isEmpty }

    /// The path in dotted form: `phoneEnrollmentInfo.phoneNumber`, `providerConfigs[0].state`; empty for the root.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}

/// The coding key of an array element, so paths can tell positions from keys that look like numbers.
public struct JSONIndexKey: CodingKey, Sendable {
    /// The element's position.
    public let index: Int

    /// Creates the key of the element at a position.
    public init(_ index: Int) { self.index = index }

    /// `Index N`, as Foundation names element keys.
    public var stringValue: String { "Index \(index)" }
    /// The position.
    public var intValue: Int? { index }

    /// Index keys are made from positions only.
    public init?(stringValue: String) { nil }

    /// Creates the key of the element at a position.
    public init?(intValue: Int) { index = intValue }
}

/// A coding key made from any string, used for object members whose keys are data (maps, ``JSONValue``).
public struct JSONStringKey: CodingKey, Sendable {
    /// The member's key.
    public let stringValue: String

    /// Creates the key.
    public init(_ stringValue: String) { self.stringValue = stringValue }

    /// Creates the key.
    public init?(stringValue: String) { self.stringValue = stringValue }

    /// Member keys are strings only.
    public var intValue: Int? { nil }

    /// Creates the key from the integer's decimal text.
    public init?(intValue: Int) { stringValue = String(intValue) }
}
