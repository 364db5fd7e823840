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
    """The forms of a page by id: `action`, `method` and the values of their hidden inputs, unchanged."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.forms: dict[str, dict] = {}
        self._current: dict | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self._current = {"action": attributes.get("action"), "method": attributes.get("method"), "hidden": {}}
            self.forms[attributes.get("id", f"form-{len(self.forms) + 1}")] = self._current
        elif tag == "input" and self._current is not None and attributes.get("type") == "hidden":
            self._current["hidden"][attributes["name"]] = attributes.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self._current = None
