"""What an OAuth test client needs on its side: a loopback redirect receiver (RFC 8252 §7.3) and a reader of the
login pages' forms, so that a login can be driven with `requests` exactly as a browser would post it."""

from __future__ import annotations

import threading
import time
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

LANDING_PAGE = (b"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Signed in</title></head>"
                b"<body><h1 id=\"landed\">Signed in. You can close this window.</h1></body></html>")


class LoopbackReceiver:
    """An HTTP server on 127.0.0.1 and a free port that records the query of every GET it receives and answers it
    with a small landing page, as a desktop or CLI app does while it waits for the authorization response.
    `redirect_uri` is the URI to send (the registered `http://127.0.0.1/callback` with this port); other paths get
    404."""

    def __init__(self):
        self.received: list[str] = []
        self.condition = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if urlsplit(self.path).path != "/callback":
                    self.send_error(404)  # a browser asks for /favicon.ico too
                    return
                with receiver.condition:
                    receiver.received.append(f"http://127.0.0.1:{receiver.port}{self.path}")
                    receiver.condition.notify_all()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(LANDING_PAGE)))
                self.end_headers()
                self.wfile.write(LANDING_PAGE)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    def wait(self, after: int, timeout: float = 10) -> str:
        """The full URL of the request that arrived after the first `after` ones."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while len(self.received) <= after:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no redirect {after + 1} reached {self.redirect_uri} within {timeout} s")
                self.condition.wait(remaining)
            return self.received[after]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def query(url: str) -> dict[str, str]:
    """The query parameters of `url` (each must appear once)."""
    pairs = parse_qsl(urlsplit(url).query, keep_blank_values=True)
    names = [name for name, _ in pairs]
    assert len(names) == len(set(names)), f"a repeated parameter in {url}"
    return dict(pairs)


class Forms(HTMLParser):
    """The forms of a page by id: `action`, `method`, the values of their hidden inputs, unchanged, and the proof of
    work they ask for (`pow`: their `data-pow-*` attributes, `bits`, `challenge`, `fields`)."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.forms: dict[str, dict] = {}
        self._current: dict | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self._current = {"action": attributes.get("action"), "method": attributes.get("method"), "hidden": {},
                             "pow": {key[len("data-pow-"):]: value for key, value in attributes.items()
                                     if key.startswith("data-pow-")}}
            self.forms[attributes.get("id", f"form-{len(self.forms) + 1}")] = self._current
        elif tag == "input" and self._current is not None and attributes.get("type") == "hidden":
            self._current["hidden"][attributes["name"]] = attributes.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self._current = None


def prove_work(form: dict, fields: dict) -> dict:
    """The `pow-nonce` the login page's script would add to `form` (docs/login-pages.md): the first nonce whose
    SHA-256 over the challenge, the typed values (trimmed, in the form's order) and the nonce starts with `bits` zero
    bits. Empty when the form asks for no proof."""
    import hashlib
    pow_ = form.get("pow") or {}
    if "bits" not in pow_:
        return {}
    bits = int(pow_["bits"])
    values = [str(fields.get(name, "")).strip() for name in pow_.get("fields", "").split()]
    prefix = (pow_["challenge"] + "\n" + "\n".join(values) + "\n").encode()
    nonce = 0
    while True:
        digest = int.from_bytes(hashlib.sha256(prefix + str(nonce).encode()).digest(), "big")
        if digest >> (256 - bits) == 0:
            return {"pow-nonce": str(nonce)}
        nonce += 1
