import ArgumentParser
import Glibc
import TesseraJSON
import Testing

@testable import tessera

private func options(_ arguments: [String] = []) throws -> AdminOptions {
    try AdminOptions.parse(arguments)
}

private func noKeyFile(_ path: String) throws(AdminUsageError) -> String {
    throw AdminUsageError("no key file expected")
}

@Suite struct AdminSettingsTests {
    @Test func theURLComesFromTheOptionTheEnvironmentOrTheDefault() throws {
        let environment = ["TESSERA_ADMIN_KEY": "key-1"]
        let defaults = try AdminSettings.resolve(try options(), environment: environment, readKeyFile: noKeyFile)
        #expect(
            defaults
                == AdminSettings(
                    url: "http://127.0.0.1:8081", endpoint: "http://127.0.0.1:8081/rpc", key: "key-1",
                    timeout: .seconds(10)))
        let fromEnvironment = try AdminSettings.resolve(
            try options(), environment: environment.merging(["TESSERA_ADMIN_URL": "https://admin.example"]) { $1 },
            readKeyFile: noKeyFile)
        #expect(fromEnvironment.endpoint == "https://admin.example/rpc")
        let fromOption = try AdminSettings.resolve(
            try options(["--url", "http://[::1]:9000/", "--timeout", "0.25"]),
            environment: environment.merging(["TESSERA_ADMIN_URL": "https://admin.example"]) { $1 },
            readKeyFile: noKeyFile)
        #expect(fromOption.url == "http://[::1]:9000/")
        #expect(fromOption.endpoint == "http://[::1]:9000/rpc")
        #expect(fromOption.timeout == .milliseconds(250))
    }

    @Test func theEndpointIsTheRPCPathOfTheBaseURL() {
        #expect(AdminSettings.endpoint(for: "http://h:1") == "http://h:1/rpc")
        #expect(AdminSettings.endpoint(for: "http://h:1//") == "http://h:1/rpc")
        #expect(AdminSettings.endpoint(for: "http://h:1/rpc") == "http://h:1/rpc")
        #expect(AdminSettings.endpoint(for: "http://h:1/admin") == "http://h:1/admin/rpc")
    }

    @Test func theKeyFileWinsOverTheEnvironment() throws {
        let settings = try AdminSettings.resolve(
            try options(["--key-file", "/keys/admin"]), environment: ["TESSERA_ADMIN_KEY": "from-env"]
        ) { path throws(AdminUsageError) in
            #expect(path == "/keys/admin")
            return "from-file"
        }
        #expect(settings.key == "from-file")
    }

    @Test func aMissingOrUnusableKeyOrURLIsAUsageError() throws {
        #expect(throws: AdminUsageError("set TESSERA_ADMIN_KEY (or --key-file)")) {
            try AdminSettings.resolve(try options(), environment: [:], readKeyFile: noKeyFile)
        }
        #expect(throws: AdminUsageError("set TESSERA_ADMIN_KEY (or --key-file)")) {
            try AdminSettings.resolve(try options(), environment: ["TESSERA_ADMIN_KEY": ""], readKeyFile: noKeyFile)
        }
        #expect(throws: AdminUsageError("the admin key contains spaces or control characters")) {
            try AdminSettings.resolve(
                try options(), environment: ["TESSERA_ADMIN_KEY": "a\r\nX-Evil: 1"], readKeyFile: noKeyFile)
        }
        let notAbsolute = "--url admin:8081: invalid URL: not an absolute URL (expected http:// or https://)"
        #expect(throws: AdminUsageError(notAbsolute)) {
            try AdminSettings.resolve(
                try options(["--url", "admin:8081"]), environment: ["TESSERA_ADMIN_KEY": "k"], readKeyFile: noKeyFile)
        }
    }

    @Test(arguments: [["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "nan"], ["--timeout", "3601"]])
    func aBadTimeoutIsRefused(arguments: [String]) {
        #expect(throws: (any Error).self) { try AdminOptions.parse(arguments) }
    }

    @Test func thereIsNoKeyOption() {
        #expect(throws: (any Error).self) { try AdminOptions.parse(["--key", "secret"]) }
    }
}

@Suite struct AdminInputTests {
    @Test func aBodyIsInlineJSONOrAFile() throws {
        #expect(try AdminInput.body(#"{"displayName":"Acme"}"#) == ["displayName": "Acme"])
        var template = Array("/tmp/tessera-admin-body-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        try #require(descriptor >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let text = Array(#"{"smsDailyQuota": 500}"#.utf8)
        _ = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #expect(try AdminInput.body("@" + path) == ["smsDailyQuota": 500])
    }

    @Test func aBadBodyIsAUsageErrorSayingWhy() {
        #expect(throws: AdminUsageError("--body must be a JSON object")) { try AdminInput.body("[1]") }
        #expect(throws: AdminUsageError("--body is not valid JSON: unexpected end of input at offset 1")) {
            try AdminInput.body("{")
        }
        #expect(throws: AdminUsageError("cannot read /nonexistent/body.json: No such file or directory")) {
            try AdminInput.body("@/nonexistent/body.json")
        }
    }

    @Test func masksAreNormalizedAndEmptyPathsRefused() throws {
        #expect(try AdminInput.mask(nil) == nil)
        #expect(try AdminInput.mask("mfa.state, smsDailyQuota") == "mfa.state,smsDailyQuota")
        #expect(throws: AdminUsageError.self) { try AdminInput.mask("") }
        #expect(throws: AdminUsageError.self) { try AdminInput.mask("mfa,,signIn") }
    }

    @Test func keysAndPasswordsLoseOnlyTheirLineEnds() throws {
        #expect(try AdminInput.key(fromFileText: "  tsk_abc\n", path: "k") == "tsk_abc")
        #expect(throws: AdminUsageError("the key file k is empty")) {
            try AdminInput.key(fromFileText: " \n", path: "k")
        }
        #expect(try AdminInput.password(fromInput: Array("  pass word \n".utf8)) == "  pass word ")
        #expect(try AdminInput.password(fromInput: Array("secret\r\n".utf8)) == "secret")
        #expect(throws: AdminUsageError("--password-stdin: no password on standard input")) {
            try AdminInput.password(fromInput: Array("\n".utf8))
        }
    }
}
