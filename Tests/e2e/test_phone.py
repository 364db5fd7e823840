"""SMS over the public JSON-RPC API, delivered to a real webhook: phone sign-in (API §3) and the SMS second factor
(API §4 "Phone factor"), with app verification, test numbers, regions, send limits, localization and failing
delivery (API §8).

The suite's server enforces app verification, delivers SMS to the `smsbox` receiver and trusts 127.0.0.1 as a
proxy (scripts/e2e.sh). Every test makes its own tenant, uses fresh random numbers, and presents a fresh random
client IP in `X-Forwarded-For` on each call that sends an SMS, so that the send limits (per number and per client
IP, counted across tenants and remembered in the database for an hour) never carry over from one test, or one run,
to the next. A code is delivered before the call that sends it answers, so a message is in the receiver as soon as
the call returns, and a message that is not there then was never sent.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterator

import pytest

from identity import call, failure_of, jwt_parts, psql, reason_of, unique_email
from receiver import Mailbox, sms_code
from servers import extra_server, server_log
from support import TIMEOUT

PASSWORD = "correct horse battery"
APP = {"recaptchaToken": "e2e"}
TOKEN_RESULT = {"localId", "idToken", "refreshToken", "expiresIn"}
PHONE_RESULT = TOKEN_RESULT | {"phoneNumber", "isNewUser"}
CHALLENGE = {"mfaPendingCredential", "mfaInfo", "localId"}
SMS_MFA = {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}
MESSAGE = {"to", "body", "kind", "tenantId", "languageCode"}
PHONE_METHODS = ("accounts.sendVerificationCode", "accounts.signInWithPhoneNumber")


def new_number() -> str:
    """A fresh US number (`+1555` and 7 random digits)."""
    return f"+1555{secrets.randbelow(10**7):07d}"


def new_client() -> dict:
    """The headers of a fresh client: a random IP in `X-Forwarded-For`, believed from the trusted 127.0.0.1."""
    return {"X-Forwarded-For": f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{1 + secrets.randbelow(254)}"}


def new_ipv6_network() -> str:
    """A random /64 of the documentation prefix, as `2001:db8:X:Y`."""
    return f"2001:db8:{secrets.randbelow(0xffff) + 1:x}:{secrets.randbelow(0xffff) + 1:x}"


def new_tenant(admin, **fields) -> str:
    return call(admin, "tenants.create", {"tenant": {"displayName": "Phone e2e", **fields}})["tenantId"]


def with_tenant(params: dict, tenant: str | None) -> dict:
    return {**params, "tenantId": tenant} if tenant else params


def other_code(code: str) -> str:
    return "000000" if code != "000000" else "000001"


def masked(number: str) -> str:
    return "+*******" + number[-4:]


# Phone sign-in.

def send_code(listener, number: str, tenant: str | None, client: dict, **extra) -> str:
    """The sessionInfo of `accounts.sendVerificationCode` for `number`, with an app credential unless `extra`
    replaces it."""
    params = with_tenant({"phoneNumber": number, "appVerification": APP, **extra}, tenant)
    result = call(listener, "accounts.sendVerificationCode", params, headers=client)
    assert set(result) == {"sessionInfo"} and isinstance(result["sessionInfo"], str), result
    return result["sessionInfo"]


def received(box: Mailbox, number: str, before: int) -> tuple[dict, str]:
    """The message that arrived for `number` after `before` earlier ones, and its code."""
    message = box.wait_for(number, after=before)
    assert box.count(number) == before + 1, f"more than one SMS to {number}"
    return message, sms_code(message["body"])


def sign_in_with_code(listener, session: str, code: str, tenant: str | None) -> dict:
    return call(listener, "accounts.signInWithPhoneNumber", with_tenant({"sessionInfo": session, "code": code}, tenant))


def assert_only_the_code_says_second_factor(public, smsbox: Mailbox, number: str, tenant: str | None):
    """A multi-factor user's number is answered like any other (so nobody can test numbers): app verification
    first, a sessionInfo and an SMS; a wrong code is INVALID_CODE, and only the code sent says
    UNSUPPORTED_FIRST_FACTOR."""
    unverified = failure_of(public, "accounts.sendVerificationCode", with_tenant({"phoneNumber": number}, tenant),
                            headers=new_client())
    assert unverified.reason == "MISSING_APP_CREDENTIAL"
    before = smsbox.count(number)
    session = send_code(public, number, tenant, new_client())
    _, code = received(smsbox, number, before)
    wrong = "111111" if code == "000000" else "000000"
    assert reason_of(public, "accounts.signInWithPhoneNumber",
                     with_tenant({"sessionInfo": session, "code": wrong}, tenant)) == "INVALID_CODE"
    refused = failure_of(public, "accounts.signInWithPhoneNumber",
                         with_tenant({"sessionInfo": session, "code": code}, tenant))
    assert (refused.reason, refused.status) == ("UNSUPPORTED_FIRST_FACTOR", "FAILED_PRECONDITION")


def phone_sign_in(public, smsbox: Mailbox, number: str, tenant: str | None, client: dict) -> dict:
    """Tokens of a whole phone sign-in: send, read the SMS, sign in."""
    before = smsbox.count(number)
    session = send_code(public, number, tenant, client)
    _, code = received(smsbox, number, before)
    tokens = sign_in_with_code(public, session, code, tenant)
    assert set(tokens) == PHONE_RESULT and tokens["phoneNumber"] == number, tokens
    return tokens


def test_phone_sign_in_signs_up_then_signs_in_the_same_account(public, admin, smsbox):
    tenant = new_tenant(admin, displayName="Phone Co")
    number, client = new_number(), new_client()
    session = send_code(public, number, tenant, client)
    message, code = received(smsbox, number, 0)
    assert set(message) == MESSAGE and message["to"] == number
    assert (message["kind"], message["tenantId"], message["languageCode"]) == ("phone_sign_in", tenant, "en")
    assert "Phone Co" in message["body"]

    wrong = failure_of(public, "accounts.signInWithPhoneNumber",
                       {"sessionInfo": session, "code": other_code(code), "tenantId": tenant})
    assert (wrong.reason, wrong.status, wrong.code) == ("INVALID_CODE", "INVALID_ARGUMENT", -32000)
    for elsewhere in (new_tenant(admin), None):
        mismatch = failure_of(public, "accounts.signInWithPhoneNumber",
                              with_tenant({"sessionInfo": session, "code": code}, elsewhere))
        assert (mismatch.reason, mismatch.status) == ("TENANT_ID_MISMATCH", "FAILED_PRECONDITION"), elsewhere
    first = sign_in_with_code(public, session, code, tenant)
    assert set(first) == PHONE_RESULT and first["expiresIn"] == 3600
    assert first["phoneNumber"] == number and first["isNewUser"] is True
    header, claims = jwt_parts(first["idToken"])
    assert header["alg"] == "ES256" and claims["sign_in_provider"] == "phone" and claims["phone_number"] == number
    assert claims["sub"] == first["localId"] and claims["tenant"] == tenant and claims["aud"] == "tessera"
    assert "email" not in claims and claims["email_verified"] is False and "sign_in_second_factor" not in claims
    refreshed = call(public, "token.refresh", {"refreshToken": first["refreshToken"], "tenantId": tenant})
    refreshed_claims = jwt_parts(refreshed["idToken"])[1]
    assert refreshed_claims["sign_in_provider"] == "phone" and refreshed_claims["phone_number"] == number
    assert refreshed_claims["auth_time"] == claims["auth_time"] and refreshed["localId"] == first["localId"]
    reused = failure_of(public, "accounts.signInWithPhoneNumber",
                        {"sessionInfo": session, "code": code, "tenantId": tenant})
    assert (reused.reason, reused.status) == ("INVALID_SESSION_INFO", "INVALID_ARGUMENT")

    again = phone_sign_in(public, smsbox, number, tenant, client)
    assert again["localId"] == first["localId"] and again["isNewUser"] is False
    user = call(public, "accounts.lookup", {"idToken": again["idToken"], "tenantId": tenant})["user"]
    assert user["phoneNumber"] == number and user["providers"] == ["phone"] and user["tenantId"] == tenant
    assert "email" not in user and user["mfaInfo"] == [] and "lastLoginAt" in user
    by_number = call(admin, "users.get", {"tenantId": tenant, "phoneNumber": number})
    assert by_number["localId"] == first["localId"]


def test_a_project_level_phone_sign_in_has_no_tenant(public, smsbox):
    number = new_number()
    tokens = phone_sign_in(public, smsbox, number, None, new_client())
    message = smsbox.wait_for(number)
    assert set(message) == MESSAGE - {"tenantId"} and message["kind"] == "phone_sign_in"
    claims = jwt_parts(tokens["idToken"])[1]
    assert "tenant" not in claims and claims["phone_number"] == number


def test_the_same_number_is_a_different_account_in_each_tenant(public, admin, smsbox):
    number, client = new_number(), new_client()
    accounts = {phone_sign_in(public, smsbox, number, new_tenant(admin), client)["localId"] for _ in range(2)}
    assert len(accounts) == 2


def test_five_wrong_codes_burn_a_sign_in_session(public, admin, smsbox):
    tenant = new_tenant(admin)
    number = new_number()
    session = send_code(public, number, tenant, new_client())
    _, code = received(smsbox, number, 0)
    for attempt in range(5):
        assert reason_of(public, "accounts.signInWithPhoneNumber",
                         {"sessionInfo": session, "code": other_code(code), "tenantId": tenant}) == "INVALID_CODE", \
            attempt
    burnt = failure_of(public, "accounts.signInWithPhoneNumber",
                       {"sessionInfo": session, "code": code, "tenantId": tenant})
    assert (burnt.reason, burnt.status) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED")
    assert isinstance(burnt.retry_after, int) and 0 < burnt.retry_after <= 300


def seconds_left(table: str, condition: str) -> float:
    """Seconds until the newest row of `table` matching `condition` expires."""
    return float(psql(f"SELECT extract(epoch FROM expires_at - now()) FROM {table} WHERE {condition} "
                      f"ORDER BY expires_at DESC LIMIT 1"))


def test_a_sign_in_code_is_valid_for_300_seconds(public, admin, smsbox):
    tenant = new_tenant(admin)
    number = new_number()
    session = send_code(public, number, tenant, new_client())
    _, code = received(smsbox, number, 0)
    assert 290 <= seconds_left("phone_sign_in_sessions", f"phone_number = '{number}'") <= 300
    psql(f"UPDATE phone_sign_in_sessions SET expires_at = now() - interval '1 second' "
         f"WHERE phone_number = '{number}'")
    expired = failure_of(public, "accounts.signInWithPhoneNumber",
                         {"sessionInfo": session, "code": code, "tenantId": tenant})
    assert (expired.reason, expired.status) == ("SESSION_EXPIRED", "INVALID_ARGUMENT")


def test_an_account_with_the_number_is_signed_in_by_phone_until_it_has_a_second_factor(public, admin, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    number, email = new_number(), unique_email("owner")
    created = call(admin, "users.create", {"tenantId": tenant, "email": email, "password": PASSWORD,
                                           "emailVerified": True, "phoneNumber": number})
    tokens = phone_sign_in(public, smsbox, number, tenant, new_client())
    assert tokens["localId"] == created["localId"] and tokens["isNewUser"] is False
    claims = jwt_parts(tokens["idToken"])[1]
    assert claims["sign_in_provider"] == "phone" and claims["phone_number"] == number
    user = call(public, "accounts.lookup", {"idToken": tokens["idToken"], "tenantId": tenant})["user"]
    assert user["email"] == email and sorted(user["providers"]) == ["password", "phone"]

    # Once the account has a second factor (on another number), its own number is no first factor.
    signed_in = call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD,
                                                             "tenantId": tenant})
    second, client = new_number(), new_client()
    session = start_enrollment(public, signed_in["idToken"], second, tenant, client)
    _, code = received(smsbox, second, 0)
    enrolled = finalize_enrollment(public, signed_in["idToken"], session, code, tenant)
    assert_only_the_code_says_second_factor(public, smsbox, number, tenant)
    # Withdrawn, the factor no longer stands in the way.
    call(public, "mfaEnrollment.withdraw", {"idToken": enrolled["idToken"], "tenantId": tenant,
                                            "mfaEnrollmentId": enrolled["mfaEnrollmentId"]})
    assert phone_sign_in(public, smsbox, number, tenant, new_client())["localId"] == created["localId"]


def test_a_disabled_account_cannot_sign_in_by_phone(public, admin, smsbox):
    tenant = new_tenant(admin)
    number, client = new_number(), new_client()
    first = phone_sign_in(public, smsbox, number, tenant, client)
    call(admin, "users.update", {"tenantId": tenant, "localId": first["localId"], "disabled": True})
    session = send_code(public, number, tenant, client)
    _, code = received(smsbox, number, 1)
    disabled = failure_of(public, "accounts.signInWithPhoneNumber",
                          {"sessionInfo": session, "code": code, "tenantId": tenant})
    assert (disabled.reason, disabled.status) == ("USER_DISABLED", "FAILED_PRECONDITION")


def test_two_concurrent_first_sign_ins_of_one_number_make_one_account(public, admin, smsbox):
    tenant = new_tenant(admin)
    number, client = new_number(), new_client()
    codes = []
    for sent in range(2):
        session = send_code(public, number, tenant, client)
        codes.append((session, received(smsbox, number, sent)[1]))
    barrier = threading.Barrier(2, timeout=TIMEOUT)

    def sign_in(session_and_code):
        barrier.wait()
        return sign_in_with_code(public, *session_and_code, tenant)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(sign_in, codes))
    assert results[0]["localId"] == results[1]["localId"]
    assert sorted(result["isNewUser"] for result in results) == [False, True]


def test_phone_sign_in_switched_off_for_the_tenant(public, admin, smsbox):
    tenant = new_tenant(admin)
    number, client = new_number(), new_client()
    session = send_code(public, number, tenant, client)
    _, code = received(smsbox, number, 0)
    call(admin, "tenants.update", {"tenantId": tenant, "tenant": {"enablePhoneSignIn": False},
                                   "updateMask": "enablePhoneSignIn"})
    refused = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": number, "tenantId": tenant, "appVerification": APP}, headers=client)
    assert (refused.reason, refused.status) == ("OPERATION_NOT_ALLOWED", "FAILED_PRECONDITION")
    assert reason_of(public, "accounts.signInWithPhoneNumber",
                     {"sessionInfo": session, "code": code, "tenantId": tenant}) == "OPERATION_NOT_ALLOWED"
    assert smsbox.count(number) == 1
    off = new_tenant(admin, enablePhoneSignIn=False)
    assert reason_of(public, "accounts.sendVerificationCode",
                     {"phoneNumber": new_number(), "tenantId": off, "appVerification": APP},
                     headers=client) == "OPERATION_NOT_ALLOWED"


# The SMS second factor.

def verified_user(public, mailbox: Mailbox, tenant: str) -> tuple[str, dict]:
    """A new password user of `tenant` whose e-mail is verified through the mail webhook, and its sign-up tokens."""
    email = unique_email("sms")
    tokens = call(public, "accounts.signUp", {"email": email, "password": PASSWORD, "tenantId": tenant})
    call(public, "accounts.sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": tokens["idToken"],
                                          "tenantId": tenant})
    code = mailbox.wait_for(email)["link"].split("oobCode=")[1].split("&")[0]
    assert call(public, "accounts.update", {"oobCode": code, "tenantId": tenant})["emailVerified"] is True
    return email, tokens


def start_enrollment(public, id_token: str, number: str, tenant: str, client: dict, **extra) -> str:
    info = {"phoneNumber": number, "appVerification": APP}
    result = call(public, "mfaEnrollment.start",
                  {"idToken": id_token, "tenantId": tenant, "phoneEnrollmentInfo": info, **extra}, headers=client)
    assert set(result) == {"phoneSessionInfo"} and set(result["phoneSessionInfo"]) == {"sessionInfo"}, result
    return result["phoneSessionInfo"]["sessionInfo"]


def finalize_enrollment(public, id_token: str, session: str, code: str, tenant: str, **extra) -> dict:
    return call(public, "mfaEnrollment.finalize", {
        "idToken": id_token, "tenantId": tenant, "phoneVerificationInfo": {"sessionInfo": session, "code": code},
        **extra})


@dataclass
class SMSUser:
    """A password user with one SMS enrolment: e-mail, tenant, enrolled number, client, finalize's tokens."""

    email: str
    tenant: str
    number: str
    client: dict
    tokens: dict

    @property
    def enrollment_id(self) -> str:
        return self.tokens["mfaEnrollmentId"]


