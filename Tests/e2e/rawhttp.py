"""A small HTTP/1.1 client over a plain socket, for what `requests` cannot do:
pipelined requests, malformed requests, and headers that promise a body never sent."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit


class ConnectionClosed(Exception):
    """The server closed the connection before a whole response arrived."""


@dataclass
class RawResponse:
    """One parsed response; header names are lower-cased, repeated headers joined by ", "."""

    status: int
    reason: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""


class RawConnection:
    """One TCP connection to the host and port of a base URL such as http://127.0.0.1:8080."""

    def __init__(self, base_url: str, timeout: float):
        parts = urlsplit(base_url)
        if parts.hostname is None or parts.port is None:
            raise ValueError(f"a base URL with host and port is needed, not {base_url!r}")
        self.host_header = f"{parts.hostname}:{parts.port}"
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self.buffer = b""

    def __enter__(self) -> "RawConnection":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_response(self) -> RawResponse:
        """Reads exactly one response, leaving anything after it for the next call."""
        head = self._read_until(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        if not version.startswith("HTTP/1."):
            raise ValueError(f"not an HTTP/1.x status line: {lines[0]!r}")
        code, _, reason = rest.partition(" ")
        status = int(code)
        headers: dict = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            value = value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        if 100 <= status < 200 or status in (204, 304):
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body = self._read_chunked()
        elif "content-length" in headers:
            body = self._read_exactly(int(headers["content-length"]))
        else:
            body = self._read_to_close()
        return RawResponse(status=status, reason=reason, headers=headers, body=body)

    def is_closed_by_peer(self) -> bool:
        """True when the server has closed its side (reads end), False when it waits for more."""
        if self.buffer:
            return False
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def _receive(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionClosed("the server closed the connection")
        self.buffer += data

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._receive()
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def _read_exactly(self, count: int) -> bytes:
        while len(self.buffer) < count:
            self._receive()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _read_chunked(self) -> bytes:
        body = b""
        while True:
            size = int(self._read_until(b"\r\n").split(b";")[0], 16)
            if size == 0:
                self._read_until(b"\r\n")
                return body
            body += self._read_exactly(size)
            self._read_exactly(2)

    def _read_to_close(self) -> bytes:
        try:
            while True:
                self._receive()
        except ConnectionClosed:
            data, self.buffer = self.buffer, b""
            return data


def request_bytes(method: str, path: str, host: str, body: bytes = b"", headers: dict | None = None) -> bytes:
    """Serializes one HTTP/1.1 request; Content-Length is added when there is a body."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
