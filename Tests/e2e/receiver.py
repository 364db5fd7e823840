"""A webhook receiver on loopback that catches what the server delivers (API §8)."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_SMS_CODE = re.compile(r"(?<!\d)\d{6}(?!\d)")


def sms_code(body: str) -> str:
    """The 6-digit code in the body of an SMS; fails the test unless there is exactly one."""
    codes = _SMS_CODE.findall(body)
    assert len(codes) == 1, f"expected one 6-digit code in {body!r}"
    return codes[0]


class Mailbox:
    """Collects the JSON bodies POSTed to it and answers each with `status`, which a test may change (204:
    delivered; 500 makes the server retry, then fail). `wait_for(to)` returns the newest message to an address.
    Port 0 takes a free one (see `port`)."""

    def __init__(self, port: int, status: int = 204):
        self.messages: list[dict] = []
        self.status = status
        self.condition = threading.Condition()
        mailbox = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with mailbox.condition:
                    mailbox.messages.append(body)
                    mailbox.condition.notify_all()
                self.send_response(mailbox.status)
                if mailbox.status != 204:
                    self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def count(self, to: str) -> int:
        """How many messages to `to` arrived so far."""
        with self.condition:
            return sum(1 for message in self.messages if message.get("to") == to)

    def wait_for(self, to: str, timeout: float = 10, after: int = 0) -> dict:
        """The newest message to `to` once more than `after` of them arrived (so `after=count(to)` taken before a
        send waits for that send's message)."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                found = [message for message in self.messages if message.get("to") == to]
                if len(found) > after:
                    return found[-1]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no message {after + 1} to {to} within {timeout} s")
                self.condition.wait(remaining)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
