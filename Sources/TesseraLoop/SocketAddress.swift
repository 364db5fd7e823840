internal import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// Conversions between `host:port` text and socket addresses.
enum SocketAddress {
    /// Builds a socket address from a numeric IPv4 or IPv6 host (brackets around IPv6 allowed) and a port.
    static func make(host: String, port: Int) throws(LoopError) -> sockaddr_storage {
        var storage = sockaddr_storage()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard (0...65535).contains(port) else { throw LoopError("port \(port)", code: UV_EINVAL.rawValue) }
        let status: Int32 = withUnsafeMutablePointer(to: &storage) { pointer in
            if bare.contains(":") {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    uv_ip6_addr(bare, Int32(port), $0)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_addr(bare, Int32(port), $0) }
        }
        try LoopError.check(status, "address \(host)")
        return storage
    }

    /// `host:port` (IPv6 in brackets) for a socket address; nil for other families.
    static func describe(_ storage: sockaddr_storage) -> String? {
        var storage = storage
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &storage) { pointer -> String? in
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    guard LoopError.failure(uv_ip4_name(address, &text, text.count), "ip4_name") == nil else {
                        return nil
                    }
                    return "\(decode(text)):\(UInt16(bigEndian: address.pointee.sin_port))"
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    guard LoopError.failure(uv_ip6_name(address, &text, text.count), "ip6_name") == nil else {
                        return nil
                    }
                    return "[\(decode(text))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            default:
                return nil
            }
        }
    }

    /// The port of a socket address.
    static func port(_ storage: sockaddr_storage) -> Int {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default: 0
            }
        }
    }

    /// The text of a NUL-terminated C buffer.
    private static func decode(_ text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
