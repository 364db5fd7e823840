"""What the end-to-end tests share: settings from the environment and a listener client."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass, field

import requests

from rawhttp import RawConnection

TIMEOUT = float(os.environ.get("TESSERA_E2E_TIMEOUT", "10"))
JSON_HEADERS = {"Content-Type": "application/json"}

_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port nothing listens on now, never one handed out before in this process: the kernel may give the same
    free port to two probes in a row (2 of 20 000 pairs here), and a server's two listeners were once given one port
    (it refused to start)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


@dataclass
class Listener:
    """One listener of the server: its name, base URL, and the headers every RPC to it carries."""

    name: str
    url: str
    rpc_headers: dict = field(default_factory=dict)

    def rpc(self, payload, *, headers: dict | None = None, session: requests.Session | None = None):
        """POSTs payload (an object sent as JSON, or raw bytes/str sent as is) to /rpc."""
        if isinstance(payload, (bytes, str)):
            body = payload.encode() if isinstance(payload, str) else payload
        else:
            body = json.dumps(payload).encode()
        sender = session or requests
        return sender.post(
            f"{self.url}/rpc",
            data=body,
            headers={**JSON_HEADERS, **self.rpc_headers, **(headers or {})},
            timeout=TIMEOUT,
        )

    def get(self, path: str, **kwargs):
        return requests.get(f"{self.url}{path}", timeout=TIMEOUT, **kwargs)

    def raw(self) -> RawConnection:
        """A fresh raw socket connection to this listener."""
        return RawConnection(self.url, TIMEOUT)
