"""Factor services for the end-to-end tests of remote factors (docs/factor-protocol.md).

- `FakeFactor`: a tiny threaded factor service in this process that speaks the protocol correctly (signed requests
  checked, answers signed, `factor.describe` always right) until a test switches it to a misbehaviour: slow, down,
  malformed, oversized, wrongly signed, always `INVALID_CODE`, or a recording proxy in front of another service.
  Its codes are in `codes` (no mail involved).
- `ExampleProcess`: the example service of examples/factor-email-otp run as a subprocess, stopped with SIGTERM and
  restarted on the same port.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "factor-email-otp" / "factor_email_otp.py"
SIGNED = ("factor.startEnrollment", "factor.finalizeEnrollment", "factor.startSignIn", "factor.verifySignIn")
BEHAVIOURS = ("ok", "slow", "not-json", "no-result", "wrong-id", "unknown-reason", "http-500", "huge",
              "bad-signature", "no-signature", "invalid-code", "proxy")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_secret() -> bytes:
    return secrets.token_bytes(32)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sign_response(secret: bytes, nonce: str, body: bytes) -> str:
    message = b"tessera-factor-v1-response\n" + nonce.encode() + b"\n" + body
    return "v1=" + b64url(hmac.new(secret, message, hashlib.sha256).digest())


def request_signature_holds(secret: bytes, headers, body: bytes) -> bool:
    timestamp = headers.get("Tessera-Factor-Timestamp", "")
    nonce = headers.get("Tessera-Factor-Nonce", "")
    signature = headers.get("Tessera-Factor-Signature", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > 60:
        return False
    message = b"tessera-factor-v1\n" + timestamp.encode() + b"\n" + nonce.encode() + b"\n" + body
    expected = "v1=" + b64url(hmac.new(secret, message, hashlib.sha256).digest())
    return hmac.compare_digest(expected, signature)


class Recorded:
    """One request as the fake received it: request line, header lines in order, body."""

    def __init__(self, request_line: bytes, headers: list[tuple[str, str]], body: bytes):
        self.request_line, self.headers, self.body = request_line, headers, body

    @property
    def method(self) -> str | None:
        try:
            return json.loads(self.body).get("method")
        except ValueError:
            return None

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def raw(self) -> bytes:
        """The request again, byte for byte as far as HTTP goes: the request line, `Name: value` lines, the body."""
        head = b"".join(f"{name}: {value}\r\n".encode("latin-1") for name, value in self.headers)
        return self.request_line.rstrip(b"\r\n") + b"\r\n" + head + b"\r\n" + self.body


def send_raw(port: int, raw: bytes, timeout: float = 10) -> tuple[int, dict, bytes]:
    """Sends raw HTTP/1.1 bytes to 127.0.0.1:port; the status, headers (lower-case names) and body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(raw)
        connection.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", len(body)))
    return status, headers, body[:length]