def sms_user(public, mailbox: Mailbox, smsbox: Mailbox, tenant: str, number: str | None = None) -> SMSUser:
    """A verified password user of `tenant` (which must enable PHONE_SMS) who enrolled `number` (default a fresh
    one) through the SMS webhook."""
    number, client = number or new_number(), new_client()
    email, tokens = verified_user(public, mailbox, tenant)
    before = smsbox.count(number)
    session = start_enrollment(public, tokens["idToken"], number, tenant, client)
    _, code = received(smsbox, number, before)
    enrolled = finalize_enrollment(public, tokens["idToken"], session, code, tenant)
    assert set(enrolled) == TOKEN_RESULT | {"mfaEnrollmentId"}, enrolled
    return SMSUser(email, tenant, number, client, enrolled)


def challenge_of(public, user: SMSUser) -> dict:
    challenge = call(public, "accounts.signInWithPassword",
                     {"email": user.email, "password": PASSWORD, "tenantId": user.tenant})
    assert set(challenge) == CHALLENGE, challenge
    return challenge


def start_sign_in(listener, pending: str, user: SMSUser, **extra) -> str:
    result = call(listener, "mfaSignIn.start", {
        "mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": user.tenant,
        "phoneSignInInfo": {"appVerification": APP}, **extra}, headers=user.client)
    assert set(result) == {"phoneResponseInfo"} and set(result["phoneResponseInfo"]) == {"sessionInfo"}, result
    return result["phoneResponseInfo"]["sessionInfo"]


