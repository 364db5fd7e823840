#!/usr/bin/env python3
"""The first five minutes with Tessera (make demo): a demo tenant, user and public client on a development server,
an authorization URL to open in a browser, and the command that turns the code it brings back into tokens.

It only talks to a server on this machine (loopback addresses), through the admin JSON-RPC API with the
development admin key. Running it again reuses the tenant, the user (with a new password) and the client. It
listens on a loopback port for the redirect, shows the code in the browser, and prints a ready `curl` line. With
--mail-port it is also the server's e-mail webhook: it prints every mail (a password-reset link, say) and keeps
doing so after the code came back, until interrupted.

Standard library only. Exit status 2 with one line on bad arguments or a server that is not local.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.server
import ipaddress
import json
import secrets
import shlex
import signal
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

TENANT_NAME = "Tessera demo"
CLIENT_NAME = "Tessera demo app"
EMAIL = "demo@example.com"
REDIRECT_URI = "http://127.0.0.1/callback"
SCOPE = "openid email profile offline_access"


class DemoError(Exception):
    """A failure to report in one line."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Admin:
    """The admin JSON-RPC API."""

    def __init__(self, url: str, key: str):
        self.url = url.rstrip("/") + "/rpc"
        self.key = key

    def call(self, method: str, params: dict):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
        request = urllib.request.Request(self.url, data=body, headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.key}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                reply = json.load(answer)
        except urllib.error.HTTPError as failure:
            reply = json.load(failure)
        except OSError as failure:
            raise DemoError(f"the admin listener at {self.url} does not answer: {failure}") from failure
        if "error" in reply:
            error = reply["error"]
            raise RPCFailure(method, (error.get("data") or {}).get("reason", ""), error.get("message", ""))
        return reply["result"]

    def pages(self, method: str, params: dict, member: str):
        token = None
        while True:
            page = self.call(method, {**params, "pageSize": 100, **({"pageToken": token} if token else {})})
            yield from page.get(member, [])
            token = page.get("nextPageToken")
            if not token:
                return


class RPCFailure(DemoError):
    def __init__(self, method: str, reason: str, message: str):
        super().__init__(f"{method} failed: {reason or message}")
        self.reason = reason


def set_up(admin: Admin) -> tuple[str, str, str]:
    """The demo tenant, a fresh password for its user, and its client: (tenant id, password, client id)."""
    tenant = next((t["tenantId"] for t in admin.pages("tenants.list", {}, "tenants")
                   if t.get("displayName") == TENANT_NAME), None)
    if tenant is None:
        tenant = admin.call("tenants.create", {"tenant": {"displayName": TENANT_NAME}})["tenantId"]
    password = "demo-" + secrets.token_urlsafe(9)
    try:
        admin.call("users.create", {"tenantId": tenant, "email": EMAIL, "password": password,
                                    "emailVerified": True, "displayName": "Demo User"})
    except RPCFailure as failure:
        if failure.reason != "EMAIL_EXISTS":
            raise
        user = admin.call("users.get", {"tenantId": tenant, "email": EMAIL})
        admin.call("users.update", {"tenantId": tenant, "localId": user["localId"], "password": password,
                                    "disabled": False})
    client = next((c["clientId"] for c in admin.pages("oauthClients.list", {"tenantId": tenant}, "clients")
                   if c.get("clientName") == CLIENT_NAME), None)
    if client is None:
        client = admin.call("oauthClients.create", {"tenantId": tenant, "client": {
            "clientName": CLIENT_NAME, "type": "public", "redirectUris": [REDIRECT_URI],
            "postLogoutRedirectUris": [REDIRECT_URI]}})["clientId"]
    return tenant, password, client


def token_command(public: str, client: str, redirect_uri: str, verifier: str, code: str) -> str:
    """The curl line that redeems `code`."""
    fields = {"grant_type": "authorization_code", "client_id": client, "redirect_uri": redirect_uri,
              "code_verifier": verifier, "code": code}
    data = " ".join(f"--data-urlencode {shlex.quote(f'{name}={value}')}" for name, value in fields.items())
    return f"curl -s {shlex.quote(public + '/oauth2/token')} {data}"


