import TesseraJSON
import Testing

@testable import tessera

@Suite struct AdminCallTests {
    @Test func everyCommandMapsToItsMethodWithTheContractsParamNames() throws {
        let page = AdminCall.Page(size: 50, token: "next")
        let cases: [(AdminCall, String, JSONValue)] = [
            (.getConfig(), "projects.getConfig", [:]),
            (
                .updateConfig(["smsDailyQuota": 5], mask: "smsDailyQuota"), "projects.updateConfig",
                ["config": ["smsDailyQuota": 5], "updateMask": "smsDailyQuota"]
            ),
            (.updateConfig(["displayName": "X"], mask: nil), "projects.updateConfig", ["config": ["displayName": "X"]]),
            (
                .updateProjectMFA(["state": "ENABLED"]), "projects.updateConfig",
                ["config": ["mfa": ["state": "ENABLED"]], "updateMask": "mfa"]
            ),
            (
                .createTenant(displayName: "Acme", body: ["displayName": "Old", "disableAuth": true]), "tenants.create",
                ["tenant": ["displayName": "Acme", "disableAuth": true]]
            ),
            (.getTenant("t1"), "tenants.get", ["tenantId": "t1"]),
            (.listTenants(page), "tenants.list", ["pageSize": 50, "pageToken": "next"]),
            (.listTenants(AdminCall.Page()), "tenants.list", [:]),
            (
                .updateTenant("t1", ["displayName": "B"], mask: "displayName"), "tenants.update",
                ["tenantId": "t1", "tenant": ["displayName": "B"], "updateMask": "displayName"]
            ),
            (
                .updateTenantMFA("t1", ["state": "MANDATORY"]), "tenants.update",
                ["tenantId": "t1", "tenant": ["mfaConfig": ["state": "MANDATORY"]], "updateMask": "mfaConfig"]
            ),
            (.deleteTenant("t1"), "tenants.delete", ["tenantId": "t1"]),
            (
                try .createAdminKey(displayName: "ci", scope: "tenant:t1"), "adminKeys.create",
                ["displayName": "ci", "scope": "tenant:t1"]
            ),
            (.listAdminKeys(), "adminKeys.list", [:]),
            (.revokeAdminKey("k1"), "adminKeys.revoke", ["keyId": "k1"]),
            (.rotateSigningKey(), "keys.rotate", [:]),
            (.getUser(tenantID: nil, .localID("u1")), "users.get", ["localId": "u1"]),
            (.getUser(tenantID: "t1", .email("a@b.c")), "users.get", ["tenantId": "t1", "email": "a@b.c"]),
            (.getUser(tenantID: nil, .phoneNumber("+15555550100")), "users.get", ["phoneNumber": "+15555550100"]),
            (.listUsers(tenantID: "t1", page), "users.list", ["tenantId": "t1", "pageSize": 50, "pageToken": "next"]),
            (.deleteUser(tenantID: "t1", localID: "u1"), "users.delete", ["tenantId": "t1", "localId": "u1"]),
            (.revokeUserTokens(tenantID: nil, localID: "u1"), "users.revokeTokens", ["localId": "u1"]),
            (.listAuditEvents(tenantID: nil, AdminCall.Page(size: 5)), "auditLog.list", ["pageSize": 5]),
        ]
        for (call, method, params) in cases {
            #expect(call.method == method)
            #expect(JSONValue.object(call.params) == params, "\(method)")
        }
    }

    @Test func userFieldsAreSentOnlyWhenGiven() {
        let all = AdminCall.UserFields(
            email: "a@b.c", password: "correct horse", emailVerified: false, phoneNumber: "+15555550100",
            displayName: "Ann", disabled: true, mfaEnrollmentIDs: ["e2"])
        let update = AdminCall.updateUser(tenantID: "t1", localID: "u1", all)
        #expect(update.method == "users.update")
        #expect(
            JSONValue.object(update.params) == [
                "tenantId": "t1", "localId": "u1", "email": "a@b.c", "password": "correct horse",
                "emailVerified": false,
                "phoneNumber": "+15555550100", "displayName": "Ann", "disabled": true,
                "mfaInfo": [["mfaEnrollmentId": "e2"]],
            ])
        let create = AdminCall.createUser(tenantID: nil, AdminCall.UserFields(email: "a@b.c"))
        #expect(create.method == "users.create")
        #expect(JSONValue.object(create.params) == ["email": "a@b.c"])
        #expect(AdminCall.UserFields().isEmpty)
        #expect(!AdminCall.UserFields(disabled: false).isEmpty)
        let removingAll = AdminCall.UserFields(mfaEnrollmentIDs: [])
        #expect(
            JSONValue.object(AdminCall.updateUser(tenantID: nil, localID: "u", removingAll).params)
                == ["localId": "u", "mfaInfo": []])
    }

    @Test(arguments: ["", "projects", "tenant:", "tenant", "Project", "tenants:t1"])
    func aBadKeyScopeIsRefused(scope: String) {
        #expect(throws: AdminUsageError("--scope must be 'project' or 'tenant:<tenant id>'")) {
            try AdminCall.createAdminKey(displayName: "x", scope: scope)
        }
    }

    @Test func removingEnrolmentsKeepsTheOthersAndRefusesUnknownIDs() throws {
        let user: JSONValue = [
            "localId": "u1",
            "mfaInfo": [["mfaEnrollmentId": "e1", "totpInfo": [:]], ["mfaEnrollmentId": "e2", "phoneInfo": "+1555"]],
        ]
        #expect(try AdminCall.enrollmentIDs(of: user, removing: ["e1"]) == ["e2"])
        #expect(try AdminCall.enrollmentIDs(of: user, removing: ["e1", "e2"]) == [])
        #expect(throws: AdminFailure.refused("user u1 has no MFA enrolment e3; nothing was changed")) {
            try AdminCall.enrollmentIDs(of: user, removing: ["e1", "e3"])
        }
        #expect(throws: AdminFailure.self) { try AdminCall.enrollmentIDs(of: ["localId": "u2"], removing: ["e1"]) }
    }
}