def finalize_sign_in(public, pending: str, user: SMSUser, verification: dict, by_id: bool = True) -> dict:
    params = {"mfaPendingCredential": pending, "tenantId": user.tenant, "phoneVerificationInfo": verification}
    if by_id:
        params["mfaEnrollmentId"] = user.enrollment_id
    return call(public, "mfaSignIn.finalize", params)


def assert_sms_second_factor(tokens: dict, user: SMSUser):
    assert set(tokens) == TOKEN_RESULT, tokens
    claims = jwt_parts(tokens["idToken"])[1]
    assert claims["sign_in_provider"] == "password" and claims["sign_in_second_factor"] == "phone"
    assert claims["second_factor_identifier"] == user.enrollment_id and claims["tenant"] == user.tenant
    assert claims["email"] == user.email and claims["sub"] == tokens["localId"]


def test_enrol_a_phone_then_sign_in_with_sms_codes(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA, displayName="Acme SMS")
    number, client = new_number(), new_client()
    email, tokens = verified_user(public, mailbox, tenant)
    session = start_enrollment(public, tokens["idToken"], number, tenant, client)
    message, code = received(smsbox, number, 0)
    assert set(message) == MESSAGE and message["kind"] == "mfa_enrollment" and message["tenantId"] == tenant
    assert message["languageCode"] == "en" and "Acme SMS" in message["body"]
    assert reason_of(public, "mfaEnrollment.finalize", {
        "idToken": tokens["idToken"], "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": session, "code": other_code(code)}}) == "INVALID_CODE"
    enrolled = finalize_enrollment(public, tokens["idToken"], session, code, tenant, displayName="Mobile")
    user = SMSUser(email, tenant, number, client, enrolled)
    assert set(enrolled) == TOKEN_RESULT | {"mfaEnrollmentId"} and enrolled["localId"] == tokens["localId"]
    assert_sms_second_factor({key: enrolled[key] for key in TOKEN_RESULT}, user)
    assert reason_of(public, "mfaEnrollment.finalize", {
        "idToken": enrolled["idToken"], "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": session, "code": code}}) == "INVALID_SESSION_INFO"

    owner = call(public, "accounts.lookup", {"idToken": enrolled["idToken"], "tenantId": tenant})["user"]
    [enrollment] = owner["mfaInfo"]
    assert set(enrollment) == {"mfaEnrollmentId", "displayName", "enrolledAt", "phoneInfo"}
    assert enrollment["mfaEnrollmentId"] == user.enrollment_id and enrollment["phoneInfo"] == number
    assert enrollment["displayName"] == "Mobile"

    # Signing in: the challenge masks the number; the code goes to it; finalize names the enrolment by id.
    challenge = challenge_of(public, user)
    assert challenge["localId"] == owner["localId"]
    assert challenge["mfaInfo"] == [{**enrollment, "phoneInfo": masked(number)}]
    assert number not in json.dumps(challenge)
    pending = challenge["mfaPendingCredential"]
    sign_in_session = start_sign_in(public, pending, user)
    message, code = received(smsbox, number, 1)
    assert (message["kind"], message["tenantId"], message["languageCode"]) == ("mfa_sign_in", tenant, "en")
    wrong = failure_of(public, "mfaSignIn.finalize", {
        "mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": sign_in_session, "code": other_code(code)}})
    assert (wrong.reason, wrong.status) == ("INVALID_CODE", "INVALID_ARGUMENT")
    signed_in = finalize_sign_in(public, pending, user, {"sessionInfo": sign_in_session, "code": code})
    assert_sms_second_factor(signed_in, user)
    assert_sms_second_factor(call(public, "token.refresh", {"refreshToken": signed_in["refreshToken"],
                                                           "tenantId": tenant}), user)
    assert reason_of(public, "mfaSignIn.finalize", {
        "mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": sign_in_session, "code": code}}) \
        == "INVALID_MFA_PENDING_CREDENTIAL"

    # Later sign-ins name the enrolment by its number instead, in full or as the challenge shows it.
    for sent, named in enumerate((number, masked(number)), start=2):
        pending = challenge_of(public, user)["mfaPendingCredential"]
        sign_in_session = start_sign_in(public, pending, user)
        _, code = received(smsbox, number, sent)
        tokens = finalize_sign_in(public, pending, user,
                                  {"sessionInfo": sign_in_session, "code": code, "phoneNumber": named}, by_id=False)
        assert_sms_second_factor(tokens, user)
    assert [m["kind"] for m in smsbox.messages if m["to"] == number] == ["mfa_enrollment"] + ["mfa_sign_in"] * 3


