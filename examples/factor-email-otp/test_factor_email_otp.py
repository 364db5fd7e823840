"""Tests of the e-mail one-time-code factor service, as Tessera would call it (docs/factor-protocol.md).

Standard library plus pytest; run with `python3 -m pytest examples/factor-email-otp`. Each test module run starts
the service as a subprocess on a free port with a webhook receiver that catches the mail.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import factor_email_otp as service_module

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "factor_email_otp.py"
METHODS = {"factor.describe", "factor.startEnrollment", "factor.finalizeEnrollment", "factor.startSignIn",
           "factor.verifySignIn", "rpc.discover"}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------------------------------------
# Fixtures: a webhook receiver, the service, a signing client


class Receiver:
    """Catches the mail the service POSTs; answers with `status` (a test may set 500)."""

    def __init__(self):
        self.messages: list[dict] = []
        self.status = 204
        self.condition = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.condition:
                    receiver.messages.append({"path": self.path, "headers": dict(self.headers),
                                              **json.loads(body)})
                    receiver.condition.notify_all()
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/mail"

    def count(self, to: str) -> int:
        with self.condition:
            return sum(1 for message in self.messages if message["to"] == to)

    def wait_for(self, to: str, after: int, timeout: float = 5) -> dict:
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                found = [message for message in self.messages if message["to"] == to]
                if len(found) > after:
                    return found[-1]
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no mail {after + 1} to {to}"
                self.condition.wait(remaining)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def code_of(message: dict) -> str:
    codes = re.findall(r"(?<!\d)\d{6}(?!\d)", message["text"])
    assert len(codes) == 1, message["text"]
    return codes[0]


class Running:
    """A started service: its port, secret, log file and process."""

    def __init__(self, process: subprocess.Popen, port: int, secret: bytes, log_path: Path):
        self.process, self.port, self.secret, self.log_path = process, port, secret, log_path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


def start_service(tmp_path: Path, *arguments: str, secret: bytes | None = None, environment: dict | None = None,
                  name: str = "service") -> Running:
    secret = secret or secrets.token_bytes(32)
    secret_file = tmp_path / f"{name}.secret"
    secret_file.write_text(b64url(secret) + "\n")
    log_path = tmp_path / f"{name}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--listen", "127.0.0.1:0", "--secret-file", str(secret_file), *arguments],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=environment)
    deadline = time.monotonic() + 10
    while True:
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", log_path.read_text())
        if match:
            return Running(process, int(match.group(1)), secret, log_path)
        assert process.poll() is None, log_path.read_text()
        assert time.monotonic() < deadline, "the service did not start"
        time.sleep(0.05)


def stop_service(running: Running) -> int:
    if running.process.poll() is None:
        running.process.send_signal(signal.SIGTERM)
    try:
        return running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()
        running.process.wait()
        raise AssertionError("the service did not stop within 10 s of SIGTERM")


@pytest.fixture(scope="module")
def receiver():
    box = Receiver()
    yield box
    box.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory, receiver):
    running = start_service(tmp_path_factory.mktemp("service"), "--email-webhook-url", receiver.url)
    yield running
    assert stop_service(running) == 0, running.log()


class Answer:
    def __init__(self, status: int, headers: dict, body: bytes, nonce: str | None, secret: bytes):
        self.status, self.headers, self.body = status, headers, body
        self.json = json.loads(body) if body else None
        self.nonce, self.secret = nonce, secret

    @property
    def result(self):
        assert self.status == 200 and "result" in self.json, (self.status, self.json)
        return self.json["result"]

    @property
    def error(self) -> dict:
        assert "error" in self.json, self.json
        return self.json["error"]

    @property
    def reason(self) -> str | None:
        return self.error.get("data", {}).get("reason")

    def signature_holds(self) -> bool:
        message = b"tessera-factor-v1-response\n" + (self.nonce or "").encode() + b"\n" + self.body
        expected = "v1=" + b64url(hmac.new(self.secret, message, hashlib.sha256).digest())
        return hmac.compare_digest(expected, self.headers.get("tessera-factor-signature", ""))


class Client:
    """Talks to the service as Tessera does: one keep-alive connection, signed requests."""

    def __init__(self, running: Running):
        self.running = running
        self.ids = 0

    def post(self, body: bytes, headers: dict, path: str = "/rpc", method: str = "POST"):
        connection = http.client.HTTPConnection("127.0.0.1", self.running.port, timeout=10)
        try:
            connection.request(method, path, body=body, headers={"Content-Type": "application/json", **headers})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def sign(self, body: bytes, *, timestamp: int | None = None, nonce: str | None = None,
             secret: bytes | None = None) -> dict:
        timestamp = str(int(time.time()) if timestamp is None else timestamp)
        nonce = nonce or b64url(secrets.token_bytes(16))
        message = b"tessera-factor-v1\n" + timestamp.encode() + b"\n" + nonce.encode() + b"\n" + body
        signature = "v1=" + b64url(hmac.new(secret or self.running.secret, message, hashlib.sha256).digest())
        return {"Tessera-Factor-Timestamp": timestamp, "Tessera-Factor-Nonce": nonce,
                "Tessera-Factor-Signature": signature}

    def body(self, method: str, params=None) -> bytes:
        self.ids += 1
        request = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params is not None:
            request["params"] = params
        return json.dumps(request).encode()

    def raw(self, body: bytes, headers: dict) -> Answer:
        status, answer_headers, answer = self.post(body, headers)
        return Answer(status, answer_headers, answer, headers.get("Tessera-Factor-Nonce"), self.running.secret)

    def call(self, method: str, params=None, *, signed: bool = True, **signing) -> Answer:
        body = self.body(method, params)
        answer = self.raw(body, self.sign(body, **signing) if signed else {})
        if signed:
            assert answer.signature_holds(), (method, answer.headers, answer.body)
        return answer


@pytest.fixture(scope="module")
def client(service) -> Client:
    return Client(service)


NOW = datetime(2026, 11, 25, 10, 0, 0, tzinfo=timezone.utc)


def user(email: str | None = None, **extra) -> dict:
    person = {"localId": "u-" + secrets.token_hex(6), "tenantId": "t-acme", "emailVerified": True, **extra}
    person["email"] = email or f"ada-{secrets.token_hex(4)}@example.com"
    if email == "":
        del person["email"]
    return person


def context(now: datetime = NOW, **extra) -> dict:
    return {"now": rfc3339(now), "tenantId": "t-acme", "languageCode": "en", "issuerName": "Acme",
            "appVerifiedByServer": False, **extra}


def session(now: datetime = NOW, lifetime: int = 600) -> dict:
    return {"sessionInfo": b64url(secrets.token_bytes(24)), "expiresAt": rfc3339(now + timedelta(seconds=lifetime))}


def enrollment_of(address: str, state: bool = True) -> dict:
    entry = {"mfaEnrollmentId": "e-" + secrets.token_hex(4), "enrolledAt": rfc3339(NOW - timedelta(days=1)),
             "publicInfo": {"emailInfo": address}}
    if state:
        entry["enrollmentState"] = b64url(address.encode())
    return entry


def start_enrollment(client, receiver, person: dict, info: dict | None = None, now: datetime = NOW,
                     enrollments: list | None = None):
    """(params used, result, code from the mail)."""
    to = (info or {}).get("email", person.get("email"))
    before = receiver.count(to)
    params = {"user": person, "info": info or {}, "session": session(now), "context": context(now),
              "enrollments": enrollments or []}
    result = client.call("factor.startEnrollment", params).result
    return params, result, code_of(receiver.wait_for(to, before))


def finalize(client, params: dict, result: dict, code: str, now: datetime = NOW, **overrides) -> "Answer":
    final = {"user": params["user"], "info": {"sessionInfo": params["session"]["sessionInfo"], "code": code},
             "state": result["state"], "session": params["session"], "context": context(now),
             "enrollments": params["enrollments"], **overrides}
    return client.call("factor.finalizeEnrollment", final)


def start_sign_in(client, receiver, person: dict, address: str, now: datetime = NOW):
    enrollment = enrollment_of(address)
    before = receiver.count(address)
    params = {"user": person, "enrollment": enrollment, "info": {}, "session": session(now, 300),
              "context": context(now)}
    result = client.call("factor.startSignIn", params).result
    return params, result, code_of(receiver.wait_for(address, before))


def verify(client, params: dict, result: dict, code: str, now: datetime = NOW, **overrides) -> "Answer":
    final = {"user": params["user"], "enrollment": params["enrollment"],
             "info": {"sessionInfo": params["session"]["sessionInfo"], "code": code},
             "state": result["state"], "context": context(now), **overrides}
    return client.call("factor.verifySignIn", final)


def other_code(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def assert_refused(answer: Answer, reason: str, code: int = -32000):
    assert answer.status == 200, answer.body
    assert (answer.error["code"], answer.reason) == (code, reason), answer.json
    assert answer.error["message"].startswith(f"{reason} : ")


# ---------------------------------------------------------------------------------------------------------------
# HTTP surface


def test_healthz_and_the_routes(client):
    assert client.post(b"", {}, path="/healthz", method="GET")[0::2] == (200, b"ok")
    assert client.post(b"", {}, path="/nowhere", method="GET")[0] == 404
    assert client.post(b"{}", {}, path="/nowhere")[0] == 404
    status, headers, _ = client.post(b"", {}, path="/rpc", method="GET")
    assert status == 405 and headers["allow"] == "POST"
    assert client.post(b"{}", {}, path="/rpc", method="PUT")[0] == 405
    assert client.post(b"x", {}, path="/healthz")[0] == 405


def test_a_body_over_64_kib_is_refused(client):
    body = b'{"jsonrpc":"2.0","id":1,"method":"factor.describe","params":{"pad":"' + b"x" * 70_000 + b'"}}'
    assert client.post(body, {})[0] == 413


# ---------------------------------------------------------------------------------------------------------------
# Discovery (unsigned)


def test_describe_is_unsigned_and_matches_the_protocol(client):
    answer = client.call("factor.describe", signed=False)
    assert answer.status == 200 and "tessera-factor-signature" not in answer.headers
    descriptor = answer.result
    assert set(descriptor) == {"protocolVersion", "id", "displayName", "amr", "members", "enrollmentLifetime",
                               "signInLifetime", "loginPages"}
    assert (descriptor["protocolVersion"], descriptor["id"], descriptor["amr"]) == (1, "email", "otp")
    assert (descriptor["enrollmentLifetime"], descriptor["signInLifetime"]) == (600, 300)
    members = descriptor["members"]
    names = {key: value["name"] for key, value in members.items() if key != "signInStart"}
    assert names == {"enrollmentInfo": "emailEnrollmentInfo", "enrollmentResult": "emailSessionInfo",
                     "verificationInfo": "emailVerificationInfo"}
    assert members["signInStart"]["info"]["name"] == "emailSignInInfo"
    assert members["signInStart"]["result"]["name"] == "emailResponseInfo"
    verification = members["verificationInfo"]["schema"]
    assert set(verification["required"]) == {"sessionInfo", "code"}
    assert members["enrollmentInfo"]["schema"]["properties"] == {
        "email": {"type": "string", "format": "email", "maxLength": 254}}
    for member in [*[members[k] for k in names], *members["signInStart"].values()]:
        assert "$ref" not in json.dumps(member["schema"]), member


def test_describe_ignores_signature_headers(client):
    """At registration Tessera may not have handed the secret over yet: describe never checks one."""
    body = client.body("factor.describe")
    answer = client.raw(body, client.sign(body, secret=b"\x00" * 32))
    assert answer.status == 200 and answer.result["id"] == "email"


def test_rpc_discover_is_the_openrpc_document_next_to_the_script(client):
    document = client.call("rpc.discover", signed=False).result
    assert document == json.loads((HERE / "openrpc.json").read_text())
    assert document["openrpc"].startswith("1.2.")
    assert {method["name"] for method in document["methods"]} == METHODS
    schemas = document["components"]["schemas"]
    descriptor = client.call("factor.describe", signed=False).result
    assert descriptor["members"]["enrollmentInfo"]["schema"] == schemas["EnrollmentInfo"]
    assert schemas["Descriptor"]["properties"]["loginPages"] == {"$ref": "#/components/schemas/LoginPages"}
    documented = schemas["LoginPages"]
    assert set(descriptor["loginPages"]) <= set(documented["properties"]) == PAGES_MEMBERS
    assert set(documented["required"]) <= set(descriptor["loginPages"])


# ---------------------------------------------------------------------------------------------------------------
# Login pages: `loginPages` of the descriptor, as Tessera reads it (FactorLoginPages(json:), module MultiFactor)


PAGES_MEMBERS = {"enrollButton", "enrollFields", "enrollTitle", "enrollInstructions", "enrollmentLabel",
                 "signInInstructions", "code", "resend"}
FIELD_MEMBERS = {"name", "label", "inputType", "autocomplete", "hint", "required", "infoKey", "normalization"}


def check_login_pages(pages) -> None:
    """Fails unless `pages` passes the rules of Tessera's reader: only known members, the required texts present
    and non-empty, fields with a name and a label, a code field with an info key and a length from 1 to 64."""
    assert isinstance(pages, dict) and set(pages) <= PAGES_MEMBERS, pages
    for key in ("enrollButton", "enrollTitle", "enrollmentLabel", "signInInstructions"):
        assert isinstance(pages[key], str) and pages[key], key
    assert pages.get("enrollInstructions") is None or isinstance(pages["enrollInstructions"], str)
    assert isinstance(pages.get("resend", False), bool)
    for field in pages.get("enrollFields", []):
        assert isinstance(field, dict) and set(field) <= FIELD_MEMBERS, field
        assert isinstance(field["name"], str) and field["name"] and isinstance(field["label"], str) and field["label"]
        for key in ("inputType", "autocomplete", "hint", "infoKey"):
            assert field.get(key) is None or isinstance(field[key], str), key
        assert isinstance(field.get("required", True), bool)
        assert field.get("normalization") in (None, "strip-separators")
    code = pages["code"]
    assert isinstance(code, dict) and set(code) <= {"infoKey", "label", "length"}, code
    assert isinstance(code["infoKey"], str) and code["infoKey"]
    length = code.get("length", 6)
    assert isinstance(length, int) and not isinstance(length, bool) and 1 <= length <= 64


def fill(template: str, values: dict) -> str | None:
    """A template filled as the login pages fill it: `{key}` by its string value; None when one has none."""
    missing = []

    def value(match):
        found = values.get(match.group(1))
        if not isinstance(found, str):
            missing.append(match.group(1))
            return ""
        return found

    text = re.sub(r"\{([^{}]*)\}", value, template)
    return None if missing else text


def test_describe_declares_the_login_pages(client):
    pages = client.call("factor.describe", signed=False).result["loginPages"]
    check_login_pages(pages)
    assert pages == {
        "enrollButton": "Send a code by e-mail",
        "enrollFields": [{"name": "emailAddress", "label": "E-mail address", "inputType": "email",
                          "autocomplete": "email", "hint": "Leave it empty to use the address you sign in with.",
                          "required": False, "infoKey": "email"}],
        "enrollTitle": "Confirm your e-mail address",
        "enrollmentLabel": "E-mail to {emailInfo}",
        "signInInstructions": "Enter the 6-digit code we sent to {emailInfo}.",
        "code": {"infoKey": "code", "label": "Code from the e-mail", "length": 6},
        "resend": True,
    }
    # The field's info key and the code's are members the schemas of the descriptor's members accept.
    members = client.call("factor.describe", signed=False).result["members"]
    assert set(members["enrollmentInfo"]["schema"]["properties"]) == {"email"}
    assert "code" in members["verificationInfo"]["schema"]["properties"]


def test_the_login_pages_name_an_enrolment_by_its_masked_address(client, receiver):
    """The templates read what finalize answers: `maskedInfo` is what a challenge (and so the pages) shows."""
    pages = client.call("factor.describe", signed=False).result["loginPages"]
    person = user("grace@example.com")
    # The field as the pages post it: left empty, the info has no `email` and the code goes to the account's address.
    params, result, code = start_enrollment(client, receiver, person, {})
    assert "g***@example.com" in result["display"]["instructions"]
    enrolled = finalize(client, params, result, code).result
    assert fill(pages["enrollmentLabel"], enrolled["maskedInfo"]) == "E-mail to g***@example.com"
    assert fill(pages["signInInstructions"], enrolled["maskedInfo"]) \
        == "Enter the 6-digit code we sent to g***@example.com."
    # Typed: the field's info key carries the address.
    [field] = pages["enrollFields"]
    params, result, code = start_enrollment(client, receiver, person, {field["infoKey"]: "grace.backup@example.org"})
    assert "g***@example.org" in result["display"]["instructions"]
    assert finalize(client, params, result, code).result["maskedInfo"] == {"emailInfo": "g***@example.org"}


def test_own_address_only_asks_for_no_address_on_the_pages(tmp_path):
    running = start_service(tmp_path, "--own-address-only", name="own")
    try:
        pages = Client(running).call("factor.describe", signed=False).result["loginPages"]
        check_login_pages(pages)
        assert pages["enrollFields"] == [] and pages["enrollButton"] == "Send a code by e-mail"
        assert pages["enrollmentLabel"] == "E-mail to {emailInfo}" and pages["resend"] is True
    finally:
        assert stop_service(running) == 0


# ---------------------------------------------------------------------------------------------------------------
# Enrolment


def test_enrolment_mails_a_code_and_finalize_accepts_it(client, receiver):
    person = user("Ada.Lovelace@Example.com")
    params, result, code = start_enrollment(client, receiver, person)
    assert set(result) == {"response", "state", "display"}
    assert result["response"] == {"sessionInfo": params["session"]["sessionInfo"]}
    assert "A***@Example.com" in result["display"]["instructions"]
    assert code not in result["display"]["instructions"]
    state = unb64url(result["state"])
    assert len(state) <= 4096 and code.encode() not in state and code not in result["state"]

    message = receiver.messages[-1]
    assert message["path"] == "/mail" and message["headers"]["Content-Type"] == "application/json"
    assert set(message) - {"path", "headers"} == {"to", "subject", "text", "kind", "link", "tenantId",
                                                  "languageCode"}
    assert (message["to"], message["kind"], message["link"]) == ("Ada.Lovelace@Example.com", "mfa_enrollment", None)
    assert (message["tenantId"], message["languageCode"]) == ("t-acme", "en")
    assert code not in message["subject"] and "Acme" in message["subject"]

    enrolled = finalize(client, params, result, code).result
    assert enrolled == {"publicInfo": {"emailInfo": "Ada.Lovelace@Example.com"},
                        "maskedInfo": {"emailInfo": "A***@Example.com"},
                        "enrollmentState": b64url(b"Ada.Lovelace@Example.com"),
                        "uniqueKey": "ada.lovelace@example.com"}


def test_enrolment_of_another_address_and_of_invalid_ones(client, receiver):
    person = user()
    params, result, code = start_enrollment(client, receiver, person, {"email": "backup@example.org"})
    assert finalize(client, params, result, code).result["uniqueKey"] == "backup@example.org"
    for address in ("not-an-address", "a@b", "two@@example.com", "x" * 65 + "@example.com", "sp ace@example.com"):
        answer = client.call("factor.startEnrollment", {**params, "info": {"email": address}})
        assert_refused(answer, "INVALID_EMAIL")
    no_email = client.call("factor.startEnrollment", {**params, "user": user(""), "info": {}})
    assert_refused(no_email, "INVALID_EMAIL")


def test_a_code_of_another_language(client, receiver):
    person = user()
    before = receiver.count(person["email"])
    params = {"user": person, "info": {}, "session": session(), "context": context(languageCode="fr-CA"),
              "enrollments": []}
    client.call("factor.startEnrollment", params).result
    message = receiver.wait_for(person["email"], before)
    assert message["languageCode"] == "fr" and "code de vérification" in message["text"]


def test_a_wrong_code_and_a_code_of_another_session_or_user_are_invalid(client, receiver):
    params, result, code = start_enrollment(client, receiver, user())
    assert_refused(finalize(client, params, result, other_code(code)), "INVALID_CODE")
    other_session = {**params["session"], "sessionInfo": b64url(secrets.token_bytes(24))}
    assert_refused(finalize(client, params, result, code, session=other_session,
                            info={"sessionInfo": other_session["sessionInfo"], "code": code}), "INVALID_CODE")
    assert_refused(finalize(client, params, result, code, user=user(params["user"]["email"])), "INVALID_CODE")
    # The factor keeps no count: the right code still passes (Tessera counts the attempts).
    assert "publicInfo" in finalize(client, params, result, code).result


def test_the_code_expires_by_context_now_not_by_the_clock(client, receiver):
    long_ago = NOW - timedelta(days=400)
    params, result, code = start_enrollment(client, receiver, user(), now=long_ago)
    assert "publicInfo" in finalize(client, params, result, code, now=long_ago + timedelta(seconds=299)).result
    expired = finalize(client, params, result, code, now=long_ago + timedelta(seconds=300))
    assert_refused(expired, "INVALID_CODE")
    assert "expired" in expired.error["message"]


def test_an_address_already_enrolled_is_refused_at_start_and_at_finalize(client, receiver):
    person = user("grace@example.com")
    existing = [enrollment_of("Grace@Example.COM", state=False)]
    answer = client.call("factor.startEnrollment", {"user": person, "info": {}, "session": session(),
                                                    "context": context(), "enrollments": existing})
    assert_refused(answer, "SECOND_FACTOR_EXISTS")
    params, result, code = start_enrollment(client, receiver, person)
    assert_refused(finalize(client, params, result, code, enrollments=existing), "SECOND_FACTOR_EXISTS")


@pytest.mark.parametrize("change, reason, code", [
    (lambda p: p["info"].pop("code"), "MISSING_CODE", -32602),
    (lambda p: p["info"].update(code=123456), "INVALID_ARGUMENT", -32602),
    (lambda p: p["info"].update(extra=1), "INVALID_ARGUMENT", -32602),
    (lambda p: p.update(state="!!not base64!!"), "INVALID_ARGUMENT", -32602),
    (lambda p: p.update(state=b64url(b'{"v":1}')), "INVALID_ARGUMENT", -32602),
    (lambda p: p.pop("user"), "INVALID_ARGUMENT", -32602),
    (lambda p: p["context"].update(now="yesterday"), "INVALID_ARGUMENT", -32602),
    (lambda p: (p.pop("session"), p["info"].pop("sessionInfo")), "MISSING_SESSION_INFO", -32602),
], ids=["missing-code", "numeric-code", "unknown-member", "bad-state", "foreign-state", "no-user", "bad-now",
        "no-session-info"])
def test_bad_finalize_params(client, receiver, change, reason, code):
    params, result, good = start_enrollment(client, receiver, user())
    final = {"user": params["user"], "info": {"sessionInfo": params["session"]["sessionInfo"], "code": good},
             "state": result["state"], "session": params["session"], "context": context(), "enrollments": []}
    change(final)
    assert_refused(client.call("factor.finalizeEnrollment", final), reason, code)


def test_bad_start_params(client):
    base = {"user": user(), "info": {}, "session": session(), "context": context(), "enrollments": []}
    assert_refused(client.call("factor.startEnrollment", {**base, "info": {"phone": "+1"}}), "INVALID_ARGUMENT",
                   -32602)
    assert_refused(client.call("factor.startEnrollment", {**base, "info": "me"}), "INVALID_ARGUMENT", -32602)
    assert_refused(client.call("factor.startEnrollment", [1, 2]), "INVALID_ARGUMENT", -32602)
    # Members the service does not know at the top level are ignored (protocol §7).
    assert "state" in client.call("factor.startEnrollment", {**base, "futureMember": True}).result


def test_a_failing_webhook_is_delivery_failed(client, receiver):
    receiver.status = 500
    try:
        answer = client.call("factor.startEnrollment", {"user": user(), "info": {}, "session": session(),
                                                        "context": context(), "enrollments": []})
    finally:
        receiver.status = 204
    assert_refused(answer, "DELIVERY_FAILED")
    assert answer.error["data"]["status"] == "UNAVAILABLE"


# ---------------------------------------------------------------------------------------------------------------
# Sign-in


def test_sign_in_mails_a_code_to_the_enrolled_address(client, receiver):
    person = user("ada@example.com")
    params, result, code = start_sign_in(client, receiver, person, "second@example.net")
    assert set(result) == {"response", "state"}
    assert result["response"] == {"sessionInfo": params["session"]["sessionInfo"]}
    message = receiver.messages[-1]
    assert (message["to"], message["kind"], message["link"]) == ("second@example.net", "mfa_sign_in", None)
    assert code not in result["state"] and code.encode() not in unb64url(result["state"])
    assert verify(client, params, result, code).result == {}
    assert_refused(verify(client, params, result, other_code(code)), "INVALID_CODE")
    expired = verify(client, params, result, code, now=NOW + timedelta(seconds=300))
    assert_refused(expired, "INVALID_CODE")


def test_sign_in_state_is_bound_to_its_enrolment_step_and_user(client, receiver):
    person = user()
    params, result, code = start_sign_in(client, receiver, person, person["email"])
    other = enrollment_of("someone-else@example.com")
    assert_refused(verify(client, params, result, code, enrollment=other), "INVALID_CODE")
    assert_refused(verify(client, params, result, code, user=user(person["email"])), "INVALID_CODE")
    assert_refused(verify(client, params, result, code, state=None), "INVALID_ARGUMENT", -32602)
    # An enrolment state is not a sign-in state.
    enrol_params, enrol_result, enrol_code = start_enrollment(client, receiver, person)
    answer = verify(client, params, {"state": enrol_result["state"]}, enrol_code,
                    info={"sessionInfo": enrol_params["session"]["sessionInfo"], "code": enrol_code})
    assert_refused(answer, "INVALID_ARGUMENT", -32602)
    # The sign-in info takes no members.
    bad = {**params, "info": {"email": "x@example.com"}}
    assert_refused(client.call("factor.startSignIn", bad), "INVALID_ARGUMENT", -32602)


def test_sign_in_works_across_replicas_sharing_the_secret(tmp_path, client, receiver, service):
    """The service keeps no state: a replica with the same secret checks what another started."""
    replica = start_service(tmp_path, "--email-webhook-url", receiver.url, secret=service.secret, name="replica")
    try:
        person = user()
        params, result, code = start_sign_in(client, receiver, person, person["email"])
        assert verify(Client(replica), params, result, code).result == {}
    finally:
        assert stop_service(replica) == 0


# ---------------------------------------------------------------------------------------------------------------
# Authentication of the calls (protocol §2)


def sign_in_params() -> dict:
    person = user()
    return {"user": person, "enrollment": enrollment_of(person["email"]), "info": {}, "session": session(lifetime=300),
            "context": context()}


def assert_unauthenticated(answer: Answer, request_id):
    assert answer.status == 401, (answer.status, answer.body)
    assert answer.json["id"] == request_id
    error = answer.error
    assert error["code"] == -32001 and error["data"]["reason"] == "UNAUTHENTICATED"
    assert error["message"].startswith("UNAUTHENTICATED : ")
    assert answer.signature_holds(), "a refusal of a signed call is signed too"


def test_an_unsigned_call_is_refused(client):
    body = client.body("factor.startSignIn", sign_in_params())
    assert_unauthenticated(client.raw(body, {}), client.ids)
    for missing in ("Tessera-Factor-Timestamp", "Tessera-Factor-Nonce", "Tessera-Factor-Signature"):
        headers = client.sign(body)
        del headers[missing]
        assert_unauthenticated(client.raw(body, headers), client.ids)


def test_a_wrong_signature_is_refused(client):
    body = client.body("factor.startSignIn", sign_in_params())
    assert_unauthenticated(client.raw(body, client.sign(body, secret=secrets.token_bytes(32))), client.ids)
    headers = client.sign(body)
    tampered = body.replace(b'"info": {}', b'"info": {} ')
    assert tampered != body
    assert_unauthenticated(client.raw(tampered, headers), client.ids)
    for signature in ("", "v1=", "v2=" + headers["Tessera-Factor-Signature"][3:],
                      headers["Tessera-Factor-Signature"][3:]):
        assert_unauthenticated(client.raw(body, {**client.sign(body), "Tessera-Factor-Signature": signature}),
                               client.ids)


@pytest.mark.parametrize("offset", [-61, 61, -3600])
def test_a_timestamp_outside_60_seconds_is_refused(client, offset):
    body = client.body("factor.startSignIn", sign_in_params())
    assert_unauthenticated(client.raw(body, client.sign(body, timestamp=int(time.time()) + offset)), client.ids)


def test_timestamps_within_the_window_pass(client, receiver):
    for offset in (-50, 50):
        answer = client.call("factor.startSignIn", sign_in_params(), timestamp=int(time.time()) + offset)
        assert "state" in answer.result


def test_a_replayed_request_is_refused(client, receiver):
    body = client.body("factor.startSignIn", sign_in_params())
    headers = client.sign(body)
    first = client.raw(body, headers)
    assert first.status == 200 and "state" in first.result and first.signature_holds()
    assert_unauthenticated(client.raw(body, headers), client.ids)
    # The same nonce under another body and a fresh signature is refused as well.
    again = client.body("factor.startSignIn", sign_in_params())
    assert_unauthenticated(client.raw(again, client.sign(again, nonce=headers["Tessera-Factor-Nonce"])), client.ids)


@pytest.mark.parametrize("nonce", ["short", "x" * 23, "AAAAAAAAAAAAAAAAAAAA+/"])
def test_a_malformed_nonce_is_refused(client, nonce):
    body = client.body("factor.startSignIn", sign_in_params())
    assert_unauthenticated(client.raw(body, client.sign(body, nonce=nonce)), client.ids)


# ---------------------------------------------------------------------------------------------------------------
# JSON-RPC errors


def test_bad_json_unknown_methods_and_bad_requests(client):
    cases = [
        (b'{"jsonrpc":"2.0","id":1,"method":', -32700, None),
        (b"\xff\xfe", -32700, None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"factor.describe"}]', -32600, None),
        (b'{"jsonrpc":"1.0","id":4,"method":"factor.startSignIn","params":{}}', -32600, 4),
        (b'{"jsonrpc":"2.0","method":"factor.startSignIn","params":{}}', -32600, None),
        (b'{"jsonrpc":"2.0","id":5,"method":"factor.nosuch","params":{}}', -32601, 5),
        (b'{"jsonrpc":"2.0","id":6,"method":"factor.startSignIn","params":"x"}', -32602, 6),
    ]
    for body, code, request_id in cases:
        answer = client.raw(body, client.sign(body))
        assert answer.status == 200 and answer.signature_holds(), body
        assert answer.json["jsonrpc"] == "2.0" and answer.json["id"] == request_id, body
        assert answer.error["code"] == code, (body, answer.json)
        if code == -32602:
            assert answer.reason == "INVALID_ARGUMENT"


def test_bad_json_without_a_signature_is_refused_before_it_is_parsed(client):
    answer = client.raw(b"{not json", {})
    assert answer.status == 401 and answer.error["code"] == -32001


# ---------------------------------------------------------------------------------------------------------------
# Logs, command line, shutdown


def test_the_log_has_no_code_secret_or_full_address(tmp_path, receiver):
    running = start_service(tmp_path, "--email-webhook-url", receiver.url, name="logged")
    local = Client(running)
    addresses, codes = [], []
    try:
        for _ in range(3):
            person = user(f"private-{secrets.token_hex(3)}@example.com")
            params, result, code = start_enrollment(local, receiver, person)
            finalize(local, params, result, other_code(code))
            finalize(local, params, result, code).result
            sp, sr, scode = start_sign_in(local, receiver, person, person["email"])
            verify(local, sp, sr, scode).result
            addresses.append(person["email"])
            codes += [code, scode]
        receiver.status = 500
        local.call("factor.startEnrollment", {"user": user(addresses[0]), "info": {}, "session": session(),
                                              "context": context(), "enrollments": []})
    finally:
        receiver.status = 204
        assert stop_service(running) == 0
    log = running.log()
    assert "method=factor.verifySignIn outcome=ok" in log and "outcome=INVALID_CODE" in log
    assert "mail kind=mfa_sign_in to=p***@example.com delivered" in log
    for secret_text in (b64url(running.secret), running.secret.hex()):
        assert secret_text not in log
    for address in addresses:
        assert address not in log and address.split("@")[0] not in log
    for code in codes:
        assert code not in log


def test_without_a_webhook_the_mail_is_logged_without_the_code(tmp_path):
    running = start_service(tmp_path, name="nowebhook")
    try:
        person = user()
        answer = Client(running).call("factor.startEnrollment", {"user": person, "info": {}, "session": session(),
                                                                 "context": context(), "enrollments": []})
        assert "state" in answer.result
    finally:
        assert stop_service(running) == 0
    log = running.log()
    assert "no --email-webhook-url" in log and "not delivered" in log and person["email"] not in log
    assert not re.search(r"(?<!\d)\d{6}(?!\d)", log.split("listening on")[1].replace(str(running.port), ""))


def test_the_secret_may_come_from_the_environment(tmp_path):
    secret = secrets.token_bytes(32)
    log_path = tmp_path / "env.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([sys.executable, str(SCRIPT), "--listen", "127.0.0.1:0"], stdout=log,
                                   stderr=subprocess.STDOUT, env={**os.environ, "FACTOR_SECRET": b64url(secret)})
    deadline = time.monotonic() + 10
    while not re.search(r"listening on 127\.0\.0\.1:(\d+)", log_path.read_text()):
        assert process.poll() is None and time.monotonic() < deadline, log_path.read_text()
        time.sleep(0.05)
    port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", log_path.read_text()).group(1))
    running = Running(process, port, secret, log_path)
    try:
        assert "state" in Client(running).call("factor.startSignIn", sign_in_params()).result
    finally:
        assert stop_service(running) == 0


@pytest.mark.parametrize("arguments, message", [
    (["--bogus"], "unrecognized arguments"),
    (["--listen", "nowhere"], "--listen"),
    (["--listen", "127.0.0.1:70000"], "--listen"),
    (["--code-lifetime", "10"], "--code-lifetime"),
    (["--code-lifetime", "soon"], "--code-lifetime"),
    (["--factor-id", "totp"], "--factor-id"),
    (["--factor-id", "Email"], "--factor-id"),
    (["--email-webhook-url", "ftp://mail"], "--email-webhook-url"),
    (["--secret-file", "/nonexistent/secret"], "--secret-file"),
    ([], "a secret is required"),
])
def test_bad_arguments_are_one_line_and_exit_2(arguments, message):
    environment = {key: value for key, value in os.environ.items() if key != "FACTOR_SECRET"}
    done = subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=20,
                          env=environment)
    assert done.returncode == 2, done
    assert done.stdout == "" and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


@pytest.mark.parametrize("content", ["short", "!!!!", base64.b64encode(b"x" * 32).decode().replace("=", "") + "+/"])
def test_a_bad_secret_is_refused(tmp_path, content):
    path = tmp_path / "secret"
    path.write_text(content)
    done = subprocess.run([sys.executable, str(SCRIPT), "--secret-file", str(path)], capture_output=True, text=True,
                          timeout=20)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--secret-file" in done.stderr, done.stderr


def test_the_listen_address_taken_is_exit_2(tmp_path, service):
    path = tmp_path / "secret"
    path.write_text(b64url(secrets.token_bytes(32)))
    done = subprocess.run([sys.executable, str(SCRIPT), "--secret-file", str(path), "--listen",
                           f"127.0.0.1:{service.port}"], capture_output=True, text=True, timeout=20)
    assert done.returncode == 2 and "cannot listen" in done.stderr and done.stderr.count("\n") == 1


def test_sigterm_stops_the_service_with_status_0(tmp_path):
    running = start_service(tmp_path, name="stopping")
    started = time.monotonic()
    assert stop_service(running) == 0
    assert time.monotonic() - started < 5
    assert "stopped" in running.log()


def test_a_custom_factor_id_renames_the_members(tmp_path):
    running = start_service(tmp_path, "--factor-id", "work-mail", name="custom")
    try:
        local = Client(running)
        descriptor = local.call("factor.describe", signed=False).result
        assert descriptor["id"] == "work-mail"
        assert descriptor["members"]["enrollmentInfo"]["name"] == "workMailEnrollmentInfo"
        assert descriptor["members"]["signInStart"]["result"]["name"] == "workMailResponseInfo"
        # The pages follow: a field name of its own (every enrolment form shares a page) and the renamed info key.
        pages = descriptor["loginPages"]
        check_login_pages(pages)
        assert [field["name"] for field in pages["enrollFields"]] == ["workMailAddress"]
        assert pages["enrollFields"][0]["infoKey"] == "email" and pages["code"]["infoKey"] == "code"
        assert pages["enrollmentLabel"] == "E-mail to {workMailInfo}"
        assert pages["signInInstructions"] == "Enter the 6-digit code we sent to {workMailInfo}."
        person = user()
        start = local.call("factor.startSignIn", {
            "user": person, "enrollment": {**enrollment_of(person["email"]), "publicInfo": {}}, "info": {},
            "session": session(), "context": context()}).result
        assert "state" in start
    finally:
        assert stop_service(running) == 0


# ---------------------------------------------------------------------------------------------------------------
# Unit: the nonce cache


def test_the_nonce_cache_forgets_after_its_retention_and_is_bounded():
    clock = [1000.0]
    cache = service_module.NonceCache(retention=120, capacity=3, clock=lambda: clock[0])
    assert cache.accept("a") is None and cache.accept("a") is not None
    clock[0] += 60
    assert cache.accept("b") is None and cache.accept("c") is None
    assert "too many" in cache.accept("d")
    clock[0] += 60  # "a" is 120 s old: pruned
    assert cache.accept("a") is None and len(cache) == 3
    clock[0] += 121
    assert cache.accept("b") is None and len(cache) == 1


def test_masking():
    assert service_module.mask_email("ada@example.com") == "a***@example.com"
    assert service_module.mask_email("x@y.org") == "x***@y.org"
