import Glibc
import TesseraHTTP
import TesseraLoop
import Testing

/// A test CA and a server certificate it signed for `localhost` only, made with the openssl command line in a
/// temporary folder, and `openssl s_server -www` serving them on 127.0.0.1.
/// The blocking steps (running openssl, reaping it) run on the thread pool of a loop of its own.
struct TLSTestServer {
    let group: EventLoopGroup
    let folder: String
    let port: Int
    let process: ChildProcess

    var caFile: String { folder + "/ca.pem" }

    static func start() async throws -> TLSTestServer {
        let group = try EventLoopGroup(loopCount: 1)
        do {
            return try await start(on: group)
        } catch {
            group.shutdown()
            throw error
        }
    }

    private static func start(on group: EventLoopGroup) async throws -> TLSTestServer {
        var template = Array("/tmp/tessera-tls-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw ClientError(description: "mkdtemp failed") }
        let folder = String(cString: created)
        do {
            return try await start(on: group, in: folder)
        } catch {
            removeFiles(in: folder)
            throw error
        }
    }

    private static func start(on group: EventLoopGroup, in folder: String) async throws -> TLSTestServer {
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2"]
        let loop = group.loops[0]
        try await loop.offload {
            try ChildProcess.run(
                ["openssl", "req", "-x509"] + ec + [
                    "-keyout", folder + "/ca.key", "-out", folder + "/ca.pem", "-subj", "/CN=Tessera Test CA",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                ])
        }
        try await loop.offload {
            try ChildProcess.run(
                ["openssl", "req", "-x509"] + ec + [
                    "-keyout", folder + "/server.key", "-out", folder + "/server.pem", "-subj", "/CN=localhost",
                    "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key", "-addext", "subjectAltName=DNS:localhost",
                    "-addext", "basicConstraints=CA:FALSE", "-addext", "extendedKeyUsage=serverAuth",
                ])
        }
        let port = try await unusedPort()
        let process = try ChildProcess.spawn([
            "openssl", "s_server", "-www", "-accept", "127.0.0.1:\(port)",
            "-cert", folder + "/server.pem", "-key", folder + "/server.key",
        ])
        let server = TLSTestServer(group: group, folder: folder, port: port, process: process)
        do {
            try await server.waitUntilListening()
        } catch {
            _ = try? await loop.offload { process.terminate() }
            throw error
        }
        return server
    }

    /// Polls the port until s_server accepts connections (at most about 3 s).
    private func waitUntilListening() async throws {
        let client = try HTTPClient(group: group)
        for _ in 0..<150 {
            do {
                _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), timeout: .seconds(1))
                return
            } catch .connectionRefused {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                return
            }
        }
        throw ClientError(description: "openssl s_server did not start")
    }

    func stop() async {
        let process = process
        _ = try? await group.loops[0].offload { process.terminate() }
        group.shutdown()
        Self.removeFiles(in: folder)
    }

    private static func removeFiles(in folder: String) {
        for file in ["ca.key", "ca.pem", "server.key", "server.pem"] { unlink(folder + "/" + file) }
        rmdir(folder)
    }
}

@Suite(.enabled(if: ChildProcess.isInstalled("openssl"), "needs the openssl command line"))
struct HTTPClientTLSTests {
    /// One server for every check: making certificates and starting s_server is the slow part.
    @Test func httpsVerifiesTheChainAndTheHostAndRefusesWhatDoesNotVerify() async throws {
        let server = try await TLSTestServer.start()
        let group = try EventLoopGroup(loopCount: 1)
        let trusting = try HTTPClient(
            group: group, configuration: HTTPClientConfiguration(trustRoots: .certificateFile(path: server.caFile)))
        let systemTrust = try HTTPClient(group: group)
        let byName = HTTPClientRequest(url: "https://localhost:\(server.port)/")
        let byAddress = HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/")

        let response: Result<HTTPClientResponse, HTTPClientError>
        do {
            response = .success(try await trusting.send(byName, timeout: .seconds(3)))
        } catch {
            response = .failure(error)
        }
        let untrusted = await clientError { () async throws(HTTPClientError) in
            try await systemTrust.send(byName, timeout: .seconds(3))
        }
        let mismatch = await clientError { () async throws(HTTPClientError) in
            try await trusting.send(byAddress, timeout: .seconds(3))
        }
        await server.stop()
        group.shutdown()

        let body = try response.get().body
        #expect(try response.get().status.code == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("s_server"))
        if case .tlsFailure(let host, let reason)? = untrusted {
            #expect(host == "localhost")
            #expect(reason.hasPrefix("certificate verification failed: "))
        } else {
            Issue.record("expected a TLS failure, got \(String(describing: untrusted))")
        }
        let mismatchReason = "certificate verification failed: IP address mismatch"
        #expect(mismatch == .tlsFailure(host: "127.0.0.1", reason: mismatchReason))
    }

    @Test func tlsToAPlainHTTPServerFails() async throws {
        let fixture = try await ClientFixture.start()
        let url = "https://127.0.0.1:\(fixture.server.port)/status?code=200"
        let error = await clientError { () async throws(HTTPClientError) in
            try await fixture.client.send(HTTPClientRequest(url: url), timeout: .seconds(2))
        }
        await fixture.stop()
        if case .tlsFailure? = error {
        } else {
            Issue.record("expected a TLS failure, got \(String(describing: error))")
        }
    }
}