def test_a_mask_shared_by_two_enrolments_needs_the_enrolment_id(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    first = new_number()
    twin = first[:-5] + str((int(first[-5]) + 1) % 10) + first[-4:]
    user = sms_user(public, mailbox, smsbox, tenant, first)
    session = start_enrollment(public, user.tokens["idToken"], twin, tenant, user.client)
    _, code = received(smsbox, twin, 0)
    finalize_enrollment(public, user.tokens["idToken"], session, code, tenant)
    challenge = challenge_of(public, user)
    assert [e["phoneInfo"] for e in challenge["mfaInfo"]] == [masked(first)] * 2
    pending = challenge["mfaPendingCredential"]
    session = start_sign_in(public, pending, user)
    _, code = received(smsbox, first, 1)
    verification = {"sessionInfo": session, "code": code, "phoneNumber": masked(first)}
    ambiguous = failure_of(public, "mfaSignIn.finalize", {"mfaPendingCredential": pending, "tenantId": tenant,
                                                          "phoneVerificationInfo": verification})
    assert (ambiguous.reason, ambiguous.status) == ("MISSING_MFA_ENROLLMENT_ID", "INVALID_ARGUMENT")
    wrong_number = {**verification, "phoneNumber": twin}
    assert reason_of(public, "mfaSignIn.finalize", {
        "mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": tenant,
        "phoneVerificationInfo": wrong_number}) == "INVALID_ARGUMENT"
    assert_sms_second_factor(finalize_sign_in(public, pending, user, verification), user)


def test_a_phone_sign_in_under_mandatory_mfa_asks_for_an_enrolment_it_cannot_make(public, admin, smsbox):
    tenant = new_tenant(admin, mfaConfig={**SMS_MFA, "state": "MANDATORY"})
    number = new_number()
    session = send_code(public, number, tenant, new_client())
    tokens = sign_in_with_code(public, session, received(smsbox, number, 0)[1], tenant)
    assert set(tokens) == PHONE_RESULT | {"mfaEnrollmentRequired"} and tokens["mfaEnrollmentRequired"] is True
    assert jwt_parts(tokens["idToken"])[1]["mfa_enrollment_required"] is True
    assert reason_of(public, "mfaEnrollment.start", {
        "idToken": tokens["idToken"], "tenantId": tenant,
        "phoneEnrollmentInfo": {"phoneNumber": new_number(), "appVerification": APP}},
        headers=new_client()) == "UNSUPPORTED_FIRST_FACTOR"


def test_a_number_already_enrolled_is_second_factor_exists(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    number, client = new_number(), new_client()
    email, tokens = verified_user(public, mailbox, tenant)
    one = start_enrollment(public, tokens["idToken"], number, tenant, client)
    _, one_code = received(smsbox, number, 0)
    two = start_enrollment(public, tokens["idToken"], number, tenant, client)
    _, two_code = received(smsbox, number, 1)
    enrolled = finalize_enrollment(public, tokens["idToken"], one, one_code, tenant)
    at_finalize = failure_of(public, "mfaEnrollment.finalize", {
        "idToken": enrolled["idToken"], "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": two, "code": two_code}})
    assert (at_finalize.reason, at_finalize.status) == ("SECOND_FACTOR_EXISTS", "ALREADY_EXISTS")
    at_start = failure_of(public, "mfaEnrollment.start", {
        "idToken": enrolled["idToken"], "tenantId": tenant,
        "phoneEnrollmentInfo": {"phoneNumber": number, "appVerification": APP}}, headers=client)
    assert (at_start.reason, at_start.status) == ("SECOND_FACTOR_EXISTS", "ALREADY_EXISTS")
    assert smsbox.count(number) == 2
    user = call(public, "accounts.lookup", {"idToken": enrolled["idToken"], "tenantId": tenant})["user"]
    assert [e["phoneInfo"] for e in user["mfaInfo"]] == [number]
    # Another user of the tenant may enrol the same number.
    assert sms_user(public, mailbox, smsbox, tenant, number).number == number


def test_sms_sessions_expire_after_300_seconds(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    user = sms_user(public, mailbox, smsbox, tenant)
    _, tokens = verified_user(public, mailbox, tenant)
    number = new_number()
    enrolling = start_enrollment(public, tokens["idToken"], number, tenant, new_client())
    _, enrol_code = received(smsbox, number, 0)
    pending = challenge_of(public, user)["mfaPendingCredential"]
    signing_in = start_sign_in(public, pending, user)
    _, sign_in_code = received(smsbox, user.number, 1)
    for purpose, user_id in (("enroll", tokens["localId"]), ("sign_in", user.tokens["localId"])):
        condition = f"user_id = '{user_id}' AND purpose = '{purpose}' AND factor = 'phone'"
        assert 290 <= seconds_left("mfa_sessions", condition) <= 300, purpose
        psql(f"UPDATE mfa_sessions SET expires_at = now() - interval '1 second' WHERE {condition}")
    assert reason_of(public, "mfaEnrollment.finalize", {
        "idToken": tokens["idToken"], "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": enrolling, "code": enrol_code}}) == "SESSION_EXPIRED"
    assert reason_of(public, "mfaSignIn.finalize", {
        "mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": signing_in, "code": sign_in_code}}) == "SESSION_EXPIRED"


