"""Multi-factor authentication with TOTP over the public JSON-RPC API (API §4), pyotp playing the authenticator app.

Every test makes its own tenant with the MFA config it needs; only the inheritance test changes the project's
config, and it restores it exactly.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pyotp
import pytest
import requests

from identity import call, failure_of, jwt_parts, psql, reason_of, unique_email
from support import TIMEOUT, Listener

PASSWORD = "correct horse battery"
PERIOD = 30
TOKEN_RESULT = {"localId", "idToken", "refreshToken", "expiresIn"}
CHALLENGE = {"mfaPendingCredential", "mfaInfo", "localId"}
MFA_METHODS = ("mfaEnrollment.start", "mfaEnrollment.finalize", "mfaEnrollment.withdraw", "mfaSignIn.start",
               "mfaSignIn.finalize")


def totp_config(adjacent_intervals: int = 1, state: str = "ENABLED") -> dict:
    """A MultiFactorAuthConfig with TOTP enabled (API §4 rule 2)."""
    return {"state": state,
            "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": adjacent_intervals}}]}


def new_tenant(admin, mfa_config: dict | None, display_name: str = "MFA e2e") -> str:
    """A new tenant's id; `mfa_config` None leaves `mfaConfig` out (the tenant inherits the project's)."""
    tenant = {"displayName": display_name}
    if mfa_config is not None:
        tenant["mfaConfig"] = mfa_config
    return call(admin, "tenants.create", {"tenant": tenant})["tenantId"]


def set_tenant_mfa(admin, tenant: str, mfa_config: dict | None, mask: str = "mfaConfig"):
    """Replaces the fields of the tenant's mfaConfig named by `mask` (None: the tenant inherits again)."""
    body = {} if mfa_config is None else {"mfaConfig": mfa_config}
    call(admin, "tenants.update", {"tenantId": tenant, "tenant": body, "updateMask": mask})


def with_tenant(params: dict, tenant: str | None) -> dict:
    return {**params, "tenantId": tenant} if tenant else params


def instant(text: str) -> float:
    """Seconds since the epoch of an RFC 3339 time in UTC."""
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text[:-1] + "+00:00").timestamp()


class Authenticator:
    """The user's authenticator app: pyotp over the shared secret. It remembers the step of the last code it gave
    out, so each `next_code` is of a later step (the server refuses a code of an earlier or equal step): the step
    of now, or the next one (`totp.at(now + 30)`) when the current step's code was already used."""

    def __init__(self, secret: str):
        self.totp = pyotp.TOTP(secret)
        self.last_step: int | None = None

    def next_code(self) -> str:
        step = int(time.time()) // PERIOD
        if self.last_step is not None:
            step = max(step, self.last_step + 1)
        self.last_step = step
        return self.totp.at(step * PERIOD)

    def wrong_code(self, adjacent_intervals: int) -> str:
        """A code that matches no step the server could accept now (one step of slack either side)."""
        now = time.time()
        reach = adjacent_intervals + 1
        valid = {self.totp.at(now + PERIOD * offset) for offset in range(-reach, reach + 1)}
        while True:
            code = f"{secrets.randbelow(10**6):06d}"
            if code not in valid:
                return code


@dataclass
class Enrolled:
    """A user with one TOTP enrolment: their e-mail, tenant, what start returned, the tokens finalize returned."""

    email: str
    tenant: str | None
    started: dict
    tokens: dict
    app: Authenticator

    @property
    def enrollment_id(self) -> str:
        return self.tokens["mfaEnrollmentId"]


def sign_in(public, email: str, tenant: str | None) -> dict:
    return call(public, "accounts.signInWithPassword", with_tenant({"email": email, "password": PASSWORD}, tenant))


def verified_user(admin, public, tenant: str | None, prefix: str = "mfa") -> tuple[str, dict]:
    """A new user with a verified e-mail (made through the admin API) and the result of their first sign-in."""
    email = unique_email(prefix)
    call(admin, "users.create", with_tenant({"email": email, "password": PASSWORD, "emailVerified": True}, tenant))
    return email, sign_in(public, email, tenant)


def start_totp(public, id_token: str, tenant: str | None) -> dict:
    """The totpSessionInfo of a new enrolment."""
    started = call(public, "mfaEnrollment.start", with_tenant({"idToken": id_token, "totpEnrollmentInfo": {}}, tenant))
    assert set(started) == {"totpSessionInfo"}, started
    return started["totpSessionInfo"]


def finalize_params(id_token: str, tenant: str | None, session_info: str, code: str) -> dict:
    return with_tenant({"idToken": id_token,
                        "totpVerificationInfo": {"sessionInfo": session_info, "verificationCode": code}}, tenant)


def enrolled_user(admin, public, tenant: str | None, prefix: str = "mfa") -> Enrolled:
    email, tokens = verified_user(admin, public, tenant, prefix)
    started = start_totp(public, tokens["idToken"], tenant)
    app = Authenticator(started["sharedSecretKey"])
    finalized = call(public, "mfaEnrollment.finalize",
                     finalize_params(tokens["idToken"], tenant, started["sessionInfo"], app.next_code()))
    return Enrolled(email, tenant, started, finalized, app)


def pending_credential(public, user: Enrolled) -> str:
    """The mfaPendingCredential of a new password sign-in, which must be challenged."""
    challenge = sign_in(public, user.email, user.tenant)
    assert set(challenge) == CHALLENGE, challenge
    return challenge["mfaPendingCredential"]


def sign_in_params(pending: str, enrollment_id: str, code: str, tenant: str | None) -> dict:
    return with_tenant({"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id,
                        "totpVerificationInfo": {"verificationCode": code}}, tenant)


