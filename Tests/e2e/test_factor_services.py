"""Remote factors: factor services registered with Tessera and called over the factor protocol
(docs/factor-protocol.md; admin `factorServices.*`; public `mfaEnrollment.*` / `mfaSignIn.*`, API §4).

The e-mail example of examples/factor-email-otp runs as a subprocess that mails through the suite's `mailbox`
receiver (the same webhook port the server delivers to), so these tests read its codes where they read the server's
mail. Failure modes use `factor_fakes.FakeFactor`, an in-process factor service that misbehaves on demand. Every
test registers its own services and makes its own tenants, and removes both afterwards (tenants first: they
reference the registration).

Only one registration of the example exists at a time: its member names (`emailEnrollmentInfo`, ...) are fixed,
and member names are unique across the server's factors.
"""

from __future__ import annotations

import base64
import json
import re
import time

import pytest

from factor_fakes import ExampleProcess, FakeFactor, b64url, new_secret, send_raw
from identity import RPCFailure, call, failure_of, jwt_parts, reason_of, unique_email
from receiver import sms_code
from support import Listener
from test_mfa import CHALLENGE, TOKEN_RESULT, enrolled_user, instant, pending_credential, sign_in, sign_in_params, \
    verified_user

EXAMPLE_ID = "email"
UNAVAILABLE = ("FACTOR_SERVICE_UNAVAILABLE", "UNAVAILABLE")
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


# ---------------------------------------------------------------------------------------------------------------
# Fixtures and helpers


class Registry:
    """What a test registered and created, undone at teardown: tenants, then registrations, then processes."""

    def __init__(self, admin, mailbox):
        self.admin, self.mailbox = admin, mailbox
        self.tenants: list[str] = []
        self.factor_ids: list[str] = []
        self.closers: list = []

    @property
    def webhook_url(self) -> str:
        return f"http://127.0.0.1:{self.mailbox.port}/mail"

    def example(self, name: str, secret: bytes, *arguments: str) -> ExampleProcess:
        process = ExampleProcess(name, secret, self.webhook_url, *arguments)
        self.closers.append(process.close)
        return process

    def fake(self, **options) -> FakeFactor:
        fake = FakeFactor(**options)
        self.closers.append(fake.close)
        return fake

    def register(self, endpoints: list[str], secret: bytes | None, **service) -> dict:
        params = {"factorService": {"endpoints": endpoints, **service}}
        if secret is not None:
            params["secret"] = b64url(secret)
        result = call(self.admin, "factorServices.register", params)
        self.factor_ids.append(result["factorService"]["factorId"])
        return result

    def tenant(self, *factor_ids: str, totp: bool = True, display_name: str = "Factor services e2e") -> str:
        tenant = call(self.admin, "tenants.create", {"tenant": {"displayName": display_name,
                                                                "mfaConfig": mfa_config(*factor_ids, totp=totp)}})
        self.tenants.append(tenant["tenantId"])
        return tenant["tenantId"]

    def close(self):
        problems = []
        for tenant in reversed(self.tenants):
            try:
                call(self.admin, "tenants.delete", {"tenantId": tenant})
            except RPCFailure as failure:
                problems.append(f"tenants.delete {tenant}: {failure.message}")
        for factor_id in reversed(self.factor_ids):
            try:
                call(self.admin, "factorServices.delete", {"factorId": factor_id})
            except RPCFailure as failure:
                if failure.status != "NOT_FOUND":
                    problems.append(f"factorServices.delete {factor_id}: {failure.message}")
        for closer in reversed(self.closers):
            closer()
        assert not problems, problems


@pytest.fixture
def registry(admin, mailbox):
    # A registration of the example left by an interrupted run would make this run's one a duplicate.
    try:
        call(admin, "factorServices.delete", {"factorId": EXAMPLE_ID})
    except RPCFailure:
        pass
    made = Registry(admin, mailbox)
    yield made
    made.close()


