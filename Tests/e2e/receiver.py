"""A webhook receiver on loopback that catches what the server delivers (API §8)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Mailbox:
    """Collects the JSON bodies POSTed to it; `wait_for(to)` returns the newest message to an address."""

    def __init__(self, port: int):
        self.messages: list[dict] = []
        self.condition = threading.Condition()
        mailbox = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with mailbox.condition:
                    mailbox.messages.append(body)
                    mailbox.condition.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, to: str, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                found = [message for message in self.messages if message.get("to") == to]
                if found:
                    return found[-1]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no message to {to} within {timeout} s")
                self.condition.wait(remaining)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
