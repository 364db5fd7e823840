extension JSONValue {
    /// The member of an object, or nil when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element of an array, or nil when this is not an array or the index is out of bounds.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The string, when this is one.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The integer, only when this is an ``integer(_:)`` (never converted from a double).
    public var int64Value: Int64? {
        guard case .integer(let value) = self else { return nil }
        return value
    }

    /// The integer as `Int`, only when this is an ``integer(_:)`` that fits.
    public var intValue: Int? {
        guard case .integer(let value) = self else { return nil }
        return Int(exactly: value)
    }

    /// The number as a `Double`, for integers and doubles alike.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The object, when this is one.
    public var objectValue: JSONObject? {
        guard case .object(let object) = self else { return nil }
        return object
    }
}