def assert_second_factor_claims(tokens: dict, enrollment_id: str, tenant: str | None):
    _, claims = jwt_parts(tokens["idToken"])
    assert claims["sign_in_provider"] == "password" and claims["sign_in_second_factor"] == "totp"
    assert claims["second_factor_identifier"] == enrollment_id and claims.get("tenant") == tenant
    assert claims["sub"] == tokens["localId"] and "mfa_enrollment_required" not in claims


# 1. The whole flow, as a SaaS backend and its user's authenticator app would go through it.

def test_enrol_totp_then_sign_in_with_the_code_of_an_authenticator_app(public, admin):
    issuer = "Acme Widgets"
    tenant = new_tenant(admin, totp_config(2), issuer)
    email, first = verified_user(admin, public, tenant)
    asked_at = time.time()
    started = start_totp(public, first["idToken"], tenant)
    assert set(started) == {"sharedSecretKey", "verificationCodeLength", "hashingAlgorithm", "periodSec",
                            "sessionInfo", "finalizeEnrollmentTime", "otpauthUri"}
    secret = started["sharedSecretKey"]
    assert len(secret) == 32 and "=" not in secret and len(base64.b32decode(secret)) == 20
    assert started["verificationCodeLength"] == 6 and started["hashingAlgorithm"] == "SHA1"
    assert started["periodSec"] == 30
    assert isinstance(started["sessionInfo"], str) and len(started["sessionInfo"]) >= 32
    assert abs(instant(started["finalizeEnrollmentTime"]) - (asked_at + 600)) < 30

    uri = started["otpauthUri"]
    parts = urlsplit(uri)
    assert parts.scheme == "otpauth" and parts.netloc == "totp"
    assert unquote(parts.path) == f"/{issuer}:{email}"
    assert parse_qs(parts.query) == {"secret": [secret], "issuer": [issuer], "algorithm": ["SHA1"],
                                     "digits": ["6"], "period": ["30"]}
    app_from_uri = pyotp.parse_uri(uri)
    assert isinstance(app_from_uri, pyotp.TOTP) and app_from_uri.secret == secret
    assert app_from_uri.issuer == issuer and app_from_uri.name == email
    assert app_from_uri.digest is hashlib.sha1 and app_from_uri.digits == 6 and app_from_uri.interval == 30

    app = Authenticator(secret)
    enrolled = call(public, "mfaEnrollment.finalize", {
        **finalize_params(first["idToken"], tenant, started["sessionInfo"], app.next_code()),
        "displayName": "Work phone"})
    assert set(enrolled) == TOKEN_RESULT | {"mfaEnrollmentId"} and enrolled["expiresIn"] == 3600
    enrollment_id = enrolled["mfaEnrollmentId"]
    assert enrolled["localId"] == first["localId"] and enrollment_id
    assert_second_factor_claims(enrolled, enrollment_id, tenant)
    assert jwt_parts(enrolled["idToken"])[1]["auth_time"] == jwt_parts(first["idToken"])[1]["auth_time"]

    user = call(public, "accounts.lookup", {"idToken": enrolled["idToken"], "tenantId": tenant})["user"]
    [enrollment] = user["mfaInfo"]
    assert set(enrollment) == {"mfaEnrollmentId", "displayName", "enrolledAt", "totpInfo"}
    assert enrollment["mfaEnrollmentId"] == enrollment_id and enrollment["displayName"] == "Work phone"
    assert enrollment["totpInfo"] == {} and abs(instant(enrollment["enrolledAt"]) - time.time()) < 120
    seen = json.dumps(user) + json.dumps(call(admin, "users.get", {"tenantId": tenant, "localId": user["localId"]}))
    assert secret not in seen and secret.lower() not in seen
    sealed = psql(f"SELECT encode(sealed_state, 'hex') FROM mfa_enrollments WHERE enrollment_id = '{enrollment_id}'")
    assert sealed and base64.b32decode(secret).hex() not in sealed and secret.encode().hex() not in sealed.lower()

    # The first factor alone leaves lastLoginAt where it was; the second factor moves it.
    psql(f"UPDATE users SET last_login_at = '2020-01-01T00:00:00Z' WHERE user_id = '{user['localId']}'")
    challenge = sign_in(public, email, tenant)
    assert set(challenge) == CHALLENGE and challenge["localId"] == user["localId"]
    assert challenge["mfaInfo"] == user["mfaInfo"]
    last_login = call(admin, "users.get", {"tenantId": tenant, "localId": user["localId"]})["lastLoginAt"]
    assert last_login == "2020-01-01T00:00:00Z"
    code = app.next_code()
    tokens = call(public, "mfaSignIn.finalize", sign_in_params(challenge["mfaPendingCredential"], enrollment_id,
                                                               code, tenant))
    assert set(tokens) == TOKEN_RESULT and tokens["localId"] == user["localId"]
    assert_second_factor_claims(tokens, enrollment_id, tenant)
    assert abs(jwt_parts(tokens["idToken"])[1]["auth_time"] - time.time()) < 120
    moved = call(public, "accounts.lookup", {"idToken": tokens["idToken"], "tenantId": tenant})["user"]["lastLoginAt"]
    assert abs(instant(moved) - time.time()) < 120

    # A code is good once: neither it nor an earlier one passes again, even with a fresh challenge.
    again = sign_in(public, email, tenant)["mfaPendingCredential"]
    for replayed in (code, app.totp.at(time.time() - PERIOD)):
        assert reason_of(public, "mfaSignIn.finalize", sign_in_params(again, enrollment_id, replayed, tenant)) \
            == "INVALID_CODE"
    # The pending credential is single use, and a tampered one is unknown.
    used = sign_in_params(challenge["mfaPendingCredential"], enrollment_id, app.wrong_code(2), tenant)
    assert reason_of(public, "mfaSignIn.finalize", used) == "INVALID_MFA_PENDING_CREDENTIAL"
    tampered = again[:-1] + ("A" if again[-1] != "A" else "B")
    assert reason_of(public, "mfaSignIn.finalize", sign_in_params(tampered, enrollment_id, app.wrong_code(2), tenant)) \
        == "INVALID_MFA_PENDING_CREDENTIAL"
    # The challenge that saw the replays still takes a fresh code.
    assert set(call(public, "mfaSignIn.finalize", sign_in_params(again, enrollment_id, app.next_code(), tenant))) \
        == TOKEN_RESULT