class FakeFactor:
    """A factor service with a switchable behaviour. `url` is its endpoint; `secret` the shared secret (settable, e.g.
    to the one Tessera generated at registration). Behaviours apply to the signed methods in `methods` (default: all
    four); `factor.describe` always answers right, unsigned.

    ok              a working factor: start steps make a 6-digit code (appended to `codes`), state = the code
    slow            sleeps `delay` seconds, then answers as ok
    not-json        200 with a body that is not JSON (signed)
    no-result       200 with a JSON-RPC object without result or error (signed)
    wrong-id        a right answer with another request id (signed)
    unknown-reason  a JSON-RPC error whose reason is not one of the protocol's (signed)
    http-500        status 500 with a JSON-RPC error (signed)
    huge            a 10 MiB answer (valid JSON, signed)
    bad-signature   a right answer signed with another key
    no-signature    a right answer without Tessera-Factor-Signature
    invalid-code    the verify and finalize steps always answer INVALID_CODE
    proxy           forwards the request as received to `upstream` (a URL) and relays the answer
    Every request is recorded in `requests` (Recorded); `stop()` closes the port, `start()` opens the same one again.
    """

    def __init__(self, factor_id: str | None = None, secret: bytes | None = None):
        self.factor_id = factor_id or f"fake{secrets.token_hex(4)}"
        self.prefix = self.factor_id.replace("-", "")
        self.secret = secret or new_secret()
        self.behaviour = "ok"
        self.methods: set[str] = set(SIGNED)
        self.delay = 0.0
        self.upstream: str | None = None
        self.codes: list[str] = []
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.port = 0
        self.server: ThreadingHTTPServer | None = None
        self.start()

    # Lifecycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/rpc"

    def start(self):
        assert self.server is None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                fake._handle(self)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        self.server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self):
        """Closes the listening port: calls are refused until `start()`."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def close(self):
        self.stop()

    @contextmanager
    def behaving(self, behaviour: str, *methods: str, delay: float = 0.0):
        """Misbehaves (on `methods`, default all signed ones) inside the block, then is `ok` again."""
        self.behave(behaviour, *methods, delay=delay)
        try:
            yield self
        finally:
            self.behave("ok")

    def behave(self, behaviour: str, *methods: str, delay: float = 0.0):
        assert behaviour in BEHAVIOURS, behaviour
        with self.lock:
            self.behaviour = behaviour
            self.methods = set(methods or SIGNED)
            self.delay = delay

    def calls(self, method: str) -> int:
        with self.lock:
            return sum(1 for request in self.requests if request.method == method)

    # The descriptor and the working factor

    def member(self, suffix: str) -> str:
        return self.prefix + suffix

    def descriptor(self) -> dict:
        session = {"type": "object", "required": ["sessionInfo"], "additionalProperties": False,
                   "properties": {"sessionInfo": {"type": "string"}}}
        return {
            "protocolVersion": 1, "id": self.factor_id, "displayName": "Fake code", "amr": "otp",
            "members": {
                "enrollmentInfo": {"name": self.member("EnrollmentInfo"),
                                   "schema": {"type": "object", "additionalProperties": False, "properties": {}}},
                "enrollmentResult": {"name": self.member("SessionInfo"), "schema": session},
                "verificationInfo": {"name": self.member("VerificationInfo"), "schema": {
                    "type": "object", "required": ["sessionInfo", "code"], "additionalProperties": False,
                    "properties": {"sessionInfo": {"type": "string"}, "code": {"type": "string"}}}},
                "signInStart": {
                    "info": {"name": self.member("SignInInfo"),
                             "schema": {"type": "object", "additionalProperties": False, "properties": {}}},
                    "result": {"name": self.member("ResponseInfo"), "schema": session}},
            },
            "enrollmentLifetime": 600, "signInLifetime": 300,
        }

    def _new_code(self) -> tuple[str, str]:
        code = f"{secrets.randbelow(10**6):06d}"
        with self.lock:
            self.codes.append(code)
        return code, b64url(json.dumps({"code": code}).encode())

    def _code_matches(self, params: dict) -> bool:
        try:
            expected = json.loads(unb64url(params["state"]))["code"]
        except (KeyError, TypeError, ValueError):
            return False
        return hmac.compare_digest(str(params.get("info", {}).get("code")), expected)

    def _invalid_code(self) -> dict:
        return {"code": -32000, "message": "INVALID_CODE : The verification code is not valid.",
                "data": {"reason": "INVALID_CODE", "status": "INVALID_ARGUMENT"}}

    def _answer(self, method: str, params: dict, invalid: bool) -> tuple[str, object]:
        """("result" | "error", value) of a working factor."""
        if method == "factor.describe":
            return "result", self.descriptor()
        if method in ("factor.startEnrollment", "factor.startSignIn"):
            code, state = self._new_code()
            result = {"response": {"sessionInfo": params["session"]["sessionInfo"]}, "state": state}
            if method == "factor.startEnrollment":
                result["display"] = {"instructions": "Enter the fake code."}
            return "result", result
        if method == "factor.finalizeEnrollment":
            if invalid or not self._code_matches(params):
                return "error", self._invalid_code()
            return "result", {"publicInfo": {self.member("Info"): "fake"}, "enrollmentState": b64url(b"fake")}
        if method == "factor.verifySignIn":
            if invalid or not self._code_matches(params):
                return "error", self._invalid_code()
            return "result", {}
        return "error", {"code": -32601, "message": f"Method not found: {method}"}

    # HTTP

    def _handle(self, handler: BaseHTTPRequestHandler):
        body = handler.rfile.read(int(handler.headers.get("Content-Length", "0")))
        recorded = Recorded(handler.raw_requestline, list(handler.headers.items()), body)
        with self.lock:
            self.requests.append(recorded)
            behaviour, methods, delay, upstream = self.behaviour, set(self.methods), self.delay, self.upstream
        try:
            request = json.loads(body)
            method, request_id, params = request.get("method"), request.get("id"), request.get("params") or {}
        except (ValueError, AttributeError):
            method, request_id, params = None, None, {}
        nonce = handler.headers.get("Tessera-Factor-Nonce", "")
        if behaviour == "proxy":
            return self._proxy(handler, upstream, body)
        if method != "factor.describe" and not request_signature_holds(self.secret, handler.headers, body):
            payload = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32001, "message": "UNAUTHENTICATED : bad signature",
                "data": {"reason": "UNAUTHENTICATED"}}}).encode()
            return self._send(handler, 401, payload, sign_response(self.secret, nonce, payload))
        if method not in methods:
            behaviour = "ok"
        if behaviour == "slow":
            time.sleep(delay)
        kind, value = self._answer(method, params, behaviour == "invalid-code")
        answer = {"jsonrpc": "2.0", "id": request_id, kind: value}
        status = 200
        if behaviour == "not-json":
            payload = b"<html><body>502 Bad Gateway</body></html>"
        elif behaviour == "no-result":
            payload = json.dumps({"jsonrpc": "2.0", "id": request_id}).encode()
        elif behaviour == "wrong-id":
            payload = json.dumps({**answer, "id": f"not-{request_id}"}).encode()
        elif behaviour == "unknown-reason":
            payload = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32000, "message": "CODE_EATEN : a reason the protocol does not have",
                "data": {"reason": "CODE_EATEN"}}}).encode()
        elif behaviour == "http-500":
            status = 500
            payload = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32603, "message": "INTERNAL : boom", "data": {"reason": "INTERNAL"}}}).encode()
        elif behaviour == "huge":
            result = value if kind == "result" else {}
            payload = json.dumps({"jsonrpc": "2.0", "id": request_id,
                                  "result": {**result, "padding": "x" * (10 * 1024 * 1024)}}).encode()
        else:
            payload = json.dumps(answer).encode()
        if method == "factor.describe":
            signature = None
        elif behaviour == "bad-signature":
            signature = sign_response(new_secret(), nonce, payload)
        elif behaviour == "no-signature":
            signature = None
        else:
            signature = sign_response(self.secret, nonce, payload)
        self._send(handler, status, payload, signature)

    def _proxy(self, handler, upstream: str, body: bytes):
        headers = {name: value for name, value in handler.headers.items()
                   if name.lower() in ("content-type", "tessera-factor-timestamp", "tessera-factor-nonce",
                                       "tessera-factor-signature")}
        request = urllib.request.Request(upstream, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, payload, signature = response.status, response.read(), response.headers.get(
                    "Tessera-Factor-Signature")
        except urllib.error.HTTPError as error:
            status, payload, signature = error.code, error.read(), error.headers.get("Tessera-Factor-Signature")
        self._send(handler, status, payload, signature)

    @staticmethod
    def _send(handler, status: int, payload: bytes, signature: str | None):
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            if signature:
                handler.send_header("Tessera-Factor-Signature", signature)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True  # the caller gave up (timeout, or the answer was too big)


class ExampleProcess:
    """examples/factor-email-otp as a subprocess on a fixed port (so a restart comes back where it was), its log in
    test-output/e2e-factor-NAME.log."""

    def __init__(self, name: str, secret: bytes, webhook_url: str | None, *arguments: str):
        self.name, self.secret, self.webhook_url, self.arguments = name, secret, webhook_url, arguments
        self.port = free_port()
        self.log_path = ROOT / "test-output" / f"e2e-factor-{name}.log"
        self.log_path.parent.mkdir(exist_ok=True)
        self.secret_path = ROOT / "test-output" / f"e2e-factor-{name}.secret"
        self.secret_path.write_text(b64url(secret))
        self.secret_path.chmod(0o600)
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/rpc"

    def start(self):
        assert self.process is None or self.process.poll() is not None
        command = [sys.executable, str(EXAMPLE), "--listen", f"127.0.0.1:{self.port}",
                   "--secret-file", str(self.secret_path), *self.arguments]
        if self.webhook_url:
            command += ["--email-webhook-url", self.webhook_url]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while True:
            assert self.process.poll() is None, f"the {self.name} factor exited: {self.log()[-2000:]}"
            try:
                if requests.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, f"the {self.name} factor is not healthy: {self.log()[-2000:]}"
            time.sleep(0.05)

    def stop(self) -> int:
        """SIGTERM; the exit status (0 expected)."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the {self.name} factor did not stop within 10 s of SIGTERM")

    def describe(self) -> dict:
        answer = requests.post(self.url, json={"jsonrpc": "2.0", "id": 1, "method": "factor.describe"}, timeout=5)
        return answer.json()["result"]

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def close(self):
        self.stop()
        self.secret_path.unlink(missing_ok=True)