def test_a_session_info_serves_only_the_step_that_issued_it(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    user = sms_user(public, mailbox, smsbox, tenant)
    pending = challenge_of(public, user)["mfaPendingCredential"]
    signing_in = start_sign_in(public, pending, user)
    _, sign_in_code = received(smsbox, user.number, 1)
    _, tokens = verified_user(public, mailbox, tenant)
    other = new_number()
    enrolling = start_enrollment(public, tokens["idToken"], other, tenant, new_client())
    _, enrol_code = received(smsbox, other, 0)
    phone = new_number()
    phone_session = send_code(public, phone, tenant, new_client())
    _, phone_code = received(smsbox, phone, 0)

    for session, code in ((signing_in, sign_in_code), (enrolling, enrol_code)):
        assert reason_of(public, "accounts.signInWithPhoneNumber",
                         {"sessionInfo": session, "code": code, "tenantId": tenant}) == "INVALID_SESSION_INFO"
    for session, code in ((phone_session, phone_code), (signing_in, sign_in_code)):
        assert reason_of(public, "mfaEnrollment.finalize", {
            "idToken": tokens["idToken"], "tenantId": tenant,
            "phoneVerificationInfo": {"sessionInfo": session, "code": code}}) == "INVALID_SESSION_INFO"
    for session, code in ((phone_session, phone_code), (enrolling, enrol_code)):
        assert reason_of(public, "mfaSignIn.finalize", {
            "mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": tenant,
            "phoneVerificationInfo": {"sessionInfo": session, "code": code}}) == "INVALID_SESSION_INFO"
    # Each still works where it belongs.
    assert_sms_second_factor(finalize_sign_in(public, pending, user,
                                              {"sessionInfo": signing_in, "code": sign_in_code}), user)
    assert "mfaEnrollmentId" in finalize_enrollment(public, tokens["idToken"], enrolling, enrol_code, tenant)
    assert sign_in_with_code(public, phone_session, phone_code, tenant)["phoneNumber"] == phone


def test_a_second_factor_number_is_no_first_factor_and_a_phone_sign_in_cannot_enrol(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    user = sms_user(public, mailbox, smsbox, tenant)
    assert_only_the_code_says_second_factor(public, smsbox, user.number, tenant)
    # In another tenant the number belongs to nobody's second factor.
    phone_sign_in(public, smsbox, user.number, new_tenant(admin), new_client())

    by_phone = phone_sign_in(public, smsbox, new_number(), tenant, new_client())
    target = new_number()
    refused = failure_of(public, "mfaEnrollment.start", {
        "idToken": by_phone["idToken"], "tenantId": tenant,
        "phoneEnrollmentInfo": {"phoneNumber": target, "appVerification": APP}}, headers=new_client())
    assert (refused.reason, refused.status) == ("UNSUPPORTED_FIRST_FACTOR", "FAILED_PRECONDITION")
    assert smsbox.count(target) == 0


def test_sms_enrolment_needs_phone_sms_enabled(public, admin, mailbox, smsbox):
    totp_only = {"state": "ENABLED",
                 "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
    tenant = new_tenant(admin, mfaConfig=totp_only)
    _, tokens = verified_user(public, mailbox, tenant)
    number = new_number()
    refused = failure_of(public, "mfaEnrollment.start", {
        "idToken": tokens["idToken"], "tenantId": tenant,
        "phoneEnrollmentInfo": {"phoneNumber": number, "appVerification": APP}}, headers=new_client())
    assert (refused.reason, refused.status) == ("OPERATION_NOT_ALLOWED", "FAILED_PRECONDITION")
    assert smsbox.count(number) == 0


# App verification (enforced on the suite's server).

def test_every_sending_method_needs_an_app_credential(public, admin, mailbox, smsbox):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    user = sms_user(public, mailbox, smsbox, tenant)
    _, tokens = verified_user(public, mailbox, tenant)
    pending = challenge_of(public, user)["mfaPendingCredential"]
    number = new_number()
    sent = smsbox.count(user.number)

    def attempt(app: dict | None) -> Iterator[tuple[str, dict]]:
        """Each sending method, called with `app` as its appVerification (None: without one)."""
        extra = {} if app is None else {"appVerification": app}
        yield "accounts.sendVerificationCode", {"phoneNumber": number, "tenantId": tenant, **extra}
        yield "mfaEnrollment.start", {"idToken": tokens["idToken"], "tenantId": tenant,
                                      "phoneEnrollmentInfo": {"phoneNumber": number, **extra}}
        yield "mfaSignIn.start", {"mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id,
                                  "tenantId": tenant, **({"phoneSignInInfo": extra} if app is not None else {})}

    cases = [(None, "MISSING_APP_CREDENTIAL"), ({}, "MISSING_APP_CREDENTIAL"),
             ({"recaptchaToken": ""}, "INVALID_APP_CREDENTIAL"), ({"playIntegrityToken": ""}, "INVALID_APP_CREDENTIAL"),
             ({"iosReceipt": "receipt", "iosSecret": ""}, "INVALID_APP_CREDENTIAL")]
    for app, reason in cases:
        for method, params in attempt(app):
            failure = failure_of(public, method, params, headers=new_client())
            # API §2: -32602 for every MISSING_* reason, -32000 for the other application errors.
            code = -32602 if reason.startswith("MISSING_") else -32000
            assert (failure.reason, failure.status, failure.code) == (reason, "FAILED_PRECONDITION", code), \
                (method, app)
    assert smsbox.count(number) == 0 and smsbox.count(user.number) == sent

    # Each kind of credential passes.
    for index, app in enumerate([{"recaptchaToken": "t"}, {"iosReceipt": "r", "iosSecret": "s"},
                                 {"playIntegrityToken": "p"}]):
        call(public, "accounts.sendVerificationCode", {"phoneNumber": number, "tenantId": tenant,
                                                        "appVerification": app}, headers=new_client())
        assert smsbox.count(number) == index + 1


# Test numbers.

def test_a_test_number_gets_no_sms_and_only_its_configured_code(public, admin, mailbox, smsbox):
    test_number, code = new_number(), f"{secrets.randbelow(10**6):06d}"
    second_factor = new_number()
    tenant = new_tenant(admin, testPhoneNumbers={test_number: code, second_factor: "424242"}, smsDailyQuota=1,
                        mfaConfig=SMS_MFA, smsRegionConfig={"allowlistOnly": {"allowedRegions": ["FR"]}})
    client = new_client()
    # No send limit (per number, per client, quota) and no region policy applies to a test number.
    sessions = [send_code(public, test_number, tenant, client) for _ in range(7)]
    assert reason_of(public, "accounts.signInWithPhoneNumber",
                     {"sessionInfo": sessions[-1], "code": other_code(code), "tenantId": tenant}) == "INVALID_CODE"
    tokens = sign_in_with_code(public, sessions[-1], code, tenant)
    assert tokens["phoneNumber"] == test_number and tokens["isNewUser"] is True
    assert jwt_parts(tokens["idToken"])[1]["phone_number"] == test_number
    assert sign_in_with_code(public, sessions[0], code, tenant)["isNewUser"] is False

    # A test number as a second factor, too: enrolment and sign-in take its configured code.
    email, password_tokens = verified_user(public, mailbox, tenant)
    session = start_enrollment(public, password_tokens["idToken"], second_factor, tenant, client)
    assert reason_of(public, "mfaEnrollment.finalize", {
        "idToken": password_tokens["idToken"], "tenantId": tenant,
        "phoneVerificationInfo": {"sessionInfo": session, "code": "242424"}}) == "INVALID_CODE"
    enrolled = finalize_enrollment(public, password_tokens["idToken"], session, "424242", tenant)
    user = SMSUser(email, tenant, second_factor, client, enrolled)
    pending = challenge_of(public, user)["mfaPendingCredential"]
    session = start_sign_in(public, pending, user)
    assert_sms_second_factor(finalize_sign_in(public, pending, user, {"sessionInfo": session, "code": "424242"}), user)
    assert smsbox.count(test_number) == 0 and smsbox.count(second_factor) == 0


# Region policy.

@pytest.mark.parametrize("region_config", [
    {"allowByDefault": {"disallowedRegions": ["US"]}},
    {"allowlistOnly": {"allowedRegions": ["FR"]}},
], ids=["us-disallowed", "only-fr"])
def test_the_region_policy_refuses_numbers_of_other_regions(public, admin, mailbox, smsbox, region_config):
    tenant = new_tenant(admin, smsRegionConfig=region_config, mfaConfig=SMS_MFA)
    american, french, client = new_number(), f"+3361{secrets.randbelow(10**7):07d}", new_client()
    refused = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": american, "tenantId": tenant, "appVerification": APP}, headers=client)
    assert (refused.reason, refused.status) == ("INVALID_PHONE_NUMBER", "INVALID_ARGUMENT")
    assert "region not allowed" in refused.message
    _, tokens = verified_user(public, mailbox, tenant)
    refused = failure_of(public, "mfaEnrollment.start", {
        "idToken": tokens["idToken"], "tenantId": tenant,
        "phoneEnrollmentInfo": {"phoneNumber": american, "appVerification": APP}}, headers=client)
    assert refused.reason == "INVALID_PHONE_NUMBER" and "region not allowed" in refused.message
    assert smsbox.count(american) == 0
    phone_sign_in(public, smsbox, french, tenant, client)
    # The policy is the tenant's: another tenant still reaches the region.
    phone_sign_in(public, smsbox, american, new_tenant(admin), client)


# Send limits.

def test_the_sixth_send_to_a_number_within_the_hour_is_refused(public, admin, smsbox):
    tenant = new_tenant(admin)
    number = new_number()
    for sent in range(5):
        send_code(public, number, tenant, new_client())
        assert smsbox.count(number) == sent + 1
    limited = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": number, "tenantId": tenant, "appVerification": APP}, headers=new_client())
    assert (limited.reason, limited.status, limited.code) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED",
                                                              -32000)
    assert isinstance(limited.retry_after, int) and 3300 < limited.retry_after <= 3600
    # Counted across tenants: the number is limited everywhere.
    assert reason_of(public, "accounts.sendVerificationCode",
                     {"phoneNumber": number, "tenantId": new_tenant(admin), "appVerification": APP},
                     headers=new_client()) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    assert smsbox.count(number) == 5


def test_a_tenant_daily_quota_of_one_refuses_the_second_send(public, admin, smsbox):
    tenant = new_tenant(admin, smsDailyQuota=1)
    phone_sign_in(public, smsbox, new_number(), tenant, new_client())
    number = new_number()
    exceeded = failure_of(public, "accounts.sendVerificationCode",
                          {"phoneNumber": number, "tenantId": tenant, "appVerification": APP}, headers=new_client())
    assert (exceeded.reason, exceeded.status) == ("QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED")
    until_midnight = 86400 - int(time.time()) % 86400
    assert isinstance(exceeded.retry_after, int) and abs(exceeded.retry_after - until_midnight) <= 5
    assert smsbox.count(number) == 0
    # The quota is the tenant's own.
    phone_sign_in(public, smsbox, number, new_tenant(admin, smsDailyQuota=1), new_client())


def test_an_ipv6_client_is_counted_by_its_64(public, admin, smsbox):
    tenant = new_tenant(admin)
    network = new_ipv6_network()
    for host in range(1, 51):
        send_code(public, new_number(), tenant, {"X-Forwarded-For": f"{network}::{host:x}"})
    number = new_number()
    limited = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": number, "tenantId": tenant, "appVerification": APP},
                         headers={"X-Forwarded-For": f"{network}:1:2:3:4"})
    assert (limited.reason, limited.status) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED")
    assert smsbox.count(number) == 0
    phone_sign_in(public, smsbox, number, tenant, {"X-Forwarded-For": f"{new_ipv6_network()}::1"})


def test_fifty_sends_from_one_client_ip_then_it_is_refused_and_another_ip_is_not(public, admin, smsbox):
    tenant = new_tenant(admin)
    client = new_client()
    for _ in range(50):
        send_code(public, new_number(), tenant, client)
    number = new_number()
    limited = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": number, "tenantId": tenant, "appVerification": APP}, headers=client)
    assert (limited.reason, limited.status) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED")
    assert isinstance(limited.retry_after, int) and 3300 < limited.retry_after <= 3600
    assert smsbox.count(number) == 0
    phone_sign_in(public, smsbox, number, tenant, new_client())
    # The IP is what counts: the proxy before it does not make the client another one.
    proxied = {"X-Forwarded-For": f"{client['X-Forwarded-For']}, 127.0.0.1"}
    assert reason_of(public, "accounts.sendVerificationCode",
                     {"phoneNumber": new_number(), "tenantId": tenant, "appVerification": APP},
                     headers=proxied) == "TOO_MANY_ATTEMPTS_TRY_LATER"


# Localization.

@pytest.mark.parametrize("asked, used, words", [
    ("ja", "ja", "確認コード"), ("fr-CA", "fr", "est votre code"), ("xx", "en", "is your"), ("RU", "ru", "ваш код"),
    ("../../etc/passwd", "en", "is your"), ("", "en", "is your"),
])
def test_messages_follow_the_language_code_of_each_sending_method(public, admin, mailbox, smsbox, asked, used, words):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA, displayName="Lingua")
    language = {"languageCode": asked}
    number = new_number()
    send_code(public, number, tenant, new_client(), **language)
    email, tokens = verified_user(public, mailbox, tenant)
    enrolled_number, client = new_number(), new_client()
    session = start_enrollment(public, tokens["idToken"], enrolled_number, tenant, client, **language)
    _, code = received(smsbox, enrolled_number, 0)
    user = SMSUser(email, tenant, enrolled_number, client,
                   finalize_enrollment(public, tokens["idToken"], session, code, tenant))
    start_sign_in(public, challenge_of(public, user)["mfaPendingCredential"], user, **language)
    messages = [smsbox.wait_for(number)] + [m for m in smsbox.messages if m["to"] == enrolled_number]
    assert [m["kind"] for m in messages] == ["phone_sign_in", "mfa_enrollment", "mfa_sign_in"]
    for message in messages:
        assert message["languageCode"] == used, message
        assert words in message["body"] and "Lingua" in message["body"], message
        sms_code(message["body"])