# 2. Params: missing, unknown, ill-typed, and the choice between the factors' members.

ID_TOKEN, PENDING, ENROLLMENT, SESSION = "<idToken>", "<mfaPendingCredential>", "<mfaEnrollmentId>", "<sessionInfo>"
CODE = {"verificationCode": "000000"}
PHONE = {"phoneNumber": "+15555550100"}
MADE_UP = "e-made-up-enrollment"


@pytest.fixture(scope="module")
def param_user(public, admin) -> Enrolled:
    return enrolled_user(admin, public, new_tenant(admin, totp_config()), "params")


@pytest.mark.parametrize("method, template, reason", [
    ("mfaEnrollment.start", {"totpEnrollmentInfo": {}}, "MISSING_ID_TOKEN"),
    ("mfaEnrollment.start", {"idToken": ID_TOKEN, "totpEnrollmentInfo": {}, "bogus": 1}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.start", {"idToken": ID_TOKEN}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.start", {"idToken": ID_TOKEN, "totpEnrollmentInfo": {}, "phoneEnrollmentInfo": PHONE},
     "INVALID_ARGUMENT"),
    ("mfaEnrollment.start", {"idToken": ID_TOKEN, "totpEnrollmentInfo": {"accountName": "x"}}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.start", {"idToken": ID_TOKEN, "totpEnrollmentInfo": "yes"}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.start", {"idToken": 42, "totpEnrollmentInfo": {}}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.finalize", {"totpVerificationInfo": {"sessionInfo": SESSION, **CODE}}, "MISSING_ID_TOKEN"),
    ("mfaEnrollment.finalize", {"idToken": ID_TOKEN, "totpVerificationInfo": CODE}, "MISSING_SESSION_INFO"),
    ("mfaEnrollment.finalize", {"idToken": ID_TOKEN, "totpVerificationInfo": {"sessionInfo": SESSION}},
     "MISSING_CODE"),
    ("mfaEnrollment.finalize", {"idToken": ID_TOKEN}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.finalize", {"idToken": ID_TOKEN, "totpVerificationInfo": {"sessionInfo": SESSION, **CODE},
                                "phoneVerificationInfo": {"sessionInfo": SESSION, "code": "000000"}},
     "INVALID_ARGUMENT"),
    ("mfaEnrollment.finalize", {"idToken": ID_TOKEN, "totpVerificationInfo": {"sessionInfo": SESSION, **CODE},
                                "displayNmae": "typo"}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.finalize", {"idToken": ID_TOKEN, "totpVerificationInfo": {"sessionInfo": SESSION, **CODE,
                                                                              "extra": 1}}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.withdraw", {"mfaEnrollmentId": MADE_UP}, "MISSING_ID_TOKEN"),
    ("mfaEnrollment.withdraw", {"idToken": ID_TOKEN}, "MISSING_MFA_ENROLLMENT_ID"),
    ("mfaEnrollment.withdraw", {"idToken": ID_TOKEN, "mfaEnrollmentId": MADE_UP, "bogus": 1}, "INVALID_ARGUMENT"),
    ("mfaSignIn.start", {"mfaEnrollmentId": ENROLLMENT}, "MISSING_MFA_PENDING_CREDENTIAL"),
    ("mfaSignIn.start", {"mfaPendingCredential": PENDING}, "MISSING_MFA_ENROLLMENT_ID"),
    ("mfaSignIn.start", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT}, "INVALID_ARGUMENT"),
    ("mfaSignIn.start", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT, "bogus": 1},
     "INVALID_ARGUMENT"),
    ("mfaSignIn.start", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT, "totpSignInInfo": {}},
     "INVALID_ARGUMENT"),
    ("mfaSignIn.finalize", {"mfaEnrollmentId": ENROLLMENT, "totpVerificationInfo": CODE},
     "MISSING_MFA_PENDING_CREDENTIAL"),
    ("mfaSignIn.finalize", {"mfaPendingCredential": PENDING, "totpVerificationInfo": CODE},
     "MISSING_MFA_ENROLLMENT_ID"),
    ("mfaSignIn.finalize", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT,
                            "totpVerificationInfo": {}}, "MISSING_CODE"),
    ("mfaSignIn.finalize", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT}, "INVALID_ARGUMENT"),
    ("mfaSignIn.finalize", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT,
                            "totpVerificationInfo": CODE, "phoneVerificationInfo": {"sessionInfo": "s", "code": "1"}},
     "INVALID_ARGUMENT"),
    ("mfaSignIn.finalize", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT,
                            "totpVerificationInfo": CODE, "bogus": 1}, "INVALID_ARGUMENT"),
    ("mfaSignIn.finalize", {"mfaPendingCredential": PENDING, "mfaEnrollmentId": ENROLLMENT,
                            "totpVerificationInfo": {"verificationCode": 123456}}, "INVALID_ARGUMENT"),
])
def test_bad_params_get_the_named_reason(public, param_user, method, template, reason):
    user = param_user
    shown = json.dumps(template)
    values = {ID_TOKEN: user.tokens["idToken"], ENROLLMENT: user.enrollment_id}
    if PENDING in shown:
        values[PENDING] = pending_credential(public, user)
    if SESSION in shown:
        values[SESSION] = start_totp(public, user.tokens["idToken"], user.tenant)["sessionInfo"]

    def filled(value):
        if isinstance(value, dict):
            return {key: filled(member) for key, member in value.items()}
        return values.get(value, value) if isinstance(value, str) else value

    failure = failure_of(public, method, {**filled(template), "tenantId": user.tenant})
    assert (failure.reason, failure.status, failure.code) == (reason, "INVALID_ARGUMENT", -32602), failure.message
    assert failure.message.startswith(f"{reason} : ")


