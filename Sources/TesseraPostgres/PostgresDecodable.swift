public import FoundationEssentials

/// A Swift value that a result cell (text format) decodes into.
public protocol PostgresDecodable: Sendable {
    /// Parses the cell's text; nil when it is not a valid value of this type.
    init?(postgresText bytes: UnsafeBufferPointer<UInt8>)
    /// The value SQL NULL decodes into; nil for types that cannot be NULL.
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }
}

extension String: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        self = String(decoding: bytes, as: UTF8.self)
    }
}

extension Int: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = Int(String(decoding: bytes, as: UTF8.self)) else { return nil }
        self = value
    }
}

extension Int64: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = Int64(String(decoding: bytes, as: UTF8.self)) else { return nil }
        self = value
    }
}

extension Bool: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 1 else { return nil }
        switch bytes[0] {
        case UInt8(ascii: "t"): self = true
        case UInt8(ascii: "f"): self = false
        default: return nil
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// `bytea` in the hex output format (`\x0a1b…`).
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 2, bytes.count % 2 == 0, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x")
        else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count / 2 - 1)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            decoded.append(high << 4 | low)
            index += 2
        }
        self = decoded
    }
}

extension UUID: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = UUID(uuidString: String(decoding: bytes, as: UTF8.self)) else { return nil }
        self = value
    }
}

extension Date: PostgresDecodable {
    /// `timestamptz` as the driver's sessions print it (ISO, UTC).
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = PostgresTimestamp.parse(bytes) else { return nil }
        self = value
    }
}

extension PostgresJSONB: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        self.init(String(decoding: bytes, as: UTF8.self))
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init?(postgresText bytes: UnsafeBufferPointer<UInt8>) {
        guard let value = Wrapped(postgresText: bytes) else { return nil }
        self = .some(value)
    }

    public static var postgresNull: Self? { .some(.none) }
}
