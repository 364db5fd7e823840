"""The admin JSON-RPC API (API §5): keys and scopes, project config, tenants, users, audit log."""

from __future__ import annotations

import pytest

from identity import RPCFailure, call, psql, reason_of, unique_email
from support import Listener

PASSWORD = "correct horse battery"
TOTP = {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 3}}


@pytest.fixture
def project_config(admin):
    """The project config, restored whole after the test."""
    saved = call(admin, "projects.getConfig")
    yield saved
    call(admin, "projects.updateConfig", {"config": saved})


@pytest.fixture
def tenant(admin):
    return call(admin, "tenants.create", {"tenant": {"displayName": "Scoped"}})


def keyed(admin_url: str, key: str) -> Listener:
    return Listener("admin", admin_url, {"Authorization": f"Bearer {key}"})


def test_admin_methods_need_a_valid_key(admin_url):
    anonymous = Listener("admin", admin_url)
    assert reason_of(anonymous, "projects.getConfig") == "UNAUTHENTICATED"
    for header in ("Bearer tsa_not-a-key", "Basic dXNlcjpwYXNz", "Bearer", ""):
        assert reason_of(anonymous, "projects.getConfig", headers={"Authorization": header}) == "UNAUTHENTICATED"
    # Authentication comes first: bad params do not reveal anything to an unauthenticated caller.
    assert reason_of(anonymous, "tenants.get", {"bogus": 1}) == "UNAUTHENTICATED"
    methods = {m["name"] for m in call(anonymous, "rpc.discover")["methods"]}
    assert {"projects.getConfig", "projects.updateConfig", "tenants.create", "tenants.get", "tenants.list",
            "tenants.update", "tenants.delete", "adminKeys.create", "adminKeys.list", "adminKeys.revoke",
            "users.create", "users.get", "users.list", "users.update", "users.delete", "users.revokeTokens",
            "keys.rotate", "auditLog.list"} <= methods


def test_project_config_defaults_and_masked_updates(admin, project_config):
    call(admin, "projects.updateConfig", {"config": {}})
    config = call(admin, "projects.getConfig")
    assert config["displayName"] == "Tessera" and config["mfa"]["state"] == "DISABLED"
    assert config["signIn"]["allowPasswordSignup"] is True and config["signIn"]["phoneNumber"]["enabled"] is True
    assert config["smsDailyQuota"] == 10000
    updated = call(admin, "projects.updateConfig", {
        "config": {"mfa": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {}}]},
                   "displayName": "ignored, not in the mask"},
        "updateMask": "mfa.state,mfa.providerConfigs"})
    assert updated["displayName"] == "Tessera" and updated["mfa"]["state"] == "ENABLED"
    assert updated["mfa"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 5
    cleared = call(admin, "projects.updateConfig", {"config": {}, "updateMask": "mfa.providerConfigs"})
    assert cleared["mfa"] == {"state": "ENABLED", "enabledProviders": [], "providerConfigs": []}
    assert reason_of(admin, "projects.updateConfig", {"config": {}, "updateMask": "mfa.nope"}) == "INVALID_ARGUMENT"
    replaced = call(admin, "projects.updateConfig", {"config": {"displayName": "Acme"}})
    assert replaced["displayName"] == "Acme" and replaced["mfa"]["state"] == "DISABLED"


@pytest.mark.parametrize(
    "config, reason",
    [
        ({"mfa": {"state": "SOMETIMES"}}, "INVALID_CONFIG"),
        ({"mfa": {"enabledProviders": ["CARRIER_PIGEON"]}}, "INVALID_CONFIG"),
        ({"mfa": {"providerConfigs": [{"state": "ENABLED"}]}}, "INVALID_CONFIG"),
        ({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 11}}]}},
         "INVALID_CONFIG"),
        ({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5.0}}]}},
         "INVALID_CONFIG"),
        ({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": -1}}]}},
         "INVALID_CONFIG"),
        ({"mfa": {"state": "ENABLED", "extra": 1}}, "INVALID_CONFIG"),
        ({"smsRegionConfig": {}}, "INVALID_CONFIG"),
        ({"smsRegionConfig": {"allowByDefault": {"disallowedRegions": []},
                              "allowlistOnly": {"allowedRegions": ["US"]}}}, "INVALID_CONFIG"),
        ({"smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["usa"]}}}, "INVALID_CONFIG"),
        ({"signIn": {"phoneNumber": {"testPhoneNumbers": {"+1555": "123456"}}}}, "INVALID_TESTING_PHONE_NUMBER"),
        ({"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550100": "12345"}}}}, "INVALID_TESTING_PHONE_NUMBER"),
        ({"signIn": {"phoneNumber": {"testPhoneNumbers": {f"+1555555{n:04d}": "123456" for n in range(11)}}}},
         "MAXIMUM_TEST_PHONE_NUMBER_EXCEEDED"),
        ({"smsDailyQuota": -1}, "INVALID_CONFIG"),
        ({"colour": "blue"}, "INVALID_ARGUMENT"),
    ],
)
def test_invalid_project_config_is_refused_and_changes_nothing(admin, project_config, config, reason):
    assert reason_of(admin, "projects.updateConfig", {"config": config}) == reason
    assert call(admin, "projects.getConfig") == project_config


