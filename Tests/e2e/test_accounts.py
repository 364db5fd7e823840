"""Accounts and tokens over the public JSON-RPC API (API §3), driven as a SaaS backend would."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from identity import RPCFailure, b64url, call, jwt_parts, reason_of, unique_email

PASSWORD = "correct horse battery"


def sign_up(public, email=None, tenant=None, password=PASSWORD):
    params = {"email": email or unique_email(), "password": password}
    if tenant:
        params["tenantId"] = tenant
    return call(public, "accounts.signUp", params)


def test_sign_up_returns_tokens_with_the_documented_claims(public, public_url):
    email = unique_email("Claims").replace("claims", "Claims")
    result = sign_up(public, email)
    assert set(result) == {"localId", "idToken", "refreshToken", "expiresIn", "email"}
    assert result["email"] == email.lower() and result["expiresIn"] == 3600
    header, claims = jwt_parts(result["idToken"])
    assert header["alg"] == "ES256" and header["kid"]
    assert claims["iss"] == public_url and claims["aud"] == "tessera" and claims["sub"] == result["localId"]
    assert claims["exp"] - claims["iat"] == 3600 and abs(claims["auth_time"] - time.time()) < 120
    assert claims["email"] == email.lower() and claims["email_verified"] is False
    assert claims["sign_in_provider"] == "password" and "tenant" not in claims
    kids = [key["kid"] for key in public.get("/oauth2/jwks").json()["keys"]]
    assert header["kid"] in kids


@pytest.mark.parametrize(
    "params, reason",
    [
        ({"email": "not-an-address", "password": PASSWORD}, "INVALID_EMAIL"),
        ({"email": "a@b", "password": PASSWORD}, "INVALID_EMAIL"),
        ({"email": "x@example.com", "password": "short"}, "WEAK_PASSWORD"),
        ({"email": "x@example.com", "password": "p" * 4097}, "WEAK_PASSWORD"),
        ({"email": "x@example.com"}, "INVALID_ARGUMENT"),
        ({"email": "x@example.com", "password": PASSWORD, "pasword": "typo"}, "INVALID_ARGUMENT"),
        ({"email": "x@example.com", "password": PASSWORD, "tenantId": "t-nosuchtenant"}, "TENANT_NOT_FOUND"),
    ],
)
def test_sign_up_refuses_bad_input(public, params, reason):
    assert reason_of(public, "accounts.signUp", params) == reason


def test_an_address_has_one_account_per_tenant_whatever_its_case(public):
    email = unique_email()
    sign_up(public, email)
    assert reason_of(public, "accounts.signUp", {"email": email.upper(), "password": PASSWORD}) == "EMAIL_EXISTS"


def test_thirty_two_concurrent_sign_ups_of_one_address_make_one_account(public, admin):
    email = unique_email("race")

    def attempt(_):
        try:
            call(public, "accounts.signUp", {"email": email, "password": PASSWORD})
            return "ok"
        except RPCFailure as failure:
            return failure.reason

    with ThreadPoolExecutor(max_workers=32) as pool:
        outcomes = list(pool.map(attempt, range(32)))
    assert outcomes.count("ok") == 1 and outcomes.count("EMAIL_EXISTS") == 31
    assert call(admin, "users.get", {"email": email})["email"] == email


def test_wrong_password_and_unknown_account_are_indistinguishable(public):
    email = unique_email()
    sign_up(public, email)
    wrong = pytest.raises(RPCFailure, call, public, "accounts.signInWithPassword",
                          {"email": email, "password": "wrong password"}).value
    unknown = pytest.raises(RPCFailure, call, public, "accounts.signInWithPassword",
                            {"email": unique_email(), "password": "wrong password"}).value
    assert wrong.reason == unknown.reason == "INVALID_LOGIN_CREDENTIALS"
    assert wrong.message == unknown.message and wrong.status == "UNAUTHENTICATED"


@pytest.mark.parametrize("exists", [True, False])
def test_ten_failures_lock_the_address_for_fifteen_minutes(public, exists):
    email = unique_email("lock")
    if exists:
        sign_up(public, email)
    bad = {"email": email, "password": "wrong password"}
    for _ in range(10):
        assert reason_of(public, "accounts.signInWithPassword", bad) == "INVALID_LOGIN_CREDENTIALS"
    locked = pytest.raises(RPCFailure, call, public, "accounts.signInWithPassword",
                           {"email": email, "password": PASSWORD}).value
    assert locked.reason == "TOO_MANY_ATTEMPTS_TRY_LATER" and 0 < locked.retry_after <= 900


def test_a_correct_password_clears_the_failure_count(public):
    email = unique_email()
    sign_up(public, email)
    for _ in range(9):
        reason_of(public, "accounts.signInWithPassword", {"email": email, "password": "wrong password"})
    call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})
    for _ in range(9):
        reason_of(public, "accounts.signInWithPassword", {"email": email, "password": "wrong password"})
    call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})


def test_lookup_returns_the_user(public):
    email = unique_email()
    tokens = sign_up(public, email)
    user = call(public, "accounts.lookup", {"idToken": tokens["idToken"]})["user"]
    assert user["localId"] == tokens["localId"] and user["email"] == email
    assert user["emailVerified"] is False and user["disabled"] is False
    assert user["providers"] == ["password"] and user["mfaInfo"] == []
    assert user["createdAt"].endswith("Z") and "tenantId" not in user


def forged(token: str, *, header: dict | None = None, claims: dict | None = None, signature: str | None = None):
    original_header, original_claims = jwt_parts(token)
    parts = token.split(".")
    head = b64url(json.dumps({**original_header, **(header or {})}).encode())
    body = b64url(json.dumps({**original_claims, **(claims or {})}).encode())
    return f"{head}.{body}.{parts[2] if signature is None else signature}"


def test_tampered_and_unsigned_id_tokens_are_refused(public):
    token = sign_up(public)["idToken"]
    other = sign_up(public)
    _, other_claims = jwt_parts(other["idToken"])
    jwks = public.get("/oauth2/jwks").json()
    hmac_key = jwks["keys"][0]["x"].encode()
    hs256 = forged(token, header={"alg": "HS256"}, signature="")
    signing_input = ".".join(hs256.split(".")[:2]).encode()
    hs256 += b64url(hmac.new(hmac_key, signing_input, hashlib.sha256).digest())
    cases = {
        "another subject": forged(token, claims={"sub": other_claims["sub"]}),
        "later expiry": forged(token, claims={"exp": other_claims["exp"] + 86400}),
        "alg none": forged(token, header={"alg": "none"}, signature=""),
        "HS256 with the public key": hs256,
        "garbage": "not.a.jwt",
        "truncated": token[:-10],
    }
    for case, forgery in cases.items():
        assert reason_of(public, "accounts.lookup", {"idToken": forgery}) == "INVALID_ID_TOKEN", case
    assert reason_of(public, "accounts.lookup", {}) == "MISSING_ID_TOKEN"


def test_refresh_rotates_and_reuse_revokes_the_family(public):
    first = sign_up(public)
    second = call(public, "token.refresh", {"refreshToken": first["refreshToken"]})
    assert second["refreshToken"] != first["refreshToken"] and second["localId"] == first["localId"]
    _, first_claims = jwt_parts(first["idToken"])
    _, second_claims = jwt_parts(second["idToken"])
    assert second_claims["auth_time"] == first_claims["auth_time"]
    third = call(public, "token.refresh", {"refreshToken": second["refreshToken"]})
    assert reason_of(public, "token.refresh", {"refreshToken": first["refreshToken"]}) == "INVALID_REFRESH_TOKEN"
    assert reason_of(public, "token.refresh", {"refreshToken": third["refreshToken"]}) == "INVALID_REFRESH_TOKEN"
    assert reason_of(public, "token.refresh", {"refreshToken": "made-up"}) == "INVALID_REFRESH_TOKEN"


def test_revoking_tokens_refuses_old_ones_and_allows_a_new_sign_in(public, admin):
    email = unique_email()
    tokens = sign_up(public, email)
    call(admin, "users.revokeTokens", {"localId": tokens["localId"]})
    assert reason_of(public, "accounts.lookup", {"idToken": tokens["idToken"]}) == "TOKEN_EXPIRED"
    assert reason_of(public, "token.refresh", {"refreshToken": tokens["refreshToken"]}) == "INVALID_REFRESH_TOKEN"
    fresh = call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})
    assert call(public, "accounts.lookup", {"idToken": fresh["idToken"]})["user"]["email"] == email


def test_a_disabled_user_cannot_use_or_get_tokens(public, admin):
    email = unique_email()
    tokens = sign_up(public, email)
    call(admin, "users.update", {"localId": tokens["localId"], "disabled": True})
    assert reason_of(public, "accounts.lookup", {"idToken": tokens["idToken"]}) == "USER_DISABLED"
    assert reason_of(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD}) == "USER_DISABLED"
    assert reason_of(public, "accounts.signInWithPassword", {"email": email, "password": "wrong password"}) \
        == "INVALID_LOGIN_CREDENTIALS"
    call(admin, "users.update", {"localId": tokens["localId"], "disabled": False})
    fresh = call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})
    call(admin, "users.update", {"localId": tokens["localId"], "disabled": True})
    assert reason_of(public, "token.refresh", {"refreshToken": fresh["refreshToken"]}) == "INVALID_REFRESH_TOKEN"


def test_deleting_the_account_ends_its_tokens(public):
    tokens = sign_up(public)
    assert call(public, "accounts.delete", {"idToken": tokens["idToken"]}) == {}
    assert reason_of(public, "accounts.lookup", {"idToken": tokens["idToken"]}) == "USER_NOT_FOUND"
    assert reason_of(public, "token.refresh", {"refreshToken": tokens["refreshToken"]}) == "INVALID_REFRESH_TOKEN"


def test_credentials_are_bound_to_their_tenant(public, admin):
    tenant_a = call(admin, "tenants.create", {"tenant": {"displayName": "Tenant A"}})["tenantId"]
    tenant_b = call(admin, "tenants.create", {"tenant": {"displayName": "Tenant B"}})["tenantId"]
    email = unique_email()
    in_a = sign_up(public, email, tenant=tenant_a)
    in_b = sign_up(public, email, tenant=tenant_b)
    project = sign_up(public, email)
    assert len({in_a["localId"], in_b["localId"], project["localId"]}) == 3
    assert jwt_parts(in_a["idToken"])[1]["tenant"] == tenant_a
    assert call(public, "accounts.lookup", {"idToken": in_a["idToken"], "tenantId": tenant_a})["user"]["tenantId"] \
        == tenant_a
    for tenant in (tenant_b, None):
        params = {"idToken": in_a["idToken"], **({"tenantId": tenant} if tenant else {})}
        assert reason_of(public, "accounts.lookup", params) == "TENANT_ID_MISMATCH"
    assert reason_of(public, "accounts.lookup", {"idToken": project["idToken"], "tenantId": tenant_a}) \
        == "TENANT_ID_MISMATCH"
    assert reason_of(public, "token.refresh", {"refreshToken": in_a["refreshToken"], "tenantId": tenant_b}) \
        == "TENANT_ID_MISMATCH"
    assert reason_of(public, "accounts.signInWithPassword",
                     {"email": email, "password": PASSWORD, "tenantId": "t-unknown"}) == "TENANT_NOT_FOUND"


def test_tenant_switches_refuse_sign_up_and_every_user_method(public, admin):
    tenant = call(admin, "tenants.create", {"tenant": {"displayName": "Closed", "allowPasswordSignup": False}})
    tenant_id = tenant["tenantId"]
    assert reason_of(public, "accounts.signUp",
                     {"email": unique_email(), "password": PASSWORD, "tenantId": tenant_id}) == "OPERATION_NOT_ALLOWED"
    call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {"allowPasswordSignup": True},
                                   "updateMask": "allowPasswordSignup"})
    email = unique_email()
    tokens = sign_up(public, email, tenant=tenant_id)
    call(admin, "tenants.update", {"tenantId": tenant_id, "tenant": {"disableAuth": True}, "updateMask": "disableAuth"})
    assert reason_of(public, "accounts.signInWithPassword",
                     {"email": email, "password": PASSWORD, "tenantId": tenant_id}) == "PROJECT_DISABLED"
    assert reason_of(public, "accounts.lookup", {"idToken": tokens["idToken"], "tenantId": tenant_id}) \
        == "PROJECT_DISABLED"
    assert reason_of(public, "token.refresh", {"refreshToken": tokens["refreshToken"], "tenantId": tenant_id}) \
        == "PROJECT_DISABLED"


def test_e_mail_verification_through_the_webhook(public, mailbox):
    email = unique_email("verify")
    tokens = sign_up(public, email)
    assert call(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": tokens["idToken"]}) \
        == {"email": email}
    mail = mailbox.wait_for(email)
    assert mail["kind"] == "verify_email" and mail["to"] == email and "tenantId" not in mail
    assert mail["link"] in mail["text"] and "oobCode=" in mail["link"]
    code = mail["link"].split("oobCode=")[1].split("&")[0]
    assert call(public, "accounts.update", {"oobCode": code}) == {
        "localId": tokens["localId"], "email": email, "emailVerified": True}
    assert reason_of(public, "accounts.update", {"oobCode": code}) == "INVALID_OOB_CODE"
    assert call(public, "accounts.lookup", {"idToken": tokens["idToken"]})["user"]["emailVerified"] is True
    assert reason_of(public, "accounts.update", {"oobCode": "made-up"}) == "INVALID_OOB_CODE"
    assert reason_of(public, "accounts.sendOobCode", {"requestType": "PASSWORD_RESET", "idToken": tokens["idToken"]}) \
        == "INVALID_EMAIL"
    assert reason_of(public, "accounts.sendOobCode", {"requestType": "SIGN_IN", "email": email}) == "INVALID_ARGUMENT"
    assert reason_of(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL"}) == "MISSING_ID_TOKEN"


def test_password_reset_over_rpc(public, mailbox):
    email = unique_email("reset")
    tokens = sign_up(public, email)
    unknown = unique_email("nobody")
    assert call(public, "accounts.sendOobCode", {"requestType": "PASSWORD_RESET", "email": unknown}) == {
        "email": unknown}
    assert call(public, "accounts.sendOobCode", {"requestType": "PASSWORD_RESET", "email": email.upper()}) == {
        "email": email}
    mail = mailbox.wait_for(email)
    assert mail["kind"] == "password_reset" and "/reset-password?oobCode=" in mail["link"]
    assert mail["languageCode"] == "en" and mail["subject"] == "Reset your password"
    code = mail["link"].split("oobCode=")[1].split("&")[0]
    for bad, expected in (({"oobCode": code, "newPassword": "short"}, "WEAK_PASSWORD"),
                          ({"oobCode": "made-up", "newPassword": "a new long password"}, "INVALID_OOB_CODE"),
                          ({"oobCode": code, "newPassword": "a new long password", "tenantId": "t-unknown"},
                           "TENANT_NOT_FOUND"),
                          ({"oobCode": code}, "INVALID_ARGUMENT")):
        assert reason_of(public, "accounts.resetPassword", bad) == expected, bad
    # Nothing of that changed the account.
    call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})
    assert call(public, "accounts.resetPassword", {"oobCode": code, "newPassword": "a new long password"}) == {
        "email": email}
    assert reason_of(public, "accounts.resetPassword", {"oobCode": code, "newPassword": "another long one"}) \
        == "INVALID_OOB_CODE"
    assert reason_of(public, "token.refresh", {"refreshToken": tokens["refreshToken"]}) == "INVALID_REFRESH_TOKEN"
    assert reason_of(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD}) \
        == "INVALID_LOGIN_CREDENTIALS"
    assert "idToken" in call(public, "accounts.signInWithPassword", {"email": email, "password": "a new long password"})


def test_sign_out_ends_that_sign_in(public):
    email = unique_email("signout")
    first = sign_up(public, email)
    second = call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD})
    assert call(public, "accounts.signOut", {"idToken": first["idToken"]}) == {}
    assert reason_of(public, "accounts.lookup", {"idToken": first["idToken"]}) == "TOKEN_EXPIRED"
    assert reason_of(public, "token.refresh", {"refreshToken": first["refreshToken"]}) == "INVALID_REFRESH_TOKEN"
    assert reason_of(public, "accounts.signOut", {"idToken": first["idToken"]}) == "TOKEN_EXPIRED"
    assert call(public, "accounts.lookup", {"idToken": second["idToken"]})["user"]["email"] == email
    assert "idToken" in call(public, "token.refresh", {"refreshToken": second["refreshToken"]})
    assert reason_of(public, "accounts.signOut", {"idToken": "not-a-token"}) == "INVALID_ID_TOKEN"
    assert reason_of(public, "accounts.signOut", {}) == "MISSING_ID_TOKEN"


def test_a_tenant_code_is_refused_elsewhere_and_kept(public, admin, mailbox):
    tenant = call(admin, "tenants.create", {"tenant": {"displayName": "Mail"}})["tenantId"]
    email = unique_email("tenantmail")
    tokens = sign_up(public, email, tenant=tenant)
    call(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": tokens["idToken"],
                                          "tenantId": tenant})
    mail = mailbox.wait_for(email)
    assert mail["tenantId"] == tenant and f"tenantId={tenant}" in mail["link"]
    code = mail["link"].split("oobCode=")[1].split("&")[0]
    assert reason_of(public, "accounts.update", {"oobCode": code}) == "TENANT_ID_MISMATCH"
    assert call(public, "accounts.update", {"oobCode": code, "tenantId": tenant})["emailVerified"] is True


def test_key_rotation_keeps_old_tokens_valid(public, admin):
    before = sign_up(public)
    old_kid = jwt_parts(before["idToken"])[0]["kid"]
    new_kid = call(admin, "keys.rotate")["kid"]
    assert new_kid != old_kid
    kids = [key["kid"] for key in public.get("/oauth2/jwks").json()["keys"]]
    assert old_kid in kids and new_kid in kids
    assert call(public, "accounts.lookup", {"idToken": before["idToken"]})["user"]["localId"] == before["localId"]
    after = sign_up(public)
    assert jwt_parts(after["idToken"])[0]["kid"] == new_kid


def test_the_link_in_the_mail_opens_a_page_that_verifies_on_post(public, mailbox):
    email = unique_email("page")
    tokens = sign_up(public, email)
    call(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": tokens["idToken"]})
    link = mailbox.wait_for(email)["link"]
    path = link[link.index("/verify-email"):]
    shown = public.get(path)
    assert shown.status_code == 200 and "default-src 'none'" in shown.headers["Content-Security-Policy"]
    assert shown.headers["X-Frame-Options"] == "DENY" and 'method="post"' in shown.text
    assert call(public, "accounts.lookup", {"idToken": tokens["idToken"]})["user"]["emailVerified"] is False
    code = link.split("oobCode=")[1]
    confirmed = requests.post(f"{public.url}/verify-email", data={"oobCode": code}, timeout=10)
    assert confirmed.status_code == 200 and email in confirmed.text
    assert call(public, "accounts.lookup", {"idToken": tokens["idToken"]})["user"]["emailVerified"] is True
    again = requests.post(f"{public.url}/verify-email", data={"oobCode": code}, timeout=10)
    assert again.status_code == 400 and "already been used" in again.text
    assert public.get("/verify-email").status_code == 400
