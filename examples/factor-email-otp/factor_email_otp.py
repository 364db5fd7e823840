#!/usr/bin/env python3
"""An e-mail one-time-code second factor for Tessera, written against docs/factor-protocol.md (version 1) only.

It is a *factor service*: Tessera calls it over JSON-RPC 2.0 on HTTP/1.1 (`POST /rpc`), with signed requests, and
it keeps no state of its own. A start step makes a 6-digit code, mails it through an e-mail webhook (Tessera's
format, API §8) and hands Tessera a `state` that holds the address, the code's expiry and an HMAC of the code (never
the code itself); the finalize/verify step checks the user's code against that state. Tessera counts attempts,
stores sessions and issues tokens. Any number of replicas sharing the secret can serve one registration.

Standard library only (Python 3.9 or newer). See README.md next to this file.

    python3 factor_email_otp.py --listen 127.0.0.1:9201 --secret-file secret.txt \\
        --email-webhook-url http://127.0.0.1:8025/mail
"""

from __future__ import annotations

import argparse
import base64
import binascii
import collections
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PROTOCOL_VERSION = 1
MAX_BODY = 64 * 1024  # what Tessera sends is small; what it accepts back is at most 64 KiB (protocol §1)
MAX_STATE = 4096  # protocol §3
TIMESTAMP_WINDOW = 60  # protocol §2, rule 1
NONCE_RETENTION = 120  # protocol §2, rule 2
MAX_NONCES = 200_000  # bound on the nonce cache: about 1 600 signed calls a second sustained for 120 s
CODE_DIGITS = 6
ENROLLMENT_LIFETIME = 600
SIGN_IN_LIFETIME = 300
WEBHOOK_TIMEOUT = 1.5  # below Tessera's default call timeout (2 s), so a slow mail server is DELIVERY_FAILED
RESERVED_IDS = {"totp", "phone", "password", "recovery"}  # the built-in and first factors' ids
UNSIGNED_METHODS = {"factor.describe", "rpc.discover"}
OPENRPC_PATH = Path(__file__).resolve().with_name("openrpc.json")

log = logging.getLogger("factor-email-otp")


# ---------------------------------------------------------------------------------------------------------------
# Small helpers


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def unb64url(text: str) -> bytes:
    """Decodes base64url with or without padding; raises ValueError on anything else."""
    if not isinstance(text, str):
        raise ValueError("not a string")
    stripped = text.rstrip("=")
    if not _B64URL.match(stripped) or len(stripped) % 4 == 1:
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except (binascii.Error, ValueError) as error:
        raise ValueError("not base64url") from error


def parse_time(text) -> float:
    """Seconds since the epoch of an RFC 3339 time (`2026-11-25T10:00:00Z`, fractions and offsets accepted)."""
    if not isinstance(text, str) or not re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$",
                                                 text):
        raise ValueError("not an RFC 3339 time")
    moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    return moment.timestamp()


_EMAIL = re.compile(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}@"
    r"(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$"
)


def valid_email(address) -> bool:
    if not isinstance(address, str) or len(address) > 254 or not _EMAIL.match(address):
        return False
    local = address.split("@", 1)[0]
    return not (local.startswith(".") or local.endswith(".") or ".." in local)


def mask_email(address: str) -> str:
    """`ada@example.com` → `a***@example.com`: what logs and sign-in challenges show."""
    local, _, domain = address.partition("@")
    return f"{local[:1]}***@{domain}" if domain else "***"


def member_prefix(factor_id: str) -> str:
    """The prefix of the RPC member names: `email` → `email`, `work-mail` → `workMail`."""
    head, *rest = factor_id.split("-")
    return head + "".join(part[:1].upper() + part[1:] for part in rest if part)


# ---------------------------------------------------------------------------------------------------------------
# Errors