def test_tenants_inherit_the_project_mfa_until_they_override_it(admin, project_config):
    call(admin, "projects.updateConfig", {
        "config": {"mfa": {"state": "MANDATORY", "providerConfigs": [TOTP]}}, "updateMask": "mfa"})
    created = call(admin, "tenants.create", {"tenant": {"displayName": "Inherits"}})
    tenant_id = created["tenantId"]
    assert created["name"] == f"tenants/{tenant_id}" and "mfaConfig" not in created
    got = call(admin, "tenants.get", {"tenantId": tenant_id})
    assert got["effectiveMfaConfig"]["state"] == "MANDATORY"
    call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {"mfaConfig": {"state": "DISABLED"}},
                                   "updateMask": "mfaConfig.state"})
    got = call(admin, "tenants.get", {"tenantId": tenant_id})
    assert got["mfaConfig"]["state"] == "DISABLED" and got["effectiveMfaConfig"]["state"] == "DISABLED"
    assert got["effectiveMfaConfig"]["providerConfigs"] == []
    call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {}, "updateMask": "mfaConfig"})
    got = call(admin, "tenants.get", {"tenantId": tenant_id})
    assert "mfaConfig" not in got and got["effectiveMfaConfig"]["state"] == "MANDATORY"


def test_tenant_updates_without_a_mask_replace_every_field(admin, tenant):
    tenant_id = tenant["tenantId"]
    call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {
        "displayName": "Full", "enablePhoneSignIn": False, "smsDailyQuota": 5,
        "testPhoneNumbers": {"+15555550100": "123456"}}})
    replaced = call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {"displayName": "Bare"}})
    assert replaced["enablePhoneSignIn"] is True and "smsDailyQuota" not in replaced
    assert "testPhoneNumbers" not in replaced
    assert reason_of(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {"smsDailyQuota": 5}}) \
        == "INVALID_ARGUMENT"
    round_trip = call(admin, "tenants.get", {"tenantId": tenant_id})
    assert call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": round_trip})["displayName"] == "Bare"
    assert reason_of(admin, "tenants.update", {"tenantId": "t-nosuch", "tenant": {"displayName": "x"}}) \
        == "TENANT_NOT_FOUND"


def test_tenant_list_pages(admin):
    for index in range(3):
        call(admin, "tenants.create", {"tenant": {"displayName": f"Paged {index}"}})
    seen, token = [], None
    while True:
        page = call(admin, "tenants.list", {"pageSize": 2, **({"pageToken": token} if token else {})})
        assert len(page["tenants"]) <= 2
        seen += [t["tenantId"] for t in page["tenants"]]
        token = page.get("nextPageToken")
        if not token:
            break
    assert len(seen) == len(set(seen)) >= 3
    assert reason_of(admin, "tenants.list", {"pageSize": 0}) == "INVALID_ARGUMENT"
    assert reason_of(admin, "tenants.list", {"pageSize": 101}) == "INVALID_ARGUMENT"
    assert reason_of(admin, "tenants.list", {"pageToken": "garbage!"}) == "INVALID_ARGUMENT"


