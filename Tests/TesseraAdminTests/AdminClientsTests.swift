import ArgumentParser
import TesseraJSON
import Testing

@testable import tessera

/// `tessera admin clients …`: the command lines, the calls they make and how lists print.
@Suite struct AdminClientsTests {
    private func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try Tessera.parseAsRoot(["admin", "clients"] + arguments + ["--url", "http://127.0.0.1:1"])
    }

    @Test func everyClientsMethodMapsToItsContractParams() {
        let cases: [(AdminCall, String, JSONValue)] = [
            (
                .createClient(tenantID: "t1", ["clientName": "App", "type": "public"]), "oauthClients.create",
                ["tenantId": "t1", "client": ["clientName": "App", "type": "public"]]
            ),
            (.createClient(tenantID: nil, [:]), "oauthClients.create", ["client": [:]]),
            (.getClient("c1"), "oauthClients.get", ["clientId": "c1"]),
            (
                .listClients(tenantID: "t1", AdminCall.Page(size: 5, token: "n")), "oauthClients.list",
                ["tenantId": "t1", "pageSize": 5, "pageToken": "n"]
            ),
            (.listClients(tenantID: nil, AdminCall.Page()), "oauthClients.list", [:]),
            (
                .updateClient("c1", ["clientName": "B"], mask: "clientName"), "oauthClients.update",
                ["clientId": "c1", "client": ["clientName": "B"], "updateMask": "clientName"]
            ),
            (
                .updateClient("c1", ["clientName": "B", "type": "public"], mask: nil), "oauthClients.update",
                ["clientId": "c1", "client": ["clientName": "B", "type": "public"]]
            ),
            (.deleteClient("c1"), "oauthClients.delete", ["clientId": "c1"]),
            (.rotateClientSecret("c1"), "oauthClients.rotateSecret", ["clientId": "c1"]),
        ]
        for (call, method, params) in cases {
            #expect(call.method == method)
            #expect(JSONValue.object(call.params) == params, "\(method)")
        }
    }

    @Test func fieldOptionsBecomeTheBodyAndTheMask() throws {
        let create = try #require(
            try parse([
                "create", "--tenant", "t1", "--name", "App", "--type", "public", "--redirect-uri",
                "com.example.app:/cb",
                "--redirect-uri", "http://127.0.0.1/cb", "--scope", "openid", "--access-token-ttl", "600",
                "--body", #"{"refreshTokenTtl": 7200, "clientName": "Old"}"#,
            ]) as? AdminClients.Create)
        #expect(create.tenant == "t1")
        var fields = create.fieldOptions.fields
        fields.type = create.type
        #expect(
            JSONValue.object(fields.applied(to: ["refreshTokenTtl": 7200, "clientName": "Old"])) == [
                "refreshTokenTtl": 7200, "clientName": "App", "type": "public",
                "redirectUris": ["com.example.app:/cb", "http://127.0.0.1/cb"], "scopes": ["openid"],
                "accessTokenTtl": 600,
            ])

        let update = try #require(
            try parse([
                "update", "c1", "--name", "New", "--grant-type", "authorization_code", "--default-scope", "openid",
                "--refresh-token-ttl", "3600",
            ]) as? AdminClients.Update)
        let changes = update.fieldOptions.fields
        #expect(update.clientID == "c1")
        #expect(changes.mask == "clientName,grantTypes,defaultScopes,refreshTokenTtl")
        #expect(
            JSONValue.object(changes.applied(to: [:])) == [
                "clientName": "New", "grantTypes": ["authorization_code"], "defaultScopes": ["openid"],
                "refreshTokenTtl": 3600,
            ])
        #expect(AdminCall.ClientFields().isEmpty)
    }

    @Test func everyClientsCommandParses() {
        let lines: [[String]] = [
            ["create", "--name", "App", "--type", "confidential", "--grant-type", "client_credentials"],
            ["create", "--body", "@client.json"],
            ["get", "c1"],
            ["list", "--tenant", "t1", "--page-size", "10", "--all"],
            ["update", "c1", "--body", "{}", "--mask", "clientName"],
            ["update", "c1", "--redirect-uri", "https://app.example.com/cb"],
            ["delete", "c1", "--yes"],
            ["rotate-secret", "c1"],
        ]
        for line in lines {
            #expect(throws: Never.self, "\(line)") { _ = try parse(line) }
        }
    }

    @Test(arguments: [
        ["create", "--name", "App"],
        ["create", "--type", "public"],
        ["create", "--name", "App", "--type", "public", "--access-token-ttl", "soon"],
        ["get"],
        ["update", "c1"],
        ["update", "c1", "--mask", "clientName", "--name", "x"],
        ["update", "c1", "--body", "{}", "--name", "x"],
        ["rotate-secret"],
        ["list", "--page-size", "0"],
    ])
    func badClientsCommandLinesAreUsageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try parse(arguments) }
    }

    @Test func clientListsShowIDsNamesTypesGrantsAndRedirects() {
        let clients: JSONValue = [
            "clients": [
                [
                    "clientId": "c1", "clientName": "App", "type": "public",
                    "grantTypes": ["authorization_code", "refresh_token"], "redirectUris": ["com.example.app:/cb"],
                ],
                [
                    "clientId": "c2", "clientName": "Batch", "type": "confidential",
                    "grantTypes": ["client_credentials"],
                    "redirectUris": [],
                ],
            ], "nextPageToken": "n",
        ]
        #expect(
            AdminListing.clients.lines(for: clients) == [
                "CLIENT ID  NAME   TYPE          GRANT TYPES                       REDIRECT URIS",
                "c1         App    public        authorization_code,refresh_token  com.example.app:/cb",
                "c2         Batch  confidential  client_credentials                -",
                "more: --page-token n (or --all)",
            ])
        #expect(AdminListing.clients.lines(for: ["clients": []]) == ["no OAuth clients"])
    }
}