def test_the_mfa_methods_are_not_on_the_admin_listener(admin):
    for method in MFA_METHODS:
        assert failure_of(admin, method, {}).code == -32601, method


# 3. Preconditions.

def test_enrolment_needs_a_verified_e_mail(public, admin, mailbox):
    tenant = new_tenant(admin, totp_config())
    email = unique_email("unverified")
    tokens = call(public, "accounts.signUp", {"email": email, "password": PASSWORD, "tenantId": tenant})
    start = {"idToken": tokens["idToken"], "tenantId": tenant, "totpEnrollmentInfo": {}}
    failure = failure_of(public, "mfaEnrollment.start", start)
    assert (failure.reason, failure.status) == ("UNVERIFIED_EMAIL", "FAILED_PRECONDITION")
    call(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": tokens["idToken"],
                                          "tenantId": tenant})
    code = mailbox.wait_for(email)["link"].split("oobCode=")[1].split("&")[0]
    assert call(public, "accounts.update", {"oobCode": code, "tenantId": tenant})["emailVerified"] is True
    assert "sharedSecretKey" in call(public, "mfaEnrollment.start", start)["totpSessionInfo"]


@pytest.mark.parametrize("mfa_config", [
    {"state": "DISABLED"},
    {"state": "DISABLED", "providerConfigs": totp_config()["providerConfigs"]},
    {"state": "ENABLED"},
    {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
    {"state": "ENABLED", "providerConfigs": [{"state": "DISABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]},
    {"state": "MANDATORY"},
], ids=["disabled", "disabled-with-totp", "enabled-without-providers", "phone-only", "totp-disabled",
        "mandatory-without-providers"])
def test_enrolment_needs_totp_to_be_enabled(public, admin, mfa_config):
    tenant = new_tenant(admin, mfa_config)
    _, tokens = verified_user(admin, public, tenant)
    assert "mfaEnrollmentRequired" not in tokens
    failure = failure_of(public, "mfaEnrollment.start",
                         {"idToken": tokens["idToken"], "tenantId": tenant, "totpEnrollmentInfo": {}})
    assert (failure.reason, failure.status) == ("OPERATION_NOT_ALLOWED", "FAILED_PRECONDITION")


@pytest.mark.parametrize("off, mask", [
    ({"state": "DISABLED"}, "mfaConfig.state"),
    ({"providerConfigs": [{"state": "DISABLED", "totpProviderConfig": {"adjacentIntervals": 2}}]},
     "mfaConfig.providerConfigs"),
], ids=["mfa-disabled", "totp-provider-disabled"])
def test_switching_totp_off_hides_enrolments_until_it_is_back(public, admin, off, mask):
    tenant = new_tenant(admin, totp_config(2))
    user = enrolled_user(admin, public, tenant)
    pending = pending_credential(public, user)
    fresh = sign_in(public, user.email, tenant)
    # An enrolment of a second factor started while TOTP was on.
    started = start_totp(public, user.tokens["idToken"], tenant)
    second_app = Authenticator(started["sharedSecretKey"])

    set_tenant_mfa(admin, tenant, off, mask)
    assert reason_of(public, "mfaSignIn.finalize",
                     sign_in_params(pending, user.enrollment_id, user.app.next_code(), tenant)) \
        == "OPERATION_NOT_ALLOWED"
    assert reason_of(public, "mfaEnrollment.finalize", finalize_params(
        user.tokens["idToken"], tenant, started["sessionInfo"], second_app.next_code())) == "OPERATION_NOT_ALLOWED"
    assert reason_of(public, "mfaEnrollment.start", {"idToken": user.tokens["idToken"], "tenantId": tenant,
                                                      "totpEnrollmentInfo": {}}) == "OPERATION_NOT_ALLOWED"
    tokens = sign_in(public, user.email, tenant)
    assert set(tokens) == TOKEN_RESULT and "sign_in_second_factor" not in jwt_parts(tokens["idToken"])[1]
    assert call(public, "accounts.lookup", {"idToken": tokens["idToken"], "tenantId": tenant})["user"]["mfaInfo"] == []

    set_tenant_mfa(admin, tenant, totp_config(2))
    challenge = sign_in(public, user.email, tenant)
    assert set(challenge) == CHALLENGE
    assert [e["mfaEnrollmentId"] for e in challenge["mfaInfo"]] == [user.enrollment_id]
    assert [e["mfaEnrollmentId"] for e in call(public, "accounts.lookup", {
        "idToken": tokens["idToken"], "tenantId": tenant})["user"]["mfaInfo"]] == [user.enrollment_id]
    signed_in = call(public, "mfaSignIn.finalize",
                     sign_in_params(fresh["mfaPendingCredential"], user.enrollment_id, user.app.next_code(), tenant))
    assert_second_factor_claims(signed_in, user.enrollment_id, tenant)


def test_the_sixth_enrolment_is_refused(public, admin):
    tenant = new_tenant(admin, totp_config())
    email, tokens = verified_user(admin, public, tenant)
    sessions = [start_totp(public, tokens["idToken"], tenant) for _ in range(6)]
    enrolled = [call(public, "mfaEnrollment.finalize", finalize_params(
        tokens["idToken"], tenant, started["sessionInfo"], Authenticator(started["sharedSecretKey"]).next_code()))
        for started in sessions[:5]]
    sixth = sessions[5]
    failure = failure_of(public, "mfaEnrollment.finalize", finalize_params(
        tokens["idToken"], tenant, sixth["sessionInfo"], Authenticator(sixth["sharedSecretKey"]).next_code()))
    assert (failure.reason, failure.status) == ("SECOND_FACTOR_LIMIT_EXCEEDED", "FAILED_PRECONDITION")
    assert reason_of(public, "mfaEnrollment.start", {"idToken": tokens["idToken"], "tenantId": tenant,
                                                      "totpEnrollmentInfo": {}}) == "SECOND_FACTOR_LIMIT_EXCEEDED"
    ids = [result["mfaEnrollmentId"] for result in enrolled]
    assert len(set(ids)) == 5
    user = call(public, "accounts.lookup", {"idToken": tokens["idToken"], "tenantId": tenant})["user"]
    assert sorted(e["mfaEnrollmentId"] for e in user["mfaInfo"]) == sorted(ids)
    assert sorted(e["mfaEnrollmentId"] for e in sign_in(public, email, tenant)["mfaInfo"]) == sorted(ids)


def test_a_session_info_is_its_users_and_single_use(public, admin):
    tenant = new_tenant(admin, totp_config())
    _, alice = verified_user(admin, public, tenant, "alice")
    _, bob = verified_user(admin, public, tenant, "bob")
    started = start_totp(public, alice["idToken"], tenant)
    app = Authenticator(started["sharedSecretKey"])
    code = app.next_code()
    failure = failure_of(public, "mfaEnrollment.finalize",
                         finalize_params(bob["idToken"], tenant, started["sessionInfo"], code))
    assert (failure.reason, failure.status) == ("INVALID_SESSION_INFO", "INVALID_ARGUMENT")
    assert reason_of(public, "mfaEnrollment.finalize",
                     finalize_params(alice["idToken"], tenant, "made-up-session", code)) == "INVALID_SESSION_INFO"
    call(public, "mfaEnrollment.finalize", finalize_params(alice["idToken"], tenant, started["sessionInfo"], code))
    assert reason_of(public, "mfaEnrollment.finalize", finalize_params(
        alice["idToken"], tenant, started["sessionInfo"], app.next_code())) == "INVALID_SESSION_INFO"


def test_an_enrolment_id_is_usable_by_its_owner_only(public, admin):
    tenant = new_tenant(admin, totp_config(2))
    alice = enrolled_user(admin, public, tenant, "alice")
    bob = enrolled_user(admin, public, tenant, "bob")
    pending = pending_credential(public, alice)
    for enrollment_id in (bob.enrollment_id, MADE_UP):
        failure = failure_of(public, "mfaSignIn.finalize",
                             sign_in_params(pending, enrollment_id, bob.app.next_code(), tenant))
        assert (failure.reason, failure.status) == ("MFA_ENROLLMENT_NOT_FOUND", "NOT_FOUND"), enrollment_id
        assert reason_of(public, "mfaSignIn.start", {"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id,
                                                     "tenantId": tenant}) == "MFA_ENROLLMENT_NOT_FOUND"
        assert reason_of(public, "mfaEnrollment.withdraw", {"idToken": alice.tokens["idToken"], "tenantId": tenant,
                                                            "mfaEnrollmentId": enrollment_id}) \
            == "MFA_ENROLLMENT_NOT_FOUND"
    # Bob's enrolment is untouched, and so is Alice's challenge.
    assert [e["mfaEnrollmentId"] for e in sign_in(public, bob.email, tenant)["mfaInfo"]] == [bob.enrollment_id]
    call(public, "mfaSignIn.finalize", sign_in_params(pending, alice.enrollment_id, alice.app.next_code(), tenant))


def test_a_pending_credential_is_bound_to_its_tenant(public, admin):
    home = new_tenant(admin, totp_config(2), "Home")
    elsewhere = new_tenant(admin, totp_config(2), "Elsewhere")
    user = enrolled_user(admin, public, home)
    pending = pending_credential(public, user)
    code = user.app.next_code()
    for tenant in (elsewhere, None):
        failure = failure_of(public, "mfaSignIn.finalize", sign_in_params(pending, user.enrollment_id, code, tenant))
        assert (failure.reason, failure.status) == ("TENANT_ID_MISMATCH", "FAILED_PRECONDITION"), tenant
    tokens = call(public, "mfaSignIn.finalize", sign_in_params(pending, user.enrollment_id, code, home))
    assert jwt_parts(tokens["idToken"])[1]["tenant"] == home


# 4. Brute force (API §4 rule 7).

def test_five_wrong_codes_burn_a_pending_credential(public, admin):
    tenant = new_tenant(admin, totp_config())
    user = enrolled_user(admin, public, tenant)
    pending = pending_credential(public, user)
    for attempt in range(5):
        assert reason_of(public, "mfaSignIn.finalize", sign_in_params(
            pending, user.enrollment_id, user.app.wrong_code(1), tenant)) == "INVALID_CODE", attempt
    code = user.app.next_code()
    burnt = failure_of(public, "mfaSignIn.finalize", sign_in_params(pending, user.enrollment_id, code, tenant))
    assert (burnt.reason, burnt.status) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED")
    assert isinstance(burnt.retry_after, int) and 0 < burnt.retry_after <= 600
    # Only that credential is burnt: a new sign-in passes with the right code (five failures do not lock).
    fresh = pending_credential(public, user)
    call(public, "mfaSignIn.finalize", sign_in_params(fresh, user.enrollment_id, code, tenant))


def test_ten_wrong_codes_in_a_row_lock_the_enrolment_whatever_the_credential(public, admin):
    tenant = new_tenant(admin, totp_config())
    user = enrolled_user(admin, public, tenant)
    for wrong in (4, 4, 2):
        pending = pending_credential(public, user)
        for _ in range(wrong):
            assert reason_of(public, "mfaSignIn.finalize", sign_in_params(
                pending, user.enrollment_id, user.app.wrong_code(1), tenant)) == "INVALID_CODE"
    code = user.app.next_code()
    for pending in (pending, pending_credential(public, user)):
        locked = failure_of(public, "mfaSignIn.finalize", sign_in_params(pending, user.enrollment_id, code, tenant))
        assert (locked.reason, locked.status) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED")
        assert isinstance(locked.retry_after, int) and 800 <= locked.retry_after <= 900


# 5. MANDATORY (API §4 rule 5).

def test_mandatory_mfa_lets_a_user_without_a_factor_do_nothing_but_enrol(public, admin, mailbox):
    tenant = new_tenant(admin, totp_config(2, "MANDATORY"), "Strict")
    signed_up = call(public, "accounts.signUp", {"email": unique_email(), "password": PASSWORD, "tenantId": tenant})
    assert signed_up["mfaEnrollmentRequired"] is True

    email, tokens = verified_user(admin, public, tenant, "mandatory")
    assert set(tokens) == TOKEN_RESULT | {"mfaEnrollmentRequired"} and tokens["mfaEnrollmentRequired"] is True
    assert jwt_parts(tokens["idToken"])[1]["mfa_enrollment_required"] is True
    in_tenant = {"tenantId": tenant}
    user = call(public, "accounts.lookup", {"idToken": tokens["idToken"], **in_tenant})["user"]
    assert user["email"] == email and user["mfaInfo"] == []
    assert call(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": tokens["idToken"],
                                                 **in_tenant}) == {"email": email}
    mailbox.wait_for(email)
    refreshed = call(public, "token.refresh", {"refreshToken": tokens["refreshToken"], **in_tenant})
    assert refreshed["mfaEnrollmentRequired"] is True
    assert jwt_parts(refreshed["idToken"])[1]["mfa_enrollment_required"] is True
    for token in (tokens["idToken"], refreshed["idToken"]):
        failure = failure_of(public, "accounts.delete", {"idToken": token, **in_tenant})
        assert (failure.reason, failure.status) == ("MFA_ENROLLMENT_REQUIRED", "FAILED_PRECONDITION")

    started = start_totp(public, refreshed["idToken"], tenant)
    app = Authenticator(started["sharedSecretKey"])
    enrolled = call(public, "mfaEnrollment.finalize",
                    finalize_params(refreshed["idToken"], tenant, started["sessionInfo"], app.next_code()))
    assert set(enrolled) == TOKEN_RESULT | {"mfaEnrollmentId"}
    assert_second_factor_claims(enrolled, enrolled["mfaEnrollmentId"], tenant)
    again = call(public, "token.refresh", {"refreshToken": enrolled["refreshToken"], **in_tenant})
    assert "mfaEnrollmentRequired" not in again
    assert "mfa_enrollment_required" not in jwt_parts(again["idToken"])[1]

    challenge = sign_in(public, email, tenant)
    assert set(challenge) == CHALLENGE
    signed_in = call(public, "mfaSignIn.finalize", sign_in_params(
        challenge["mfaPendingCredential"], enrolled["mfaEnrollmentId"], app.next_code(), tenant))
    assert "mfaEnrollmentRequired" not in signed_in
    assert call(public, "accounts.delete", {"idToken": signed_in["idToken"], **in_tenant}) == {}


# 6. Inheritance (API §4 rule 1).

def test_a_tenant_without_mfa_config_follows_the_project(public, admin):
    saved = call(admin, "projects.getConfig")
    inheriting = new_tenant(admin, None, "Inherits")
    opted_out = new_tenant(admin, {"state": "DISABLED"}, "Opts out")
    try:
        call(admin, "projects.updateConfig", {"config": {"mfa": totp_config(2)}, "updateMask": "mfa"})
        assert call(admin, "tenants.get", {"tenantId": inheriting})["effectiveMfaConfig"] == \
            call(admin, "projects.getConfig")["mfa"]
        user = enrolled_user(admin, public, inheriting, "inherits")
        assert pyotp.parse_uri(user.started["otpauthUri"]).issuer == "Inherits"
        assert set(sign_in(public, user.email, inheriting)) == CHALLENGE
        project_user = enrolled_user(admin, public, None, "project")
        assert pyotp.parse_uri(project_user.started["otpauthUri"]).issuer == saved["displayName"]
        assert set(sign_in(public, project_user.email, None)) == CHALLENGE

        _, tokens = verified_user(admin, public, opted_out, "optedout")
        assert reason_of(public, "mfaEnrollment.start", {"idToken": tokens["idToken"], "tenantId": opted_out,
                                                          "totpEnrollmentInfo": {}}) == "OPERATION_NOT_ALLOWED"
        # The enrolled user's tenant opts out: tokens without a challenge; it inherits again: the challenge is back.
        set_tenant_mfa(admin, inheriting, {"state": "DISABLED"})
        assert set(sign_in(public, user.email, inheriting)) == TOKEN_RESULT
        set_tenant_mfa(admin, inheriting, None)
        assert set(sign_in(public, user.email, inheriting)) == CHALLENGE
    finally:
        call(admin, "projects.updateConfig", {"config": saved})
    assert call(admin, "projects.getConfig") == saved
    if saved["mfa"]["state"] == "DISABLED":
        assert set(sign_in(public, user.email, inheriting)) == TOKEN_RESULT
        assert set(sign_in(public, project_user.email, None)) == TOKEN_RESULT


# 7. Withdraw (API §4 rule 9).

def test_withdrawing_the_factor_revokes_every_token_and_ends_the_challenge(public, admin):
    tenant = new_tenant(admin, totp_config(2))
    user = enrolled_user(admin, public, tenant)
    in_tenant = {"tenantId": tenant}
    signed_in = call(public, "mfaSignIn.finalize", sign_in_params(
        pending_credential(public, user), user.enrollment_id, user.app.next_code(), tenant))
    pending = pending_credential(public, user)
    assert call(public, "mfaEnrollment.withdraw", {"idToken": signed_in["idToken"],
                                                   "mfaEnrollmentId": user.enrollment_id, **in_tenant}) == {}
    for tokens in (user.tokens, signed_in):
        expired = failure_of(public, "accounts.lookup", {"idToken": tokens["idToken"], **in_tenant})
        assert (expired.reason, expired.status) == ("TOKEN_EXPIRED", "UNAUTHENTICATED")
        assert reason_of(public, "token.refresh", {"refreshToken": tokens["refreshToken"], **in_tenant}) \
            == "INVALID_REFRESH_TOKEN"
    # The withdrawal revoked the user's tokens, which ends the pending sign-ins in the same transaction.
    assert reason_of(public, "mfaSignIn.finalize", sign_in_params(
        pending, user.enrollment_id, user.app.next_code(), tenant)) == "INVALID_MFA_PENDING_CREDENTIAL"
    tokens = sign_in(public, user.email, tenant)
    assert set(tokens) == TOKEN_RESULT
    assert call(public, "accounts.lookup", {"idToken": tokens["idToken"], **in_tenant})["user"]["mfaInfo"] == []
    assert reason_of(public, "mfaEnrollment.withdraw", {"idToken": tokens["idToken"],
                                                        "mfaEnrollmentId": user.enrollment_id, **in_tenant}) \
        == "MFA_ENROLLMENT_NOT_FOUND"


# 8. A fleet of two servers on one database: a code is accepted once, whichever server sees it first.

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def second_server(public_url):
    """A second server process on the same database and master key, public listener only; stopped with SIGTERM."""
    needed = ("TESSERA_BIN", "TESSERA_TEST_DATABASE_URL", "TESSERA_E2E_MASTER_KEY_FILE")
    missing = [name for name in needed if not os.environ.get(name)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not set: run the suite through scripts/e2e.sh")
    port = free_port()
    output = Path(__file__).resolve().parents[2] / "test-output"
    output.mkdir(exist_ok=True)
    log_path = output / "e2e-second-server.log"
    environment = {name: value for name, value in os.environ.items() if not name.startswith("TESSERA_")}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [os.environ["TESSERA_BIN"], "serve", "--database-url", os.environ["TESSERA_TEST_DATABASE_URL"],
             "--listen", f"127.0.0.1:{port}", "--admin-listen", "none", "--issuer", public_url,
             "--master-key-file", os.environ["TESSERA_E2E_MASTER_KEY_FILE"], "--no-migrate"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=environment)
    try:
        listener = Listener("second", f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, f"the second server exited: {log_path.read_text()[-2000:]}"
            try:
                if listener.get("/healthz").status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, f"the second server is not healthy: {log_path.read_text()[-2000:]}"
            time.sleep(0.1)
        yield listener
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail("the second server did not stop within 15 s of SIGTERM")
    assert status == 0, f"the second server exited with {status}: {log_path.read_text()[-2000:]}"


def test_two_servers_racing_one_code_accept_it_once(public, admin, second_server):
    tenant = new_tenant(admin, totp_config(10), "Fleet")
    user = enrolled_user(admin, public, tenant, "fleet")
    listeners = (public, second_server)
    sessions = [requests.Session() for _ in listeners]
    for listener, http in zip(listeners, sessions):
        assert http.get(f"{listener.url}/healthz", timeout=TIMEOUT).status_code == 200

    def finalize(listener, http, barrier, params):
        payload = {"jsonrpc": "2.0", "id": 1, "method": "mfaSignIn.finalize", "params": params}
        barrier.wait()
        body = listener.rpc(payload, session=http).json()
        return body["error"]["data"]["reason"] if "error" in body else body["result"]

    winners = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for round_number in range(10):
            code = user.app.next_code()
            credentials = [pending_credential(public, user), pending_credential(second_server, user)]
            barrier = threading.Barrier(2, timeout=TIMEOUT)
            futures = [pool.submit(finalize, listener, http, barrier,
                                   sign_in_params(pending, user.enrollment_id, code, tenant))
                       for listener, http, pending in zip(listeners, sessions, credentials)]
            outcomes = [future.result() for future in futures]
            accepted = [index for index, outcome in enumerate(outcomes) if isinstance(outcome, dict)]
            assert len(accepted) == 1 and outcomes[1 - accepted[0]] == "INVALID_CODE", (round_number, outcomes)
            assert_second_factor_claims(outcomes[accepted[0]], user.enrollment_id, tenant)
            winners.append(listeners[accepted[0]].name)
    for listener in listeners:
        assert reason_of(listener, "mfaSignIn.finalize", sign_in_params(
            pending_credential(listener, user), user.enrollment_id, code, tenant)) == "INVALID_CODE"
    for http in sessions:
        http.close()
    print(f"round winners: {winners}")


# 9. rpc.discover.

def test_rpc_discover_lists_the_mfa_methods_with_the_totp_members(public, admin):
    methods = {method["name"]: method for method in call(public, "rpc.discover")["methods"]}
    assert set(MFA_METHODS) <= set(methods)

    def params(name: str) -> dict:
        assert methods[name]["paramStructure"] == "by-name"
        return {param["name"]: param for param in methods[name]["params"]}

    start = params("mfaEnrollment.start")
    assert start["idToken"]["required"] is True and start["totpEnrollmentInfo"]["required"] is False
    assert start["totpEnrollmentInfo"]["schema"]["type"] == "object"
    session_info = methods["mfaEnrollment.start"]["result"]["schema"]["properties"]["totpSessionInfo"]
    assert set(session_info["properties"]) == {"sharedSecretKey", "verificationCodeLength", "hashingAlgorithm",
                                               "periodSec", "sessionInfo", "finalizeEnrollmentTime", "otpauthUri"}
    for name in ("mfaEnrollment.finalize", "mfaSignIn.finalize"):
        verification = params(name)["totpVerificationInfo"]
        assert verification["required"] is False
        assert "verificationCode" in verification["schema"]["properties"], name
        assert verification["schema"]["required"] == ["verificationCode"], name
    assert params("mfaEnrollment.finalize")["idToken"]["required"] is True
    assert params("mfaSignIn.finalize")["mfaPendingCredential"]["required"] is True
    withdraw = params("mfaEnrollment.withdraw")
    assert withdraw["idToken"]["required"] is True and withdraw["mfaEnrollmentId"]["required"] is True
    sign_in_start = params("mfaSignIn.start")
    assert sign_in_start["mfaPendingCredential"]["required"] is True
    assert sign_in_start["mfaEnrollmentId"]["required"] is True
    admin_methods = {method["name"] for method in call(admin, "rpc.discover")["methods"]}
    assert not admin_methods & set(MFA_METHODS)


# Recovery codes: a backup factor of ten single-use codes (docs/mfa.md#recovery-codes).

RECOVERY = {"state": "ENABLED", "recoveryCodeProviderConfig": {}}


def test_recovery_codes_over_rpc(public, admin):
    tenant = new_tenant(admin, {"state": "ENABLED", "providerConfigs": [
        {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}, RECOVERY]})
    email, tokens = verified_user(admin, public, tenant, "recovery")
    start = with_tenant({"idToken": tokens["idToken"], "recoveryCodeEnrollmentInfo": {}}, tenant)
    assert reason_of(public, "mfaEnrollment.start", start) == "OPERATION_NOT_ALLOWED"
    started = start_totp(public, tokens["idToken"], tenant)
    app = Authenticator(started["sharedSecretKey"])
    enrolled = call(public, "mfaEnrollment.finalize",
                    finalize_params(tokens["idToken"], tenant, started["sessionInfo"], app.next_code()))
    start["idToken"] = enrolled["idToken"]
    assert reason_of(public, "mfaEnrollment.start",
                     {**start, "recoveryCodeEnrollmentInfo": {"count": 20}}) == "INVALID_ARGUMENT"
    info = call(public, "mfaEnrollment.start", start)["recoveryCodeSessionInfo"]
    codes = info["codes"]
    assert len(set(codes)) == 10 and all(len(code) == 14 for code in codes)
    finalize = with_tenant({"idToken": enrolled["idToken"], "recoveryCodeVerificationInfo": {
        "sessionInfo": info["sessionInfo"], "code": "0000-0000-0000"}}, tenant)
    assert reason_of(public, "mfaEnrollment.finalize", finalize) == "INVALID_CODE"
    finalize["recoveryCodeVerificationInfo"]["code"] = codes[0]
    recovery_id = call(public, "mfaEnrollment.finalize", finalize)["mfaEnrollmentId"]

    def use(code) -> dict:
        pending = sign_in(public, email, tenant)["mfaPendingCredential"]
        return with_tenant({"mfaPendingCredential": pending, "mfaEnrollmentId": recovery_id,
                            "recoveryCodeVerificationInfo": {"code": code}}, tenant)

    signed_in = call(public, "mfaSignIn.finalize", use(codes[1].upper()))
    assert jwt_parts(signed_in["idToken"])[1]["sign_in_second_factor"] == "recovery"
    assert reason_of(public, "mfaSignIn.finalize", use(codes[1])) == "INVALID_CODE"
    assert reason_of(public, "mfaSignIn.finalize", use(None)) == "MISSING_CODE"
    assert reason_of(public, "mfaSignIn.finalize", use(7)) == "INVALID_ARGUMENT"
    mfa_info = call(public, "accounts.lookup", with_tenant({"idToken": signed_in["idToken"]}, tenant))["user"]["mfaInfo"]
    assert [entry.get("recoveryCodeInfo") for entry in mfa_info if "recoveryCodeInfo" in entry] == [{"remaining": 9}]
    seen_by_admin = call(admin, "users.get", {"tenantId": tenant, "localId": tokens["localId"]})["mfaInfo"]
    assert [entry["recoveryCodeInfo"] for entry in seen_by_admin if "recoveryCodeInfo" in entry] == [{"remaining": 9}]
    audited = psql(f"SELECT actor_key_id, method FROM audit_events WHERE target LIKE '%/mfaEnrollments/{recovery_id}'")
    assert audited.split() == [f"user:{tokens['localId']}|mfaSignIn.finalize"]
    # A config entry with anything inside is refused.
    assert reason_of(admin, "tenants.update", {"tenantId": tenant, "updateMask": "mfaConfig", "tenant": {"mfaConfig": {
        "state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "recoveryCodeProviderConfig": {"n": 1}}]}}}) \
        == "INVALID_CONFIG"