def test_a_tenant_key_reaches_only_its_tenant(admin, admin_url, public, tenant):
    tenant_id = tenant["tenantId"]
    other = call(admin, "tenants.create", {"tenant": {"displayName": "Other"}})["tenantId"]
    created = call(admin, "adminKeys.create", {"displayName": "scoped", "scope": f"tenant:{tenant_id}"})
    scoped = keyed(admin_url, created["key"])
    assert call(scoped, "tenants.get", {"tenantId": tenant_id})["tenantId"] == tenant_id
    user = call(scoped, "users.create", {"tenantId": tenant_id, "email": unique_email()})
    assert call(scoped, "users.get", {"tenantId": tenant_id, "localId": user["localId"]})["tenantId"] == tenant_id
    assert call(scoped, "auditLog.list", {"tenantId": tenant_id})["events"]
    denied = [
        ("tenants.get", {"tenantId": other}),
        ("tenants.update", {"tenantId": other, "tenant": {"displayName": "x"}}),
        ("tenants.delete", {"tenantId": tenant_id}),
        ("tenants.list", {}),
        ("tenants.create", {"tenant": {"displayName": "x"}}),
        ("projects.getConfig", None),
        ("projects.updateConfig", {"config": {}}),
        ("users.list", {}),
        ("users.list", {"tenantId": other}),
        ("users.get", {"localId": user["localId"]}),
        ("users.create", {"email": unique_email()}),
        ("adminKeys.list", None),
        ("adminKeys.create", {"displayName": "escalate", "scope": "project"}),
        ("keys.rotate", None),
        ("auditLog.list", {}),
        ("auditLog.list", {"tenantId": other}),
    ]
    for method, params in denied:
        assert reason_of(scoped, method, params) == "PERMISSION_DENIED", method


def test_admin_keys_are_shown_once_and_revocable(admin, admin_url):
    created = call(admin, "adminKeys.create", {"displayName": "ci", "scope": "project"})
    assert created["key"].startswith("tsa_")
    listed = {k["keyId"]: k for k in call(admin, "adminKeys.list")["keys"]}
    assert listed[created["keyId"]]["scope"] == "project" and "key" not in listed[created["keyId"]]
    assert created["key"] not in str(listed)
    fresh = keyed(admin_url, created["key"])
    call(fresh, "projects.getConfig")
    call(admin, "adminKeys.revoke", {"keyId": created["keyId"]})
    assert reason_of(fresh, "projects.getConfig") == "UNAUTHENTICATED"
    assert call(admin, "adminKeys.list")["keys"] and reason_of(admin, "adminKeys.revoke", {"keyId": "nope"}) \
        == "ADMIN_KEY_NOT_FOUND"
    assert reason_of(admin, "adminKeys.create", {"displayName": "x", "scope": "tenant:t-nosuch"}) == "TENANT_NOT_FOUND"
    assert reason_of(admin, "adminKeys.create", {"displayName": "x", "scope": "everything"}) == "INVALID_ARGUMENT"


def test_deleting_a_tenant_deletes_what_it_owns(admin, admin_url, public, tenant):
    tenant_id = tenant["tenantId"]
    email = unique_email()
    tokens = call(public, "accounts.signUp", {"email": email, "password": PASSWORD, "tenantId": tenant_id})
    key = call(admin, "adminKeys.create", {"displayName": "doomed", "scope": f"tenant:{tenant_id}"})["key"]
    assert call(admin, "tenants.delete", {"tenantId": tenant_id}) == {}
    assert reason_of(admin, "tenants.get", {"tenantId": tenant_id}) == "TENANT_NOT_FOUND"
    assert reason_of(admin, "users.get", {"tenantId": tenant_id, "email": email}) == "TENANT_NOT_FOUND"
    assert reason_of(public, "token.refresh", {"refreshToken": tokens["refreshToken"], "tenantId": tenant_id}) \
        == "TENANT_NOT_FOUND"
    assert reason_of(keyed(admin_url, key), "projects.getConfig") == "UNAUTHENTICATED"
    events = call(admin, "auditLog.list", {"tenantId": tenant_id})["events"]
    assert events[0]["method"] == "tenants.delete" and "after" not in events[0]