def redirect_receiver(port: int, state: str) -> tuple[http.server.HTTPServer, list[str]]:
    """A server for the loopback redirect, on `port` (0: any), and the list it puts the code in once a request
    brings one with `state`."""
    received: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            code = query.get("code", [""])[0]
            if urllib.parse.urlsplit(self.path).path != "/callback" or query.get("state", [""])[0] != state:
                self.answer(400, "This is not the redirect the demo is waiting for.")
            elif not code:
                self.answer(400, "No code: " + query.get("error", ["unknown error"])[0])
            else:
                received.append(code)
                self.answer(200, "Signed in. The code is in the terminal; turn it into tokens there.")

        def answer(self, status: int, text: str):
            body = f"<!doctype html><title>Tessera demo</title><p>{text}</p>".encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", port), Handler)
    return server, received


def mail_printer(port: int) -> http.server.ThreadingHTTPServer:
    """The e-mail webhook on `port`: prints each mail's recipient, subject and link."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            try:
                mail = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                print(f"\n[mail to {mail['to']}] {mail['subject']}\n  {mail['link']}\n", flush=True)
                self.send_response(204)
            except (ValueError, KeyError, TypeError):
                self.send_response(400)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--public", required=True, help="the public listener's URL (http://127.0.0.1:8080)")
    parser.add_argument("--admin", required=True, help="the admin listener's URL (http://127.0.0.1:8081)")
    parser.add_argument("--admin-key-file", required=True, help="the file holding the admin key")
    parser.add_argument("--port", type=int, default=0, help="the loopback port of the redirect (default: any)")
    parser.add_argument("--mail-port", type=int, help="serve the server's e-mail webhook on this loopback port")
    arguments = parser.parse_args()
    for url in (arguments.public, arguments.admin):
        if not is_loopback(url):
            print(f"demo.py: {url} is not on this machine; the demo only runs against a development server",
                  file=sys.stderr)
            return 2
    try:
        with open(arguments.admin_key_file, encoding="utf-8") as file:
            key = file.read().strip()
    except OSError as failure:
        print(f"demo.py: cannot read the admin key: {failure.strerror}", file=sys.stderr)
        return 2
    public = arguments.public.rstrip("/")
    mail = mail_printer(arguments.mail_port) if arguments.mail_port else None
    try:
        tenant, password, client = set_up(Admin(arguments.admin, key))
    except DemoError as failure:
        print(f"demo.py: {failure}", file=sys.stderr)
        return 1

    server, received = redirect_receiver(arguments.port, state := b64url(secrets.token_bytes(16)))
    redirect_uri = f"http://127.0.0.1:{server.server_address[1]}/callback"
    verifier = b64url(secrets.token_bytes(32))
    authorize = public + "/oauth2/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client, "redirect_uri": redirect_uri, "scope": SCOPE,
        "state": state, "nonce": b64url(secrets.token_bytes(16)),
        "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256"})
    print(f"""
Tessera demo (development only)
  tenant    {TENANT_NAME} ({tenant})
  client    {CLIENT_NAME} ({client}), public, PKCE
  user      {EMAIL}
  password  {password}

1. Open this URL in a browser and sign in as {EMAIL}:

{authorize}

2. Waiting for the browser to come back to {redirect_uri} ...""", flush=True)
    with server:
        try:
            while not received:
                server.handle_request()
        except KeyboardInterrupt:
            return 0
    print(f"""
3. The code came back. Turn it into tokens (within 60 seconds; it works once):

{token_command(public, client, redirect_uri, verifier, received[0])}

To sign out of the browser afterwards, open {public}/oauth2/logout?client_id={client}
""", flush=True)
    if mail:
        print("Mails the server sends are printed here. Stop with Ctrl-C.", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            mail.shutdown()
    return 0


def stop(*_):
    """Ctrl-C or SIGTERM: stop waiting (also when the shell that started the demo made it ignore SIGINT)."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    sys.exit(main())
