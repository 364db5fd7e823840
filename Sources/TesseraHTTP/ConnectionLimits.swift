import Synchronization

/// The open connections of one server, over all its loops, by client address: admits a new connection while the
/// server is under ``HTTPServerConfiguration/maxConnections`` and its client under
/// ``HTTPServerConfiguration/maxConnectionsPerClient``. Safe from any thread.
final class ConnectionLimits: Sendable {
    private struct Counts {
        var total = 0
        var byClient: [IPAddress: Int] = [:]
    }

    private let maxConnections: Int
    private let maxPerClient: Int
    private let exemptions: [IPNetwork]
    private let counts = Mutex(Counts())

    init(configuration: HTTPServerConfiguration) {
        maxConnections = configuration.maxConnections
        maxPerClient = configuration.maxConnectionsPerClient
        exemptions = configuration.connectionLimitExemptions
    }

    /// Counts a connection from `peer` (a socket address as `TCPConnection` describes it) and returns true, or
    /// returns false, counting nothing, when a limit is reached. An admitted connection is released with
    /// ``release(_:)`` and the same peer.
    func admit(_ peer: String?) -> Bool {
        let client = Self.client(peer, exemptions: exemptions)
        return counts.withLock { counts in
            guard counts.total < maxConnections else { return false }
            if let client {
                guard counts.byClient[client, default: 0] < maxPerClient else { return false }
                counts.byClient[client, default: 0] += 1
            }
            counts.total += 1
            return true
        }
    }

    /// Uncounts a connection ``admit(_:)`` admitted.
    func release(_ peer: String?) {
        let client = Self.client(peer, exemptions: exemptions)
        counts.withLock { counts in
            counts.total -= 1
            if let client {
                let left = counts.byClient[client, default: 1] - 1
                counts.byClient[client] = left > 0 ? left : nil
            }
        }
    }

    /// Connections counted now, and the distinct clients among them; for tests and metrics.
    var snapshot: (total: Int, clients: Int) { counts.withLock { ($0.total, $0.byClient.count) } }

    /// The address the per-client limit counts `peer` under; nil for an exempt or unreadable peer.
    private static func client(_ peer: String?, exemptions: [IPNetwork]) -> IPAddress? {
        guard let address = ClientAddress.resolve(peer: peer, headers: HTTPHeaders(), trustedProxies: []) else {
            return nil
        }
        return exemptions.contains { $0.contains(address) } ? nil : address
    }
}