# Params.

NUMBER, SESSION = "<number>", "<sessionInfo>"


@pytest.fixture(scope="module")
def open_session(public, admin, smsbox) -> tuple[str, str]:
    """A tenant and an open sign-in session of it, for the param tests (which must fail before using it)."""
    tenant = new_tenant(admin)
    return tenant, send_code(public, new_number(), tenant, new_client())


@pytest.mark.parametrize("method, template, reason", [
    ("accounts.sendVerificationCode", {"appVerification": APP}, "MISSING_PHONE_NUMBER"),
    ("accounts.sendVerificationCode", {"phoneNumber": "", "appVerification": APP}, "MISSING_PHONE_NUMBER"),
    ("accounts.sendVerificationCode", {"phoneNumber": 15555550100, "appVerification": APP}, "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": APP, "phone": NUMBER},
     "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": "token"}, "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": {"recaptchaToken": 7}},
     "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": {"safetyNetToken": "t"}},
     "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": {"recaptchaToken": "t",
                                                                                  "playIntegrityToken": "p"}},
     "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": {"iosReceipt": "r"}},
     "INVALID_ARGUMENT"),
    ("accounts.sendVerificationCode", {"phoneNumber": NUMBER, "appVerification": APP, "languageCode": 5},
     "INVALID_ARGUMENT"),
    ("accounts.signInWithPhoneNumber", {"code": "123456"}, "MISSING_SESSION_INFO"),
    ("accounts.signInWithPhoneNumber", {"sessionInfo": "", "code": "123456"}, "MISSING_SESSION_INFO"),
    ("accounts.signInWithPhoneNumber", {"sessionInfo": SESSION}, "MISSING_CODE"),
    ("accounts.signInWithPhoneNumber", {"sessionInfo": SESSION, "code": ""}, "MISSING_CODE"),
    ("accounts.signInWithPhoneNumber", {"sessionInfo": SESSION, "code": 123456}, "INVALID_ARGUMENT"),
    ("accounts.signInWithPhoneNumber", {"sessionInfo": ["x"], "code": "123456"}, "INVALID_ARGUMENT"),
    ("accounts.signInWithPhoneNumber", {"sessionInfo": SESSION, "code": "123456", "phoneNumber": NUMBER},
     "INVALID_ARGUMENT"),
])
def test_bad_params_of_the_phone_methods_get_the_named_reason(public, smsbox, open_session, method, template,
                                                              reason):
    tenant, session = open_session
    number = new_number()
    values = {NUMBER: number, SESSION: session}

    def filled(value):
        if isinstance(value, dict):
            return {key: filled(member) for key, member in value.items()}
        return values.get(value, value) if isinstance(value, str) else value

    failure = failure_of(public, method, {**filled(template), "tenantId": tenant}, headers=new_client())
    assert (failure.reason, failure.status, failure.code) == (reason, "INVALID_ARGUMENT", -32602), failure.message
    assert failure.message.startswith(f"{reason} : ")
    assert smsbox.count(number) == 0


@pytest.mark.parametrize("phone_number", [
    "15555550100", "+0155555501", "+1555", "+1 555 555 0100", "+1-555-555-0100", "+1555555010012345", "++15555550100",
    "+１５５５５５５０１００", "+15555550100\n",
], ids=["no-plus", "leading-zero", "too-short", "spaces", "dashes", "too-long", "two-pluses", "full-width",
        "newline"])