def test_users_admin(admin, public):
    email = unique_email("admin")
    user = call(admin, "users.create", {"email": email, "password": PASSWORD, "emailVerified": True,
                                        "phoneNumber": "+15555550123", "displayName": "Ada"})
    assert user["providers"] == ["password", "phone"] and user["emailVerified"] is True and "lastLoginAt" not in user
    for selector in ({"localId": user["localId"]}, {"email": email.upper()}, {"phoneNumber": "+15555550123"}):
        assert call(admin, "users.get", selector)["localId"] == user["localId"]
    assert reason_of(admin, "users.get", {"localId": user["localId"], "email": email}) == "INVALID_ARGUMENT"
    assert reason_of(admin, "users.get", {}) == "INVALID_ARGUMENT"
    assert reason_of(admin, "users.get", {"localId": "nobody"}) == "USER_NOT_FOUND"
    assert reason_of(admin, "users.create", {"email": email}) == "EMAIL_EXISTS"
    assert reason_of(admin, "users.create", {"phoneNumber": "+15555550123"}) == "PHONE_NUMBER_EXISTS"
    assert reason_of(admin, "users.create", {"phoneNumber": "555-0123"}) == "INVALID_PHONE_NUMBER"
    assert reason_of(admin, "users.create", {"password": "short"}) == "WEAK_PASSWORD"

    tokens = call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})
    changed = call(admin, "users.update", {"localId": user["localId"], "email": unique_email("moved"),
                                           "password": "a brand new password", "displayName": ""})
    assert changed["emailVerified"] is False and "displayName" not in changed
    assert reason_of(public, "accounts.lookup", {"idToken": tokens["idToken"]}) == "TOKEN_EXPIRED"
    call(public, "accounts.signInWithPassword", {"email": changed["email"], "password": "a brand new password"})
    assert reason_of(admin, "users.update", {"localId": "nobody", "disabled": True}) == "USER_NOT_FOUND"
    assert reason_of(admin, "users.update", {"localId": user["localId"], "mfaInfo": [{"mfaEnrollmentId": "nope"}]}) \
        == "MFA_ENROLLMENT_NOT_FOUND"
    assert call(admin, "users.delete", {"localId": user["localId"]}) == {}
    assert reason_of(admin, "users.get", {"localId": user["localId"]}) == "USER_NOT_FOUND"
    assert reason_of(admin, "users.delete", {"localId": user["localId"]}) == "USER_NOT_FOUND"


def test_mfa_enrolments_can_be_removed_through_mfa_info(admin):
    user = call(admin, "users.create", {"email": unique_email("mfa")})
    for enrollment, factor, info in (("e2e-phone-" + user["localId"], "phone", '{"phoneInfo": "+15555550199"}'),
                                     ("e2e-totp-" + user["localId"], "totp", '{"totpInfo": {}}')):
        psql(f"INSERT INTO mfa_enrollments (enrollment_id, user_id, factor, enrolled_at, public_info) "
             f"VALUES ('{enrollment}', '{user['localId']}', '{factor}', now(), '{info}')")
    info = call(admin, "users.get", {"localId": user["localId"]})["mfaInfo"]
    assert [e.get("phoneInfo") for e in info] == ["+15555550199", None] and info[1]["totpInfo"] == {}
    kept = call(admin, "users.update", {"localId": user["localId"], "mfaInfo": [info[1]]})
    assert [e["mfaEnrollmentId"] for e in kept["mfaInfo"]] == [info[1]["mfaEnrollmentId"]]
    assert call(admin, "users.update", {"localId": user["localId"], "mfaInfo": []})["mfaInfo"] == []


def test_users_list_pages_within_a_tenant(admin, tenant):
    tenant_id = tenant["tenantId"]
    made = {call(admin, "users.create", {"tenantId": tenant_id, "email": unique_email()})["localId"]
            for _ in range(5)}
    seen, token = [], None
    while True:
        page = call(admin, "users.list", {"tenantId": tenant_id, "pageSize": 2,
                                          **({"pageToken": token} if token else {})})
        seen += [u["localId"] for u in page["users"]]
        token = page.get("nextPageToken")
        if not token:
            break
    assert set(seen) == made and len(seen) == 5


def test_audit_log_records_changes_with_secrets_redacted(admin, tenant):
    tenant_id = tenant["tenantId"]
    user = call(admin, "users.create", {"tenantId": tenant_id, "email": unique_email(), "password": PASSWORD})
    call(admin, "users.update", {"tenantId": tenant_id, "localId": user["localId"], "displayName": "Grace"})
    events = call(admin, "auditLog.list", {"tenantId": tenant_id, "pageSize": 2})
    newest, older = events["events"]
    assert newest["method"] == "users.update" and newest["target"] == f"users/{user['localId']}"
    assert "displayName" not in newest["before"]
    assert newest["after"]["displayName"] == "Grace" and newest["actorKeyId"] and newest["time"].endswith("Z")
    assert older["method"] == "users.create" and older["after"]["password"] == "[REDACTED]"
    assert PASSWORD not in str(events)
    rest = call(admin, "auditLog.list", {"tenantId": tenant_id, "pageToken": events["nextPageToken"]})
    assert rest["events"][0]["method"] == "tenants.create"
    created = call(admin, "adminKeys.create", {"displayName": "audited", "scope": "project"})
    project_events = call(admin, "auditLog.list", {"pageSize": 5})["events"]
    assert any(e["target"] == f"adminKeys/{created['keyId']}" for e in project_events)
    assert created["key"] not in str(project_events)
