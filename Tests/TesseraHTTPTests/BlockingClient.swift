import Glibc

/// Why the test client failed.
struct ClientError: Error, CustomStringConvertible {
    let description: String
}

/// A response as the test client read it.
struct ClientResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: String

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A tiny blocking HTTP client over a Glibc socket, for integration tests. Use it only off the event loops, on a
/// thread of its own (see ``onThread(_:)``); every read times out so a broken server fails the test, not hangs it.
final class BlockingClient {
    let socket: Int32
    /// The server's port.
    let port: Int
    var buffer: [UInt8] = []
    private var closed = false

    init(port: Int, readTimeoutMilliseconds: Int = 3000) throws {
        self.port = port
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ClientError(description: "socket() failed: \(errno)") }
        var timeout = timeval(tv_sec: readTimeoutMilliseconds / 1000, tv_usec: (readTimeoutMilliseconds % 1000) * 1000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            let code = errno
            // Through close(), which marks the socket closed: the deinit runs after a throwing init too, and closing
            // the number a second time closed whatever another thread had opened under it meanwhile (a loop's epoll
            // or a socket libuv watched, which libuv answers with abort()).
            close()
            throw ClientError(description: "connect() failed: \(code)")
        }
    }

    deinit { close() }

    /// Closes the socket (once).
    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(socket)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw ClientError(description: "send() failed: \(errno)") }
            offset += sent
        }
    }

    /// Closes the writing side (the server sees end of input).
    func shutdownWrite() {
        Glibc.shutdown(socket, Int32(SHUT_WR))
    }

    /// Reads more bytes into the buffer; false at end of input (or reset), throws on timeout.
    @discardableResult
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
            throw ClientError(description: "read timed out")
        }
        return false
    }

    /// Reads one response; `head` when it answers a HEAD request (no body whatever Content-Length says).
    func readResponse(head: Bool = false) throws -> ClientResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var end: Int?
        while true {
            end = buffer.firstRange(of: separator)?.upperBound
            if end != nil { break }
            guard try fill() else { throw ClientError(description: "connection closed before a response") }
        }
        guard let headEnd = end else { throw ClientError(description: "no response head") }
        let lines = String(decoding: buffer[0..<headEnd - 4], as: UTF8.self).split(separator: "\r\n").map(String.init)
        buffer.removeFirst(headEnd)
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "),
            let status = Int(statusLine.dropFirst(9).prefix(3))
        else { throw ClientError(description: "bad status line: \(lines.first ?? "")") }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw ClientError(description: "bad field: \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingPrefix(" ").description))
        }
        let length = head ? 0 : Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
        while buffer.count < length {
            guard try fill() else { throw ClientError(description: "connection closed inside a body") }
        }
        let body = String(decoding: buffer[0..<length], as: UTF8.self)
        buffer.removeFirst(length)
        return ClientResponse(status: status, headers: headers, body: body)
    }

    /// Whether the server closed the connection: end of input (or reset) with nothing more to read.
    func isClosedByPeer() throws -> Bool {
        while try fill() {}
        return true
    }

    /// Whether nothing arrives and the connection stays open for `milliseconds`.
    func staysSilent(milliseconds: Int) -> Bool {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(milliseconds)) == 0
    }
}

/// Runs blocking `work` on a new thread, off the event loops and the cooperative pool.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let box = Unmanaged.passRetained(ThreadWork { continuation.resume(with: Result { try work() }) })
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, box.toOpaque())
        if status == 0 {
            pthread_detach(thread)
        } else {
            box.release()
            continuation.resume(throwing: ClientError(description: "pthread_create failed: \(status)"))
        }
    }
}

final class ThreadWork: @unchecked Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
