"""What the end-to-end tests share: settings from the environment and a listener client."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import requests

from rawhttp import RawConnection

TIMEOUT = float(os.environ.get("TESSERA_E2E_TIMEOUT", "10"))
JSON_HEADERS = {"Content-Type": "application/json"}


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