def test_numbers_that_are_not_e164_are_invalid_phone_number(public, smsbox, open_session, phone_number):
    tenant, _ = open_session
    failure = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": phone_number, "tenantId": tenant, "appVerification": APP},
                         headers=new_client())
    assert (failure.reason, failure.status) == ("INVALID_PHONE_NUMBER", "INVALID_ARGUMENT")
    assert not [m for m in smsbox.messages if m["to"] == phone_number]


def test_unknown_sessions_and_tenants(public, open_session):
    tenant, session = open_session
    assert reason_of(public, "accounts.signInWithPhoneNumber",
                     {"sessionInfo": "made-up", "code": "123456", "tenantId": tenant}) == "INVALID_SESSION_INFO"
    assert reason_of(public, "accounts.signInWithPhoneNumber",
                     {"sessionInfo": session[:-1] + ("A" if session[-1] != "A" else "B"), "code": "123456",
                      "tenantId": tenant}) == "INVALID_SESSION_INFO"
    missing = failure_of(public, "accounts.sendVerificationCode",
                         {"phoneNumber": new_number(), "tenantId": "no-such-tenant", "appVerification": APP},
                         headers=new_client())
    assert (missing.reason, missing.status) == ("TENANT_NOT_FOUND", "NOT_FOUND")


@pytest.mark.parametrize("method, params, reason", [
    ("mfaEnrollment.start", {"phoneEnrollmentInfo": {"appVerification": APP}}, "MISSING_PHONE_NUMBER"),
    ("mfaEnrollment.start", {"phoneEnrollmentInfo": {"phoneNumber": "5555550100", "appVerification": APP}},
     "INVALID_PHONE_NUMBER"),
    ("mfaEnrollment.start", {"phoneEnrollmentInfo": {"phoneNumber": NUMBER, "appVerification": APP, "x": 1}},
     "INVALID_ARGUMENT"),
    ("mfaEnrollment.start", {"phoneEnrollmentInfo": {"phoneNumber": 15555550100}}, "INVALID_ARGUMENT"),
    ("mfaEnrollment.finalize", {"phoneVerificationInfo": {"code": "123456"}}, "MISSING_SESSION_INFO"),
    ("mfaEnrollment.finalize", {"phoneVerificationInfo": {"sessionInfo": SESSION}}, "MISSING_CODE"),
    ("mfaEnrollment.finalize", {"phoneVerificationInfo": {"sessionInfo": SESSION, "code": "123456",
                                                          "phoneNumber": NUMBER}}, "INVALID_ARGUMENT"),
], ids=["start-missing-number", "start-not-e164", "start-unknown-member", "start-number-not-string",
        "finalize-missing-session", "finalize-missing-code", "finalize-number"])
def test_bad_phone_members_of_the_enrolment_methods(public, admin, mailbox, smsbox, method, params, reason):
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    _, tokens = verified_user(public, mailbox, tenant)
    number, client = new_number(), new_client()
    values = {NUMBER: number}
    if method == "mfaEnrollment.finalize":
        values[SESSION] = start_enrollment(public, tokens["idToken"], new_number(), tenant, client)

    def filled(value):
        if isinstance(value, dict):
            return {key: filled(member) for key, member in value.items()}
        return values.get(value, value) if isinstance(value, str) else value

    failure = failure_of(public, method, {"idToken": tokens["idToken"], "tenantId": tenant, **filled(params)},
                         headers=client)
    assert (failure.reason, failure.status) == (reason, "INVALID_ARGUMENT"), failure.message
    assert smsbox.count(number) == 0


# rpc.discover and metrics.

def test_rpc_discover_lists_the_phone_methods_and_the_phone_members(public, admin):
    methods = {method["name"]: method for method in call(public, "rpc.discover")["methods"]}

    def params(name: str) -> dict:
        assert methods[name]["paramStructure"] == "by-name", name
        return {param["name"]: param for param in methods[name]["params"]}

    send = params("accounts.sendVerificationCode")
    assert set(send) == {"phoneNumber", "tenantId", "appVerification", "languageCode"}
    assert send["phoneNumber"]["required"] is True
    assert not any(send[name].get("required") for name in ("tenantId", "appVerification", "languageCode"))
    assert "sessionInfo" in methods["accounts.sendVerificationCode"]["result"]["schema"]["properties"]
    sign_in = params("accounts.signInWithPhoneNumber")
    assert set(sign_in) == {"sessionInfo", "code", "tenantId"}
    assert sign_in["sessionInfo"]["required"] is True and sign_in["code"]["required"] is True
    result = methods["accounts.signInWithPhoneNumber"]["result"]["schema"]["properties"]
    assert {"localId", "idToken", "refreshToken", "expiresIn", "phoneNumber", "isNewUser"} <= set(result)

    enrollment_info = params("mfaEnrollment.start")["phoneEnrollmentInfo"]
    assert enrollment_info["required"] is False
    assert set(enrollment_info["schema"]["properties"]) == {"phoneNumber", "appVerification"}
    assert enrollment_info["schema"]["required"] == ["phoneNumber"]
    assert set(enrollment_info["schema"]["properties"]["appVerification"]["properties"]) == {
        "recaptchaToken", "iosReceipt", "iosSecret", "playIntegrityToken"}
    started = methods["mfaEnrollment.start"]["result"]["schema"]["properties"]
    assert "sessionInfo" in started["phoneSessionInfo"]["properties"]
    for name in ("mfaEnrollment.finalize", "mfaSignIn.finalize"):
        verification = params(name)["phoneVerificationInfo"]
        assert verification["required"] is False, name
        assert {"sessionInfo", "code"} <= set(verification["schema"]["properties"]), name
        assert sorted(verification["schema"]["required"]) == ["code", "sessionInfo"], name
    assert "phoneNumber" in params("mfaSignIn.finalize")["phoneVerificationInfo"]["schema"]["properties"]
    sign_in_info = params("mfaSignIn.start")["phoneSignInInfo"]
    assert sign_in_info["required"] is False and "appVerification" in sign_in_info["schema"]["properties"]
    assert "sessionInfo" in \
        methods["mfaSignIn.start"]["result"]["schema"]["properties"]["phoneResponseInfo"]["properties"]
    assert {"languageCode"} <= set(params("mfaEnrollment.start")) & set(params("mfaSignIn.start"))

    admin_methods = {method["name"] for method in call(admin, "rpc.discover")["methods"]}
    assert not admin_methods & set(PHONE_METHODS)
    for method in PHONE_METHODS:
        assert failure_of(admin, method, {}).code == -32601, method


SMS_SAMPLE = re.compile(r'^tessera_sms_deliveries_total\{kind="([a-z_]+)",outcome="([a-z]+)"\} ([0-9.e+]+)$')


def sms_deliveries(admin_listener) -> dict[tuple[str, str], float]:
    """The `tessera_sms_deliveries_total` series of a server's metrics, by (kind, outcome)."""
    response = admin_listener.get("/metrics")
    assert response.status_code == 200
    return {(match[1], match[2]): float(match[3])
            for match in map(SMS_SAMPLE.match, response.text.splitlines()) if match}


def test_metrics_count_sms_deliveries_by_kind_and_outcome(public, admin, mailbox, smsbox):
    before = sms_deliveries(admin)
    assert set(before) == {(kind, outcome) for kind in ("phone_sign_in", "mfa_enrollment", "mfa_sign_in")
                           for outcome in ("delivered", "failed")}
    text = admin.get("/metrics").text
    assert "# TYPE tessera_sms_deliveries_total counter" in text
    tenant = new_tenant(admin, mfaConfig=SMS_MFA)
    phone_sign_in(public, smsbox, new_number(), tenant, new_client())
    user = sms_user(public, mailbox, smsbox, tenant)
    start_sign_in(public, challenge_of(public, user)["mfaPendingCredential"], user)
    after = sms_deliveries(admin)
    for kind in ("phone_sign_in", "mfa_enrollment", "mfa_sign_in"):
        assert after[(kind, "delivered")] == before[(kind, "delivered")] + 1, kind
        assert after[(kind, "failed")] == before[(kind, "failed")], kind


