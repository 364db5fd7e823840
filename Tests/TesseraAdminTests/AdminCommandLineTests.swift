import ArgumentParser
import TesseraJSON
import Testing

@testable import tessera

/// The command line of `tessera admin`, parsed the way `tessera` parses it (without running anything).
private func parse(_ arguments: [String]) throws -> any ParsableCommand {
    try Tessera.parseAsRoot(["admin"] + arguments)
}

@Suite struct AdminCommandLineTests {
    @Test func everyCommandOfTheContractParses() throws {
        let lines: [[String]] = [
            ["config", "get", "--json"],
            ["config", "set-mfa", "--state", "MANDATORY", "--phone-sms", "--totp"],
            ["config", "update", "--body", "{}", "--mask", "mfa"],
            ["tenants", "create", "--display-name", "Acme", "--body", "@t.json"],
            ["tenants", "get", "t1"],
            ["tenants", "list", "--page-size", "10", "--page-token", "p", "--all"],
            ["tenants", "update", "t1", "--body", "{}", "--mask", "displayName"],
            ["tenants", "delete", "t1", "--yes"],
            ["keys", "create", "--display-name", "ci", "--scope", "tenant:t1"],
            ["keys", "list"],
            ["keys", "revoke", "k1"],
            ["keys", "rotate-signing"],
            ["users", "create", "--tenant", "t1", "--email", "a@b.c", "--password-stdin", "--email-verified"],
            ["users", "get", "--phone", "+15555550100"],
            ["users", "list", "--tenant", "t1", "--all"],
            ["users", "update", "u1", "--disabled", "true", "--remove-mfa", "e1", "e2"],
            ["users", "delete", "--tenant", "t1", "u1"],
            ["users", "revoke-tokens", "u1"],
            ["audit", "list", "--tenant", "t1", "--page-size", "100"],
        ]
        for line in lines {
            #expect(throws: Never.self, "\(line)") { _ = try parse(line + ["--url", "http://127.0.0.1:1"]) }
        }
    }

    @Test func parsedValuesReachTheCommands() throws {
        let update = try #require(
            try parse([
                "users", "update", "u1", "--email-verified", "false",
                "--remove-mfa", "e1", "e2",
            ]) as? AdminUsers.Update)
        #expect(update.uid == "u1")
        #expect(update.emailVerified == false)
        #expect(update.removeMfa == ["e1", "e2"])
        let get = try #require(try parse(["users", "get", "--email", "a@b.c", "--tenant", "t1"]) as? AdminUsers.Get)
        #expect(get.lookup == .email("a@b.c"))
        let list = try #require(try parse(["tenants", "list", "--page-size", "5"]) as? AdminTenants.List)
        #expect(list.page.page == AdminCall.Page(size: 5, token: nil))
        #expect(!list.page.all)
    }

    @Test(arguments: [
        ["users", "get"],
        ["users", "get", "--uid", "u1", "--email", "a@b.c"],
        ["users", "update", "u1"],
        ["users", "update", "u1", "--disabled", "maybe"],
        ["tenants", "list", "--page-size", "0"],
        ["tenants", "list", "--page-size", "101"],
        ["tenants", "update", "t1"],
        ["keys", "create", "--display-name", "x"],
        ["keys", "create", "--display-name", "x", "--scope", "project", "--key", "k"],
        ["users", "create", "--password", "secret"],
        ["config", "set-mfa", "--state", "ENABLED", "--totp-adjacent-intervals", "11"],
        ["audit", "list", "--timeout", "0"],
    ])
    func badCommandLinesAreUsageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try parse(arguments) }
    }
}