class RPCError(Exception):
    """A JSON-RPC error answer. Refusals of the protocol (§5) carry `data.reason` (and `data.status`, API §2)."""

    STATUS = {
        "INVALID_CODE": "INVALID_ARGUMENT", "INVALID_ARGUMENT": "INVALID_ARGUMENT", "MISSING_CODE": "INVALID_ARGUMENT",
        "MISSING_SESSION_INFO": "INVALID_ARGUMENT", "INVALID_EMAIL": "INVALID_ARGUMENT",
        "SECOND_FACTOR_EXISTS": "ALREADY_EXISTS", "DELIVERY_FAILED": "UNAVAILABLE",
        "UNAUTHENTICATED": "UNAUTHENTICATED", "INTERNAL": "INTERNAL",
    }

    def __init__(self, code: int, reason: str, detail: str, http_status: int = 200):
        super().__init__(detail)
        self.code = code
        self.reason = reason
        self.detail = detail
        self.http_status = http_status

    def to_json(self) -> dict:
        error = {"code": self.code, "message": f"{self.reason} : {self.detail}" if self.reason else self.detail}
        if self.reason:
            error["data"] = {"reason": self.reason, "status": self.STATUS.get(self.reason, "INVALID_ARGUMENT")}
        return error


def refusal(reason: str, detail: str) -> RPCError:
    """A refusal of the protocol's list (§5): -32602 for bad params (API §2), -32000 for the rest."""
    code = -32602 if reason == "INVALID_ARGUMENT" or reason.startswith("MISSING_") else -32000
    return RPCError(code, reason, detail)


def bad_params(detail: str) -> RPCError:
    return refusal("INVALID_ARGUMENT", detail)


def unauthenticated(detail: str) -> RPCError:
    return RPCError(-32001, "UNAUTHENTICATED", detail, http_status=401)


# ---------------------------------------------------------------------------------------------------------------
# Request authentication (protocol §2)


class NonceCache:
    """The nonces accepted in the last NONCE_RETENTION seconds, in acceptance order; bounded by MAX_NONCES."""

    def __init__(self, retention: float = NONCE_RETENTION, capacity: int = MAX_NONCES, clock=time.monotonic):
        self.retention = retention
        self.capacity = capacity
        self.clock = clock
        self.seen: dict[str, float] = {}
        self.order: collections.deque[tuple[float, str]] = collections.deque()
        self.lock = threading.Lock()

    def accept(self, nonce: str) -> str | None:
        """None when `nonce` is fresh (it is remembered from now on), else why it is refused."""
        with self.lock:
            now = self.clock()
            while self.order and now - self.order[0][0] >= self.retention:
                _, old = self.order.popleft()
                self.seen.pop(old, None)
            if nonce in self.seen:
                return "the nonce was already used"
            if len(self.seen) >= self.capacity:
                return "too many signed calls to remember their nonces; try again"
            self.seen[nonce] = now
            self.order.append((now, nonce))
            return None

    def __len__(self) -> int:
        with self.lock:
            return len(self.seen)


def request_signature(secret: bytes, timestamp: str, nonce: str, body: bytes) -> str:
    message = b"tessera-factor-v1\n" + timestamp.encode() + b"\n" + nonce.encode() + b"\n" + body
    return "v1=" + b64url(hmac.new(secret, message, hashlib.sha256).digest())


def response_signature(secret: bytes, nonce: str, body: bytes) -> str:
    message = b"tessera-factor-v1-response\n" + nonce.encode() + b"\n" + body
    return "v1=" + b64url(hmac.new(secret, message, hashlib.sha256).digest())


_NONCE = re.compile(r"^[A-Za-z0-9_-]{22}$")


def authenticate(secret: bytes, nonces: NonceCache, headers, body: bytes, wall_clock: float) -> None:
    """Raises RPCError(401) unless the request carries a fresh, valid signature (protocol §2)."""
    timestamp = headers.get("Tessera-Factor-Timestamp")
    nonce = headers.get("Tessera-Factor-Nonce")
    signature = headers.get("Tessera-Factor-Signature")
    if timestamp is None or nonce is None or signature is None:
        raise unauthenticated("the request is not signed")
    if not re.fullmatch(r"\d{1,12}", timestamp):
        raise unauthenticated("the timestamp is not a decimal integer")
    if abs(wall_clock - int(timestamp)) > TIMESTAMP_WINDOW:
        raise unauthenticated("the timestamp is too far from this service's clock")
    if not _NONCE.match(nonce):
        raise unauthenticated("the nonce is not 16 bytes of base64url")
    expected = request_signature(secret, timestamp, nonce, body)
    if not hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace")):
        raise unauthenticated("the signature does not match")
    # Only a request whose signature holds reaches the cache, so nobody without the secret can fill it.
    refused = nonces.accept(nonce)
    if refused:
        raise unauthenticated(refused)