# More servers on the same database: a failing webhook, app verification disabled for testing, shared limits.

@pytest.fixture(scope="module")
def relay():
    """The SMS webhook of the extra servers; a test may set its `status` to make deliveries fail."""
    box = Mailbox(0)
    yield box
    box.close()


@pytest.fixture(scope="module")
def second_server(public_url, relay):
    """A second server, enforcing app verification like the first, delivering to `relay`; (public, admin)."""
    options = ["--sms-webhook-url", f"http://127.0.0.1:{relay.port}/sms", "--trusted-proxy", "127.0.0.1"]
    with extra_server("phone-second", public_url, options, admin=True) as listeners:
        yield listeners


@pytest.fixture(scope="module")
def testing_server(public_url, relay):
    """A server with app verification disabled for testing, delivering to `relay`."""
    options = ["--sms-webhook-url", f"http://127.0.0.1:{relay.port}/sms", "--trusted-proxy", "127.0.0.1",
               "--app-verification", "disabled-for-testing"]
    with extra_server("phone-testing", public_url, options) as (listener, _):
        yield listener


def test_a_failing_sms_webhook_is_retried_then_delivery_failed(public, admin, relay, second_server):
    server, server_admin = second_server
    tenant = new_tenant(admin)
    number, client = new_number(), new_client()
    before = sms_deliveries(server_admin)
    relay.status = 500
    try:
        failure = failure_of(server, "accounts.sendVerificationCode",
                             {"phoneNumber": number, "tenantId": tenant, "appVerification": APP}, headers=client)
    finally:
        relay.status = 204
    assert (failure.reason, failure.status, failure.code) == ("DELIVERY_FAILED", "UNAVAILABLE", -32000)
    attempts = [message for message in relay.messages if message["to"] == number]
    assert len(attempts) == 3 and all(attempt == attempts[0] for attempt in attempts)
    assert attempts[0]["kind"] == "phone_sign_in" and attempts[0]["tenantId"] == tenant
    # The log names the failure with the masked number, never the number, the body or the code.
    log = server_log("phone-second").read_text()
    assert "SMS delivery failed" in log and masked(number) in log
    assert number not in log and attempts[0]["body"] not in log and sms_code(attempts[0]["body"]) not in log
    after = sms_deliveries(server_admin)
    assert after[("phone_sign_in", "failed")] == before[("phone_sign_in", "failed")] + 1
    assert after[("phone_sign_in", "delivered")] == before[("phone_sign_in", "delivered")]
    # The webhook is back: the next send goes through, and its code signs in on either server.
    session = send_code(server, number, tenant, client)
    _, code = received(relay, number, 3)
    assert sign_in_with_code(public, session, code, tenant)["isNewUser"] is True


def test_app_verification_disabled_for_testing_lets_only_test_numbers_through(public, admin, relay, testing_server):
    test_number, real = new_number(), new_number()
    tenant = new_tenant(admin, testPhoneNumbers={test_number: "135790"})
    client = new_client()
    for app in ({}, {"appVerification": APP}):
        refused = failure_of(testing_server, "accounts.sendVerificationCode",
                             {"phoneNumber": real, "tenantId": tenant, **app}, headers=client)
        assert (refused.reason, refused.status) == ("APP_NOT_VERIFIED", "FAILED_PRECONDITION"), app
    result = call(testing_server, "accounts.sendVerificationCode", {"phoneNumber": test_number, "tenantId": tenant},
                  headers=client)
    tokens = sign_in_with_code(testing_server, result["sessionInfo"], "135790", tenant)
    assert tokens["phoneNumber"] == test_number and tokens["isNewUser"] is True
    assert relay.count(real) == 0 and relay.count(test_number) == 0
    # The suite's server, which enforces verification, still asks this test number for a credential.
    assert reason_of(public, "accounts.sendVerificationCode", {"phoneNumber": test_number, "tenantId": tenant},
                     headers=client) == "MISSING_APP_CREDENTIAL"


def test_two_servers_share_the_send_limit_of_a_number(public, admin, smsbox, relay, second_server):
    server, _ = second_server
    tenant = new_tenant(admin)
    number = new_number()
    sessions = []
    for index in range(5):
        listener = (public, server)[index % 2]
        sessions.append((listener, send_code(listener, number, tenant, new_client())))
    assert smsbox.count(number) == 3 and relay.count(number) == 2
    for listener in (public, server):
        limited = failure_of(listener, "accounts.sendVerificationCode",
                             {"phoneNumber": number, "tenantId": tenant, "appVerification": APP},
                             headers=new_client())
        assert (limited.reason, limited.retry_after is not None) == ("TOO_MANY_ATTEMPTS_TRY_LATER", True), \
            listener.name
    assert smsbox.count(number) == 3 and relay.count(number) == 2
    # A session opened on one server is good on the other.
    _, session = sessions[3]
    code = sms_code(relay.wait_for(number, after=1)["body"])
    tokens = sign_in_with_code(public, session, code, tenant)
    assert tokens["phoneNumber"] == number


def test_a_webhook_that_hangs_fails_the_send_in_bounded_time_and_holds_nothing_else_up(public, admin, public_url):
    """Faults under load (issue 17): an SMS webhook that accepts connections and never answers. Each attempt times
    out (5 s, three attempts), the send answers DELIVERY_FAILED, and meanwhile the same server answers everything
    else at once."""
    import socket

    import requests

    hanging = socket.socket()
    hanging.bind(("127.0.0.1", 0))
    hanging.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        hanging.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = hanging.accept()
                held.append(connection)
            except OSError:
                continue

    acceptor = threading.Thread(target=accept)
    acceptor.start()
    options = ["--sms-webhook-url", f"http://127.0.0.1:{hanging.getsockname()[1]}/sms", "--trusted-proxy", "127.0.0.1"]
    try:
        with extra_server("phone-hanging", public_url, options) as (server, _):
            tenant = new_tenant(admin)
            number, client = new_number(), new_client()
            with ThreadPoolExecutor(max_workers=1) as pool:
                started = time.monotonic()
                payload = {"jsonrpc": "2.0", "id": 1, "method": "accounts.sendVerificationCode",
                           "params": {"phoneNumber": number, "tenantId": tenant, "appVerification": APP}}
                # Longer than the suite's 10 s read timeout: three attempts of 5 s each, with backoff between.
                sending = pool.submit(lambda: requests.post(f"{server.url}/rpc", json=payload, headers=client,
                                                            timeout=60).json()["error"]["data"])
                time.sleep(1)
                # The server is not held up: health, discovery and sign-ups answer at once meanwhile.
                for _ in range(5):
                    quick = time.monotonic()
                    assert server.get("/healthz").status_code == 200
                    assert call(server, "rpc.discover")["openrpc"]
                    assert time.monotonic() - quick < 1.0
                failure = sending.result(timeout=60)
                took = time.monotonic() - started
            assert (failure["reason"], failure["status"]) == ("DELIVERY_FAILED", "UNAVAILABLE")
            assert 10 <= took < 30, took
            assert len(held) == 3
            # Nothing was stored for the failed send: its session does not exist.
            assert psql(f"SELECT count(*) FROM phone_sign_in_sessions WHERE phone_number = '{number}'") == "0"
    finally:
        stop.set()
        acceptor.join()
        for connection in held:
            connection.close()
        hanging.close()