def mfa_config(*factor_ids: str, totp: bool = True) -> dict:
    """A MultiFactorAuthConfig with the given factor services enabled (and TOTP, so that a user of another factor
    can show that the tenant keeps working)."""
    configs = [{"state": "ENABLED", "factorServiceProviderConfig": {"factorId": factor_id}} for factor_id in factor_ids]
    if totp:
        configs.append({"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}})
    return {"state": "ENABLED", "providerConfigs": configs}


def masked(address: str) -> str:
    local, _, domain = address.partition("@")
    return f"{local[0]}***@{domain}"


def mailed_code(mailbox, to: str, before: int, kind: str, tenant: str | None) -> str:
    message = mailbox.wait_for(to, after=before)
    assert message["kind"] == kind and message.get("link") is None, message
    assert message.get("tenantId") == tenant and message["languageCode"] == "en", message
    return sms_code(message["text"])


def other_code(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def assert_unavailable(failure: RPCFailure):
    assert (failure.reason, failure.status) == UNAVAILABLE, failure.message
    assert failure.code == -32000 and failure.message.startswith("FACTOR_SERVICE_UNAVAILABLE : ")


def assert_email_second_factor(tokens: dict, enrollment_id: str, tenant: str):
    assert set(tokens) >= TOKEN_RESULT, tokens
    _, claims = jwt_parts(tokens["idToken"])
    assert claims["sign_in_provider"] == "password" and claims["sign_in_second_factor"] == EXAMPLE_ID
    assert claims["second_factor_identifier"] == enrollment_id and claims.get("tenant") == tenant


class EmailUser:
    """A user enrolled with the e-mail example."""

    def __init__(self, email: str, tenant: str, tokens: dict, enrollment_id: str):
        self.email, self.tenant, self.tokens, self.enrollment_id = email, tenant, tokens, enrollment_id


def enrol_email(public, admin, mailbox, tenant: str, prefix: str = "email") -> EmailUser:
    email, first = verified_user(admin, public, tenant, prefix)
    before = mailbox.count(email)
    started = call(public, "mfaEnrollment.start", {"idToken": first["idToken"], "tenantId": tenant,
                                                   "emailEnrollmentInfo": {}})
    code = mailed_code(mailbox, email, before, "mfa_enrollment", tenant)
    finalized = call(public, "mfaEnrollment.finalize", {
        "idToken": first["idToken"], "tenantId": tenant,
        "emailVerificationInfo": {"sessionInfo": started["emailSessionInfo"]["sessionInfo"], "code": code}})
    return EmailUser(email, tenant, finalized, finalized["mfaEnrollmentId"])


def email_challenge(public, mailbox, user: EmailUser) -> tuple[str, str, str]:
    """(mfaPendingCredential, sessionInfo, code) of a new password sign-in whose e-mail code was sent."""
    pending = pending_credential_of(public, user.email, user.tenant)
    before = mailbox.count(user.email)
    started = call(public, "mfaSignIn.start", {"mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id,
                                               "tenantId": user.tenant, "emailSignInInfo": {}})
    assert set(started) == {"emailResponseInfo"}, started
    return pending, started["emailResponseInfo"]["sessionInfo"], mailed_code(mailbox, user.email, before,
                                                                             "mfa_sign_in", user.tenant)


def email_finalize(pending: str, user: EmailUser, session_info: str, code: str) -> dict:
    return {"mfaPendingCredential": pending, "mfaEnrollmentId": user.enrollment_id, "tenantId": user.tenant,
            "emailVerificationInfo": {"sessionInfo": session_info, "code": code}}


def pending_credential_of(public, email: str, tenant: str) -> str:
    challenge = sign_in(public, email, tenant)
    assert set(challenge) == CHALLENGE, challenge
    return challenge["mfaPendingCredential"]


def totp_still_works(public, totp_user):
    """A TOTP sign-in of another user of the tenant passes, whatever the remote factor is doing."""
    pending = pending_credential(public, totp_user)
    tokens = call(public, "mfaSignIn.finalize", sign_in_params(pending, totp_user.enrollment_id,
                                                               totp_user.app.next_code(), totp_user.tenant))
    assert jwt_parts(tokens["idToken"])[1]["sign_in_second_factor"] == "totp"


def until_called(attempt, timeout: float = 20):
    """Runs `attempt` until it stops failing with FACTOR_SERVICE_UNAVAILABLE (a circuit breaker that opened during an
    outage lets a trial call through after 10 s); returns its result or the RPCFailure it raised otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return attempt()
        except RPCFailure as failure:
            if failure.reason != "FACTOR_SERVICE_UNAVAILABLE":
                return failure
            assert time.monotonic() < deadline, "the factor service stayed unavailable"
            time.sleep(0.5)


# ---------------------------------------------------------------------------------------------------------------
# 1. The e-mail example, from registration to a signed-in user


def test_register_enable_enrol_and_sign_in_with_the_email_example(public, admin, mailbox, registry):
    secret = new_secret()
    example = registry.example("email", secret)
    registered = registry.register([example.url], secret)
    service = registered["factorService"]
    assert set(registered) <= {"factorService", "secret"}
    assert registered.get("secret", b64url(secret)) == b64url(secret)
    assert set(service) - {"displayName"} == {"factorId", "endpoints", "timeoutMs", "allowInsecureHttp", "descriptor",
                                              "createdAt", "updatedAt"}
    assert service.get("displayName", "E-mail code") == "E-mail code"
    assert (service["factorId"], service["endpoints"]) == (EXAMPLE_ID, [example.url])
    assert (service["timeoutMs"], service["allowInsecureHttp"]) == (2000, False)
    assert service["descriptor"] == example.describe()
    assert RFC3339.match(service["createdAt"]) and RFC3339.match(service["updatedAt"])
    assert abs(instant(service["createdAt"]) - time.time()) < 120
    got = call(admin, "factorServices.get", {"factorId": EXAMPLE_ID})
    assert got.get("factorService", got) == service and b64url(secret) not in json.dumps(got)
    listed = call(admin, "factorServices.list", {})
    assert service in listed["factorServices"] and b64url(secret) not in json.dumps(listed)

    tenant = registry.tenant(EXAMPLE_ID, totp=False, display_name="Acme Mail")
    effective = call(admin, "tenants.get", {"tenantId": tenant})["effectiveMfaConfig"]
    assert {"state": "ENABLED", "factorServiceProviderConfig": {"factorId": EXAMPLE_ID}} in effective["providerConfigs"]

    # Enrolment: the code goes to the account's address, through the example's webhook.
    email, first = verified_user(admin, public, tenant, "mailer")
    before = mailbox.count(email)
    started = call(public, "mfaEnrollment.start", {"idToken": first["idToken"], "tenantId": tenant,
                                                   "emailEnrollmentInfo": {}})
    assert set(started) == {"emailSessionInfo"} and set(started["emailSessionInfo"]) == {"sessionInfo"}
    session_info = started["emailSessionInfo"]["sessionInfo"]
    assert isinstance(session_info, str) and len(session_info) >= 20
    message = mailbox.wait_for(email, after=before)
    assert "Acme Mail" in message["subject"]
    code = mailed_code(mailbox, email, before, "mfa_enrollment", tenant)
    finalize = {"idToken": first["idToken"], "tenantId": tenant,
                "emailVerificationInfo": {"sessionInfo": session_info, "code": other_code(code)}}
    assert reason_of(public, "mfaEnrollment.finalize", finalize) == "INVALID_CODE"
    finalize["emailVerificationInfo"]["code"] = code
    enrolled = call(public, "mfaEnrollment.finalize", {**finalize, "displayName": "Work mail"})
    assert set(enrolled) == TOKEN_RESULT | {"mfaEnrollmentId"}
    enrollment_id = enrolled["mfaEnrollmentId"]
    assert_email_second_factor(enrolled, enrollment_id, tenant)

    user = call(public, "accounts.lookup", {"idToken": enrolled["idToken"], "tenantId": tenant})["user"]
    [entry] = user["mfaInfo"]
    assert set(entry) == {"mfaEnrollmentId", "displayName", "enrolledAt", "emailInfo"}
    assert (entry["mfaEnrollmentId"], entry["displayName"], entry["emailInfo"]) == (enrollment_id, "Work mail", email)
    # The same address again: refused (the example sees it in `enrollments`; Tessera has its uniqueKey).
    assert reason_of(public, "mfaEnrollment.start", {"idToken": enrolled["idToken"], "tenantId": tenant,
                                                      "emailEnrollmentInfo": {}}) == "SECOND_FACTOR_EXISTS"

    # Sign-in: password, then the code mailed to the enrolled address.
    challenge = sign_in(public, email, tenant)
    assert set(challenge) == CHALLENGE
    [shown] = challenge["mfaInfo"]
    assert shown["mfaEnrollmentId"] == enrollment_id and shown["emailInfo"] == masked(email)
    pending = challenge["mfaPendingCredential"]
    before = mailbox.count(email)
    started = call(public, "mfaSignIn.start", {"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id,
                                               "tenantId": tenant, "emailSignInInfo": {}})
    assert set(started) == {"emailResponseInfo"} and set(started["emailResponseInfo"]) == {"sessionInfo"}
    sign_in_session = started["emailResponseInfo"]["sessionInfo"]
    code = mailed_code(mailbox, email, before, "mfa_sign_in", tenant)
    owner = EmailUser(email, tenant, enrolled, enrollment_id)
    assert reason_of(public, "mfaSignIn.finalize",
                     email_finalize(pending, owner, sign_in_session, other_code(code))) == "INVALID_CODE"
    tokens = call(public, "mfaSignIn.finalize", email_finalize(pending, owner, sign_in_session, code))
    assert set(tokens) == TOKEN_RESULT and tokens["localId"] == user["localId"]
    assert_email_second_factor(tokens, enrollment_id, tenant)
    # The pending credential was single use.
    assert reason_of(public, "mfaSignIn.finalize", email_finalize(pending, owner, sign_in_session, code)) \
        == "INVALID_MFA_PENDING_CREDENTIAL"
    log = example.log()
    assert code not in log and email not in log and b64url(secret) not in log


def test_enrolment_of_another_address_and_a_wrong_member(public, admin, mailbox, registry):
    secret = new_secret()
    example = registry.example("email-other", secret)
    registry.register([example.url], secret)
    tenant = registry.tenant(EXAMPLE_ID)
    email, first = verified_user(admin, public, tenant, "backup")
    backup = unique_email("backup-box")
    before = mailbox.count(backup)
    started = call(public, "mfaEnrollment.start", {"idToken": first["idToken"], "tenantId": tenant,
                                                   "emailEnrollmentInfo": {"email": backup}})
    code = mailed_code(mailbox, backup, before, "mfa_enrollment", tenant)
    enrolled = call(public, "mfaEnrollment.finalize", {
        "idToken": first["idToken"], "tenantId": tenant,
        "emailVerificationInfo": {"sessionInfo": started["emailSessionInfo"]["sessionInfo"], "code": code}})
    user = call(public, "accounts.lookup", {"idToken": enrolled["idToken"], "tenantId": tenant})["user"]
    assert [entry["emailInfo"] for entry in user["mfaInfo"]] == [backup]
    for bad in ({"emailEnrollmentInfo": {"email": "not an address"}},):
        assert reason_of(public, "mfaEnrollment.start", {"idToken": enrolled["idToken"], "tenantId": tenant,
                                                          **bad}) == "INVALID_EMAIL"
    for bad in ({"emailEnrollmentInfo": {"phone": "+15555550100"}}, {"emailEnrollmentInfo": "me"},
                {"emailEnrollmentInfo": {}, "totpEnrollmentInfo": {}}):
        failure = failure_of(public, "mfaEnrollment.start", {"idToken": enrolled["idToken"], "tenantId": tenant, **bad})
        assert (failure.reason, failure.code) == ("INVALID_ARGUMENT", -32602), bad


def test_a_factor_not_enabled_for_the_tenant_is_not_allowed(public, admin, mailbox, registry):
    secret = new_secret()
    example = registry.example("email-off", secret)
    registry.register([example.url], secret)
    tenant = registry.tenant()  # TOTP only
    _, first = verified_user(admin, public, tenant, "nomail")
    assert reason_of(public, "mfaEnrollment.start", {"idToken": first["idToken"], "tenantId": tenant,
                                                      "emailEnrollmentInfo": {}}) == "OPERATION_NOT_ALLOWED"


# ---------------------------------------------------------------------------------------------------------------
# 2. The admin methods


def test_a_generated_secret_is_shown_once_and_rotates(admin, registry):
    fake = registry.fake()
    registered = registry.register([fake.url], None, timeoutMs=1500)
    generated = registered["secret"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", generated)
    assert len(base64.urlsafe_b64decode(generated + "=")) == 32
    service = registered["factorService"]
    assert service["factorId"] == fake.factor_id and service["timeoutMs"] == 1500
    assert service["descriptor"] == fake.descriptor()
    shown = json.dumps(call(admin, "factorServices.get", {"factorId": fake.factor_id}))
    assert generated not in shown
    assert generated not in json.dumps(call(admin, "factorServices.list", {}))

    rotated = call(admin, "factorServices.rotateSecret", {"factorId": fake.factor_id})
    assert set(rotated) == {"secret"} and rotated["secret"] != generated
    assert len(base64.urlsafe_b64decode(rotated["secret"] + "=")) == 32

    updated = call(admin, "factorServices.update", {"factorId": fake.factor_id,
                                                    "factorService": {"timeoutMs": 800},
                                                    "updateMask": "timeoutMs"})
    updated = updated.get("factorService", updated)
    assert updated["timeoutMs"] == 800 and updated["endpoints"] == [fake.url]
    assert instant(updated["updatedAt"]) >= instant(updated["createdAt"])

    assert call(admin, "factorServices.delete", {"factorId": fake.factor_id}) == {}
    assert failure_of(admin, "factorServices.get", {"factorId": fake.factor_id}).status == "NOT_FOUND"


def test_a_tenant_scoped_admin_key_cannot_manage_factor_services(admin, admin_url, registry):
    tenant = registry.tenant()
    key = call(admin, "adminKeys.create", {"displayName": "factor services", "scope": f"tenant:{tenant}"})["key"]
    scoped = Listener("scoped", admin_url, {"Authorization": f"Bearer {key}"})
    fake = registry.fake()
    failure = failure_of(scoped, "factorServices.register",
                         {"factorService": {"endpoints": [fake.url]}, "secret": b64url(new_secret())})
    assert (failure.reason, failure.status) == ("PERMISSION_DENIED", "PERMISSION_DENIED")
    assert fake.calls("factor.describe") == 0, "a refused registration must not call the service"
    registry.register([fake.url], new_secret())
    for method, params in [("factorServices.rotateSecret", {"factorId": fake.factor_id}),
                           ("factorServices.delete", {"factorId": fake.factor_id}),
                           ("factorServices.update", {"factorId": fake.factor_id, "factorService": {"timeoutMs": 500},
                                                      "updateMask": "timeoutMs"})]:
        assert reason_of(scoped, method, params) == "PERMISSION_DENIED", method
    assert call(admin, "factorServices.get", {"factorId": fake.factor_id})


# ---------------------------------------------------------------------------------------------------------------
# 3. Failure modes: an outage or a misbehaving service is FACTOR_SERVICE_UNAVAILABLE, counts against nobody, and
#    leaves the tenant's other factors working.


def test_a_stopped_service_is_unavailable_and_costs_the_user_no_attempt(public, admin, mailbox, registry):
    secret = new_secret()
    example = registry.example("email-down", secret)
    registry.register([example.url], secret)
    tenant = registry.tenant(EXAMPLE_ID)
    user = enrol_email(public, admin, mailbox, tenant, "outage")
    totp_user = enrolled_user(admin, public, tenant, "outage-totp")
    pending, session_info, code = email_challenge(public, mailbox, user)

    assert example.stop() == 0
    for _ in range(7):  # more than the 5 attempts of a credential, and past the circuit breaker's 5 failures
        assert_unavailable(failure_of(public, "mfaSignIn.finalize", email_finalize(pending, user, session_info,
                                                                                   other_code(code))))
    other = pending_credential_of(public, user.email, tenant)
    assert_unavailable(failure_of(public, "mfaSignIn.start", {
        "mfaPendingCredential": other, "mfaEnrollmentId": user.enrollment_id, "tenantId": tenant,
        "emailSignInInfo": {}}))
    totp_still_works(public, totp_user)

    example.start()
    # The same credential still has all its five attempts: five wrong codes are INVALID_CODE, the sixth burns it.
    first = until_called(lambda: call(public, "mfaSignIn.finalize",
                                      email_finalize(pending, user, session_info, other_code(code))))
    assert isinstance(first, RPCFailure) and first.reason == "INVALID_CODE", first
    for attempt in range(4):
        assert reason_of(public, "mfaSignIn.finalize",
                         email_finalize(pending, user, session_info, other_code(code))) == "INVALID_CODE", attempt
    burnt = failure_of(public, "mfaSignIn.finalize", email_finalize(pending, user, session_info, code))
    assert burnt.reason == "TOO_MANY_ATTEMPTS_TRY_LATER" and burnt.retry_after
    # The enrolment is not locked (5 consecutive failures, not 10): a fresh sign-in passes.
    pending, session_info, code = email_challenge(public, mailbox, user)
    assert_email_second_factor(call(public, "mfaSignIn.finalize", email_finalize(pending, user, session_info, code)),
                               user.enrollment_id, tenant)


class FakeUser:
    """A user enrolled with a FakeFactor."""

    def __init__(self, fake: FakeFactor, email: str, tenant: str, enrollment_id: str):
        self.fake, self.email, self.tenant, self.enrollment_id = fake, email, tenant, enrollment_id

    def start_params(self, pending: str) -> dict:
        return {"mfaPendingCredential": pending, "mfaEnrollmentId": self.enrollment_id, "tenantId": self.tenant,
                self.fake.member("SignInInfo"): {}}

    def finalize_params(self, pending: str, session_info: str, code: str) -> dict:
        return {"mfaPendingCredential": pending, "mfaEnrollmentId": self.enrollment_id, "tenantId": self.tenant,
                self.fake.member("VerificationInfo"): {"sessionInfo": session_info, "code": code}}

    def challenge(self, public) -> tuple[str, str, str]:
        pending = pending_credential_of(public, self.email, self.tenant)
        started = call(public, "mfaSignIn.start", self.start_params(pending))
        return pending, started[self.fake.member("ResponseInfo")]["sessionInfo"], self.fake.codes[-1]

    def signs_in(self, public, pending: str, session_info: str, code: str):
        tokens = call(public, "mfaSignIn.finalize", self.finalize_params(pending, session_info, code))
        claims = jwt_parts(tokens["idToken"])[1]
        assert claims["sign_in_second_factor"] == self.fake.factor_id
        assert claims["second_factor_identifier"] == self.enrollment_id


def fake_setup(public, admin, registry, **service) -> tuple[FakeFactor, FakeUser, object]:
    """A registered FakeFactor, a tenant with it and TOTP, a user enrolled with the fake and one with TOTP."""
    fake = registry.fake()
    registry.register([fake.url], fake.secret, **service)
    tenant = registry.tenant(fake.factor_id)
    email, first = verified_user(admin, public, tenant, "fake")
    started = call(public, "mfaEnrollment.start", {"idToken": first["idToken"], "tenantId": tenant,
                                                   fake.member("EnrollmentInfo"): {}})
    session_info = started[fake.member("SessionInfo")]["sessionInfo"]
    enrolled = call(public, "mfaEnrollment.finalize", {
        "idToken": first["idToken"], "tenantId": tenant,
        fake.member("VerificationInfo"): {"sessionInfo": session_info, "code": fake.codes[-1]}})
    user = call(public, "accounts.lookup", {"idToken": enrolled["idToken"], "tenantId": tenant})["user"]
    assert [entry.get(fake.member("Info")) for entry in user["mfaInfo"]] == ["fake"]
    return fake, FakeUser(fake, email, tenant, enrolled["mfaEnrollmentId"]), enrolled_user(admin, public, tenant,
                                                                                         "fake-totp")


def test_a_slow_service_is_unavailable_within_its_timeout(public, admin, registry):
    fake, user, totp_user = fake_setup(public, admin, registry, timeoutMs=300)
    pending, session_info, code = user.challenge(public)
    with fake.behaving("slow", "factor.verifySignIn", delay=3):
        asked = time.monotonic()
        failure = failure_of(public, "mfaSignIn.finalize", user.finalize_params(pending, session_info, code))
        elapsed = time.monotonic() - asked
        assert_unavailable(failure)
        assert elapsed < 1.0, f"FACTOR_SERVICE_UNAVAILABLE after {elapsed:.2f} s with timeoutMs 300"
        with fake.behaving("slow", "factor.startSignIn", delay=3):
            asked = time.monotonic()
            other = pending_credential_of(public, user.email, user.tenant)
            assert_unavailable(failure_of(public, "mfaSignIn.start", user.start_params(other)))
        totp_still_works(public, totp_user)
    # The timed-out call was not counted: the right code still passes on the same credential.
    user.signs_in(public, pending, session_info, code)


@pytest.mark.parametrize("behaviour", ["not-json", "no-result", "wrong-id", "unknown-reason", "http-500", "huge",
                                       "bad-signature", "no-signature"])
def test_a_misbehaving_service_is_unavailable_and_costs_no_attempt(public, admin, registry, behaviour):
    fake, user, totp_user = fake_setup(public, admin, registry)
    pending, session_info, code = user.challenge(public)
    with fake.behaving(behaviour, "factor.verifySignIn"):
        assert_unavailable(failure_of(public, "mfaSignIn.finalize", user.finalize_params(pending, session_info, code)))
        totp_still_works(public, totp_user)
    with fake.behaving(behaviour, "factor.startSignIn"):
        other = pending_credential_of(public, user.email, user.tenant)
        assert_unavailable(failure_of(public, "mfaSignIn.start", user.start_params(other)))
    assert fake.calls("factor.verifySignIn") == 1 and fake.calls("factor.startSignIn") == 2
    # The bad answer counted for nobody: the same credential takes the right code.
    user.signs_in(public, pending, session_info, code)


def test_the_routers_attempt_limit_holds_against_a_remote_factor(public, admin, registry):
    fake, user, _ = fake_setup(public, admin, registry)
    pending, session_info, code = user.challenge(public)
    with fake.behaving("invalid-code", "factor.verifySignIn"):
        for attempt in range(5):
            failure = failure_of(public, "mfaSignIn.finalize", user.finalize_params(pending, session_info, code))
            assert (failure.reason, failure.status) == ("INVALID_CODE", "INVALID_ARGUMENT"), attempt
    assert fake.calls("factor.verifySignIn") == 5
    # The right code now: the credential is burnt, and the router refuses without asking the service.
    burnt = failure_of(public, "mfaSignIn.finalize", user.finalize_params(pending, session_info, code))
    assert (burnt.reason, burnt.status) == ("TOO_MANY_ATTEMPTS_TRY_LATER", "RESOURCE_EXHAUSTED")
    assert isinstance(burnt.retry_after, int) and 0 < burnt.retry_after <= 600
    assert fake.calls("factor.verifySignIn") == 5
    pending, session_info, code = user.challenge(public)
    user.signs_in(public, pending, session_info, code)


def test_two_replicas_behind_one_registration_survive_one_stopping(public, admin, mailbox, registry):
    secret = new_secret()
    first = registry.example("email-a", secret)
    second = registry.example("email-b", secret)
    registered = registry.register([first.url, second.url], secret)
    assert registered["factorService"]["endpoints"] == [first.url, second.url]
    tenant = registry.tenant(EXAMPLE_ID)
    user = enrol_email(public, admin, mailbox, tenant, "replicas")
    # Both running: a code started on one replica is checked by whichever the next call lands on.
    for _ in range(3):
        pending, session_info, code = email_challenge(public, mailbox, user)
        assert_email_second_factor(call(public, "mfaSignIn.finalize", email_finalize(pending, user, session_info,
                                                                                     code)), user.enrollment_id, tenant)
    assert second.stop() == 0
    for _ in range(4):
        pending, session_info, code = email_challenge(public, mailbox, user)
        assert_email_second_factor(call(public, "mfaSignIn.finalize", email_finalize(pending, user, session_info,
                                                                                     code)), user.enrollment_id, tenant)


def test_a_replayed_request_captured_from_tessera_is_refused(public, admin, mailbox, registry):
    """A recording proxy sits between Tessera and the example; the request it saw, sent again byte for byte to the
    example, is refused: its nonce was already accepted."""
    secret = new_secret()
    example = registry.example("email-replay", secret)
    proxy = registry.fake(secret=secret)
    proxy.upstream = example.url
    proxy.behave("proxy")
    registry.register([proxy.url], secret)
    tenant = registry.tenant(EXAMPLE_ID)
    email, first = verified_user(admin, public, tenant, "replay")
    before = mailbox.count(email)
    call(public, "mfaEnrollment.start", {"idToken": first["idToken"], "tenantId": tenant, "emailEnrollmentInfo": {}})
    mailed_code(mailbox, email, before, "mfa_enrollment", tenant)
    [captured] = [request for request in proxy.requests if request.method == "factor.startEnrollment"]
    assert captured.header("Tessera-Factor-Signature").startswith("v1=")
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", captured.header("Tessera-Factor-Nonce"))
    assert abs(int(captured.header("Tessera-Factor-Timestamp")) - time.time()) < 60

    sent = mailbox.count(email)
    status, headers, body = send_raw(example.port, captured.raw())
    answer = json.loads(body)
    assert status == 401, (status, body)
    assert answer["error"]["code"] == -32001 and answer["error"]["data"]["reason"] == "UNAUTHENTICATED"
    assert answer["id"] == json.loads(captured.body)["id"]
    time.sleep(0.5)
    assert mailbox.count(email) == sent, "the replayed request must not send a mail"