# ---------------------------------------------------------------------------------------------------------------
# Mail


TEXTS = {
    "en": ("{issuer}: your verification code",
           "Your {issuer} verification code is {code}. It expires in {minutes} minutes.\n\n"
           "If you did not ask for it, someone may know your password: ignore this message and change it."),
    "fr": ("{issuer} : votre code de vérification",
           "Votre code de vérification {issuer} est {code}. Il expire dans {minutes} minutes.\n\n"
           "Si vous ne l'avez pas demandé, quelqu'un connaît peut-être votre mot de passe : ignorez ce message "
           "et changez-le."),
    "ja": ("{issuer}: 確認コード",
           "{issuer} の確認コードは {code} です。{minutes} 分間有効です。\n\n"
           "心当たりがない場合は、このメールを無視してパスワードを変更してください。"),
    "ru": ("{issuer}: код подтверждения",
           "Ваш код подтверждения {issuer}: {code}. Он действует {minutes} мин.\n\n"
           "Если вы его не запрашивали, проигнорируйте это письмо и смените пароль."),
}


class Mailer:
    """Delivers through an e-mail webhook (API §8 format), or, without one, logs that a mail was due (no code)."""

    def __init__(self, webhook_url: str | None, timeout: float = WEBHOOK_TIMEOUT):
        self.webhook_url = webhook_url
        self.timeout = timeout

    def send(self, *, to: str, kind: str, code: str, context: dict, lifetime: int) -> None:
        language = context.get("languageCode")
        base = language.split("-")[0].lower() if isinstance(language, str) else "en"
        if base not in TEXTS:
            base = "en"
        issuer = context.get("issuerName") if isinstance(context.get("issuerName"), str) else "Tessera"
        subject, text = TEXTS[base]
        minutes = max(1, lifetime // 60)
        message = {"to": to, "subject": subject.format(issuer=issuer),
                   "text": text.format(issuer=issuer, code=code, minutes=minutes),
                   "kind": kind, "link": None, "languageCode": base}
        if isinstance(context.get("tenantId"), str):
            message["tenantId"] = context["tenantId"]
        if not self.webhook_url:
            log.warning("mail kind=%s to=%s not delivered: no --email-webhook-url (the code is never logged)",
                        kind, mask_email(to))
            return
        request = urllib.request.Request(self.webhook_url, data=json.dumps(message).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                answer.read(4096)
        except urllib.error.HTTPError as error:
            log.warning("mail kind=%s to=%s refused by the webhook: HTTP %s", kind, mask_email(to), error.code)
            raise refusal("DELIVERY_FAILED", "the e-mail could not be delivered") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            log.warning("mail kind=%s to=%s not delivered: %s", kind, mask_email(to), type(reason).__name__)
            raise refusal("DELIVERY_FAILED", "the e-mail could not be delivered") from None
        log.info("mail kind=%s to=%s delivered", kind, mask_email(to))


# ---------------------------------------------------------------------------------------------------------------
# The factor


def _object(params: dict, name: str, required: bool = True) -> dict | None:
    value = params.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, dict):
        raise bad_params(f"{name} must be an object")
    return value


class EmailFactor:
    """The five methods of the protocol (§4) plus rpc.discover. Holds no per-user state."""

    def __init__(self, secret: bytes, mailer: Mailer, factor_id: str = "email", code_lifetime: int = 300,
                 own_address_only: bool = False):
        self.factor_id = factor_id
        self.prefix = member_prefix(factor_id)
        self.code_lifetime = code_lifetime
        self.own_address_only = own_address_only
        self.mailer = mailer
        # A key of its own for the code digests, derived from the shared secret: every replica has it, Tessera
        # (which keeps the states) does not use it, and a 6-digit code cannot be brute-forced from a state.
        self.digest_key = hmac.new(secret, b"factor-email-otp code digest v1", hashlib.sha256).digest()
        self.openrpc = self._load_openrpc()

    # Names

    def member(self, suffix: str) -> str:
        return self.prefix + suffix

    @property
    def info_member(self) -> str:
        return self.member("Info")  # publicInfo / maskedInfo key: emailInfo

    # Discovery

    def describe(self) -> dict:
        schemas = self.openrpc["components"]["schemas"]
        return {
            "protocolVersion": PROTOCOL_VERSION, "id": self.factor_id, "displayName": "E-mail code", "amr": "otp",
            "members": {
                "enrollmentInfo": {"name": self.member("EnrollmentInfo"), "schema": schemas["EnrollmentInfo"]},
                "enrollmentResult": {"name": self.member("SessionInfo"), "schema": schemas["SessionInfo"]},
                "verificationInfo": {"name": self.member("VerificationInfo"), "schema": schemas["VerificationInfo"]},
                "signInStart": {
                    "info": {"name": self.member("SignInInfo"), "schema": schemas["SignInInfo"]},
                    "result": {"name": self.member("ResponseInfo"), "schema": schemas["SessionInfo"]},
                },
            },
            "enrollmentLifetime": ENROLLMENT_LIFETIME, "signInLifetime": SIGN_IN_LIFETIME,
            "loginPages": self.login_pages(),
        }

    @property
    def address_field(self) -> str:
        """The name of the enrolment page's address field (`emailAddress`, `workMailAddress`): field names must
        differ between the factors of one server, since every enrolment form shares one page."""
        return self.member("Address")

    def login_pages(self) -> dict:
        """How Tessera's login pages drive this factor (`FactorLoginPages`, docs/login-pages.md): the enrolment
        button and the optional address field, the code field bound to `code` of the verification info, a resend
        control, and how an enrolment is named, from its masked public info (`E-mail to a***@example.com`).

        The address field is optional, as `email` of the enrolment info is: left empty, the code goes to the
        account's own address. With --own-address-only there is nothing to type, so there is no field. The
        enrolment page takes its instructions from this service's `display` (they name the masked address the code
        went to, whichever it was), so there is no `enrollInstructions`: a template over an optional field would
        read "sent to ." when it is left empty."""
        fields = [] if self.own_address_only else [{
            "name": self.address_field, "label": "E-mail address", "inputType": "email", "autocomplete": "email",
            "hint": "Leave it empty to use the address you sign in with.", "required": False, "infoKey": "email",
        }]
        return {
            "enrollButton": "Send a code by e-mail",
            "enrollFields": fields,
            "enrollTitle": "Confirm your e-mail address",
            "enrollmentLabel": f"E-mail to {{{self.info_member}}}",
            "signInInstructions": f"Enter the {CODE_DIGITS}-digit code we sent to {{{self.info_member}}}.",
            "code": {"infoKey": "code", "label": "Code from the e-mail", "length": CODE_DIGITS},
            "resend": True,
        }

    def discover(self) -> dict:
        return self.openrpc

    def _load_openrpc(self) -> dict:
        document = json.loads(OPENRPC_PATH.read_text(encoding="utf-8"))
        if self.prefix == "email":
            return document

        def renamed(value):
            if isinstance(value, dict):
                return {renamed(key): renamed(member) for key, member in value.items()}
            if isinstance(value, list):
                return [renamed(member) for member in value]
            if isinstance(value, str) and re.fullmatch(r"email[A-Z][A-Za-z]*", value):
                return self.prefix + value[len("email"):]
            return value

        return renamed(document)

    # State: {"v", "k" (kind), "a" (address), "x" (expiry, epoch seconds), "d" (digest)}, JSON, base64url.

    def _digest(self, kind: str, user: dict, address: str, session_info: str, expiry: int, code: str) -> str:
        fields = ["v1", kind, str(user.get("tenantId") or ""), str(user.get("localId") or ""), address.lower(),
                  session_info, str(expiry), code]
        message = "\n".join(fields).encode("utf-8")
        return b64url(hmac.new(self.digest_key, message, hashlib.sha256).digest())

    def _make_state(self, kind: str, user: dict, address: str, session_info: str, now: float) -> tuple[str, str]:
        code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
        expiry = int(now) + self.code_lifetime
        state = {"v": 1, "k": kind, "a": address, "x": expiry,
                 "d": self._digest(kind, user, address, session_info, expiry, code)}
        encoded = json.dumps(state, separators=(",", ":")).encode()
        if len(encoded) > MAX_STATE:
            raise bad_params("the address is too long")
        return b64url(encoded), code

    def _check_code(self, kind: str, user: dict, state_text, session_info: str, code: str, now: float) -> str:
        """The address of a state whose code is `code` and not expired at `now`; else INVALID_CODE."""
        if state_text is None:
            raise bad_params("state is missing: this factor has a start step")
        try:
            state = json.loads(unb64url(state_text))
            assert isinstance(state, dict) and state.get("v") == 1
            address, expiry, digest = state["a"], state["x"], state["d"]
            assert isinstance(address, str) and isinstance(expiry, int) and isinstance(digest, str)
        except (ValueError, AssertionError, KeyError, TypeError):
            raise bad_params("state is not a state of this factor") from None
        if state.get("k") != kind:
            raise bad_params("state is not a state of this step")
        expected = self._digest(kind, user, address, session_info, expiry, code)
        matches = hmac.compare_digest(expected.encode(), digest.encode("utf-8", "replace"))
        if now >= expiry:
            raise refusal("INVALID_CODE", "the verification code has expired; ask for a new one")
        if not matches:
            raise refusal("INVALID_CODE", "the verification code is not valid")
        return address

    # Common params

    def _context(self, params: dict) -> tuple[dict, float]:
        context = _object(params, "context")
        try:
            return context, parse_time(context.get("now"))
        except ValueError:
            raise bad_params("context.now must be an RFC 3339 time") from None

    def _user(self, params: dict) -> dict:
        user = _object(params, "user")
        if not isinstance(user.get("localId"), str):
            raise bad_params("user.localId must be a string")
        return user

    def _session_info(self, params: dict, info: dict) -> str:
        """The sessionInfo Tessera opened for the start step: `session.sessionInfo` where the call has a `session`,
        else the one the client sent back in its verificationInfo."""
        session = params.get("session")
        if session is not None:
            if not isinstance(session, dict) or not isinstance(session.get("sessionInfo"), str):
                raise bad_params("session.sessionInfo must be a string")
            return session["sessionInfo"]
        value = info.get("sessionInfo")
        if value is None:
            raise refusal("MISSING_SESSION_INFO", "sessionInfo is missing")
        if not isinstance(value, str):
            raise bad_params("sessionInfo must be a string")
        return value

    def _verification(self, params: dict) -> tuple[dict, str]:
        info = _object(params, "info")
        unknown = set(info) - {"sessionInfo", "code"}
        if unknown:
            raise bad_params(f"unknown member {sorted(unknown)[0]} of {self.member('VerificationInfo')}")
        if "sessionInfo" in info and not isinstance(info["sessionInfo"], str):
            raise bad_params("sessionInfo must be a string")
        code = info.get("code")
        if code is None or code == "":
            raise refusal("MISSING_CODE", "code is missing")
        if not isinstance(code, str):
            raise bad_params("code must be a string")
        return info, code

    def _enrolled_addresses(self, params: dict) -> set[str]:
        enrollments = params.get("enrollments", [])
        if not isinstance(enrollments, list):
            raise bad_params("enrollments must be an array")
        addresses = set()
        for enrollment in enrollments:
            public = enrollment.get("publicInfo") if isinstance(enrollment, dict) else None
            address = public.get(self.info_member) if isinstance(public, dict) else None
            if isinstance(address, str):
                addresses.add(address.lower())
        return addresses

    def _enrollment_address(self, params: dict) -> str:
        enrollment = _object(params, "enrollment")
        state = enrollment.get("enrollmentState")
        address = None
        if isinstance(state, str):
            try:
                address = unb64url(state).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                address = None
        if address is None:
            public = enrollment.get("publicInfo")
            address = public.get(self.info_member) if isinstance(public, dict) else None
        if not valid_email(address):
            raise bad_params("the enrolment holds no e-mail address")
        return address

    # Methods (protocol §4)

    def start_enrollment(self, params: dict) -> dict:
        user, (context, now) = self._user(params), self._context(params)
        info = _object(params, "info")
        unknown = set(info) - {"email"}
        if unknown:
            raise bad_params(f"unknown member {sorted(unknown)[0]} of {self.member('EnrollmentInfo')}")
        session_info = self._session_info(params, {})
        own = user.get("email") if isinstance(user.get("email"), str) else None
        address = info.get("email", own)
        if address is None:
            raise refusal("INVALID_EMAIL", "the user has no e-mail address: give one in email")
        if not valid_email(address):
            raise refusal("INVALID_EMAIL", "email is not a valid e-mail address")
        if self.own_address_only and not (own and user.get("emailVerified") is True
                                          and address.lower() == own.lower()):
            raise refusal("INVALID_EMAIL", "only the account's own verified e-mail address can be enrolled")
        if address.lower() in self._enrolled_addresses(params):
            raise refusal("SECOND_FACTOR_EXISTS", "this e-mail address is already a second factor of the user")
        state, code = self._make_state("enroll", user, address, session_info, now)
        self.mailer.send(to=address, kind="mfa_enrollment", code=code, context=context, lifetime=self.code_lifetime)
        masked = mask_email(address)
        return {"response": {"sessionInfo": session_info}, "state": state,
                "display": {"instructions": f"We sent a {CODE_DIGITS}-digit code to {masked}. "
                                            f"Enter it to add this address as a second factor."}}

    def finalize_enrollment(self, params: dict) -> dict:
        user, (_, now) = self._user(params), self._context(params)
        info, code = self._verification(params)
        session_info = self._session_info(params, info)
        address = self._check_code("enroll", user, params.get("state"), session_info, code, now)
        if address.lower() in self._enrolled_addresses(params):
            raise refusal("SECOND_FACTOR_EXISTS", "this e-mail address is already a second factor of the user")
        return {"publicInfo": {self.info_member: address},
                "maskedInfo": {self.info_member: mask_email(address)},
                "enrollmentState": b64url(address.encode("utf-8")),
                "uniqueKey": address.lower()}

    def start_sign_in(self, params: dict) -> dict:
        user, (context, now) = self._user(params), self._context(params)
        info = _object(params, "info", required=False) or {}
        if info:
            raise bad_params(f"{self.member('SignInInfo')} takes no members")
        address = self._enrollment_address(params)
        session_info = self._session_info(params, {})
        state, code = self._make_state("sign-in", user, address, session_info, now)
        self.mailer.send(to=address, kind="mfa_sign_in", code=code, context=context, lifetime=self.code_lifetime)
        return {"response": {"sessionInfo": session_info}, "state": state}

    def verify_sign_in(self, params: dict) -> dict:
        user, (_, now) = self._user(params), self._context(params)
        info, code = self._verification(params)
        address = self._enrollment_address(params)
        session_info = self._session_info(params, info)
        checked = self._check_code("sign-in", user, params.get("state"), session_info, code, now)
        if checked.lower() != address.lower():
            raise refusal("INVALID_CODE", "the verification code is not valid")
        return {}

    def dispatch(self, method: str, params) -> dict:
        if method == "factor.describe":
            return self.describe()
        if method == "rpc.discover":
            return self.discover()
        handlers = {"factor.startEnrollment": self.start_enrollment,
                    "factor.finalizeEnrollment": self.finalize_enrollment,
                    "factor.startSignIn": self.start_sign_in,
                    "factor.verifySignIn": self.verify_sign_in}
        handler = handlers.get(method)
        if handler is None:
            raise RPCError(-32601, "", f"Method not found: {method}")
        if not isinstance(params, dict):
            raise bad_params("params must be an object")
        return handler(params)


# ---------------------------------------------------------------------------------------------------------------
# HTTP


class FactorServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, factor: EmailFactor, secret: bytes, nonces: NonceCache | None = None):
        self.factor = factor
        self.secret = secret
        self.nonces = nonces or NonceCache()
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # an idle keep-alive connection is closed after this many seconds
    server: FactorServer

    def version_string(self):
        return "factor-email-otp"

    def log_message(self, format, *args):  # noqa: A002 - the standard library's name
        pass  # one line per call is written by handle_rpc; the default line would repeat it

    # Plain HTTP

    def _send(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8",
              headers: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _route(self):
        path = urllib.parse.urlsplit(self.path).path
        if path not in ("/rpc", "/healthz"):
            self._drain()
            return self._send(404, b"not found\n")
        wanted = "POST" if path == "/rpc" else "GET"
        if self.command != wanted:
            self._drain()
            return self._send(405, b"method not allowed\n", headers={"Allow": wanted})
        if path == "/healthz":
            return self._send(200, b"ok")
        return self.handle_rpc()

    def _drain(self):
        """Reads a small body we do not want, so the connection stays usable; closes it after a big one."""
        length = self.headers.get("Content-Length")
        if length and length.isdigit() and int(length) <= MAX_BODY:
            self.rfile.read(int(length))
        elif length or self.headers.get("Transfer-Encoding"):
            self.close_connection = True

    def do_GET(self):
        self._route()

    def do_POST(self):
        self._route()

    do_HEAD = do_GET
    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST

    # JSON-RPC

    def handle_rpc(self):
        started = time.monotonic()
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            return self._send(411, b"send a Content-Length\n")
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self.close_connection = True
            return self._send(411, b"send a Content-Length\n")
        if int(length) > MAX_BODY:
            self.close_connection = True
            return self._send(413, b"request body too large\n")
        body = self.rfile.read(int(length))

        request = None
        try:
            request = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            pass
        method = request.get("method") if isinstance(request, dict) else None
        request_id = request.get("id") if isinstance(request, dict) else None
        if not isinstance(request_id, (str, int, float)) or isinstance(request_id, bool):
            request_id = None
        signed = method not in UNSIGNED_METHODS
        nonce = self.headers.get("Tessera-Factor-Nonce")

        http_status, outcome = 200, "ok"
        try:
            if signed:
                authenticate(self.server.secret, self.server.nonces, self.headers, body, time.time())
            if request is None:
                raise RPCError(-32700, "", "Parse error: the body is not JSON")
            if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(method, str) \
                    or "id" not in request or (request["id"] is not None and request_id is None):
                raise RPCError(-32600, "", "Invalid Request: one JSON-RPC 2.0 request object with an id")
            params = request.get("params", {})
            answer = {"jsonrpc": "2.0", "id": request_id, "result": self.server.factor.dispatch(method, params)}
        except RPCError as error:
            http_status = error.http_status
            outcome = error.reason or str(error.code)
            answer = {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}
        except Exception:  # a bug: the details go to the log, never to the caller
            log.exception("method=%s failed", method if isinstance(method, str) else "?")
            outcome = "INTERNAL"
            answer = {"jsonrpc": "2.0", "id": request_id,
                      "error": RPCError(-32603, "INTERNAL", "internal error").to_json()}

        payload = json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        headers = {}
        if signed:
            # Every answer to a signed call is signed with the request's nonce (protocol §2), refusals included.
            headers["Tessera-Factor-Signature"] = response_signature(self.server.secret, nonce or "", payload)
        self._send(http_status, payload, "application/json", headers)
        shown = method if isinstance(method, str) and re.fullmatch(r"[A-Za-z.]{1,40}", method) else "?"
        log.info("rpc method=%s outcome=%s status=%d ms=%d", shown, outcome, http_status,
                 (time.monotonic() - started) * 1000)


# ---------------------------------------------------------------------------------------------------------------
# Command line


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line on stderr, exit 2 (not argparse's usage block)
        raise ArgumentError(message)


def parse_listen(text: str) -> tuple[str, int]:
    match = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\]:(\d{1,5})|([^:\[\]]+):(\d{1,5})", text)
    if not match:
        raise ArgumentError(f"--listen must be HOST:PORT, got {text!r}")
    host = match.group(1) or match.group(3)
    port = int(match.group(2) or match.group(4))
    if port > 65535:
        raise ArgumentError(f"--listen port must be 0-65535, got {port}")
    return host, port


def read_secret(path: str | None, environment) -> bytes:
    if path:
        try:
            text = Path(path).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise ArgumentError(f"cannot read --secret-file {path}: {getattr(error, 'strerror', None) or error}")
        source = f"--secret-file {path}"
    elif environment.get("FACTOR_SECRET"):
        text, source = environment["FACTOR_SECRET"].strip(), "FACTOR_SECRET"
    else:
        raise ArgumentError("a secret is required: --secret-file PATH or the FACTOR_SECRET environment variable")
    try:
        secret = unb64url(text)
    except ValueError:
        raise ArgumentError(f"{source} must hold base64url text (32 bytes decoded)") from None
    if len(secret) != 32:
        raise ArgumentError(f"{source} must decode to 32 bytes, got {len(secret)}")
    return secret


def parse_arguments(argv, environment):
    parser = Parser(prog="factor_email_otp.py", description="An e-mail one-time-code factor service for Tessera.")
    parser.add_argument("--listen", default="127.0.0.1:9201", help="HOST:PORT to listen on (port 0: any free one)")
    parser.add_argument("--secret-file", help="file holding the shared secret (base64url, 32 bytes); "
                                              "default: the FACTOR_SECRET environment variable")
    parser.add_argument("--email-webhook-url", help="where mail is POSTed (Tessera's e-mail webhook format); "
                                                    "without it mail is only logged, without the code")
    parser.add_argument("--factor-id", default="email", help="the factor id (default email)")
    parser.add_argument("--code-lifetime", default="300", help="seconds a code is valid, 30-3600 (default 300)")
    parser.add_argument("--own-address-only", action="store_true",
                        help="enrol only the account's own verified e-mail address")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    arguments = parser.parse_args(argv)
    arguments.listen = parse_listen(arguments.listen)
    if not re.fullmatch(r"[a-z0-9-]{1,32}", arguments.factor_id) or arguments.factor_id in RESERVED_IDS \
            or arguments.factor_id.startswith("-") or arguments.factor_id.endswith("-") \
            or not arguments.factor_id[0].isalpha():
        raise ArgumentError("--factor-id must be 1-32 characters of a-z, 0-9 and inner '-', start with a letter, "
                            "and not be totp, phone, password or recovery")
    if not re.fullmatch(r"\d{1,4}", arguments.code_lifetime) or not 30 <= int(arguments.code_lifetime) <= 3600:
        raise ArgumentError(f"--code-lifetime must be a whole number of seconds from 30 to 3600, "
                            f"got {arguments.code_lifetime!r}")
    arguments.code_lifetime = int(arguments.code_lifetime)
    if arguments.email_webhook_url is not None:
        parts = urllib.parse.urlsplit(arguments.email_webhook_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ArgumentError(f"--email-webhook-url must be an http(s) URL, got {arguments.email_webhook_url!r}")
    arguments.secret = read_secret(arguments.secret_file, environment)
    return arguments


def main(argv=None, environment=None) -> int:
    environment = os.environ if environment is None else environment
    try:
        arguments = parse_arguments(sys.argv[1:] if argv is None else argv, environment)
    except ArgumentError as error:
        print(f"factor_email_otp.py: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(level=arguments.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    factor = EmailFactor(arguments.secret, Mailer(arguments.email_webhook_url), arguments.factor_id,
                         arguments.code_lifetime, arguments.own_address_only)
    try:
        server = FactorServer(arguments.listen, factor, arguments.secret)
    except OSError as error:
        print(f"factor_email_otp.py: cannot listen on {arguments.listen[0]}:{arguments.listen[1]}: "
              f"{error.strerror or error}", file=sys.stderr)
        return 2

    def stop(signum, _frame):
        log.info("%s: stopping", signal.Signals(signum).name)
        # shutdown() waits for serve_forever() to return, which runs on this (the main) thread: ask from another.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.server_address[:2]
    if not arguments.email_webhook_url:
        log.warning("no --email-webhook-url: mail is logged (address masked, without the code), not delivered")
    log.info("factor %s listening on %s:%d (POST /rpc, GET /healthz)", arguments.factor_id,
             f"[{host}]" if ":" in host else host, port)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
