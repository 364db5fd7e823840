"""JSON-RPC helpers for the identity tests: calls that return the result or raise with the reason."""

from __future__ import annotations

import base64
import itertools
import json
import os
import secrets
import subprocess
import time

import pytest

_ids = itertools.count(1)

# Admin methods whose change each server keeps in a cache until the change notice reaches it (docs/operations.md,
# "What each server caches, and how fresh it is"): the configuration, the OAuth clients and the signing keys.
_CACHED_CHANGES = {"tenants.create", "tenants.update", "tenants.delete", "projects.updateConfig",
                   "oauthClients.create", "oauthClients.update", "oauthClients.delete", "oauthClients.rotateSecret",
                   "keys.rotate"}
# Through a load balancer (make fleet-test), the request after such a change may reach another server before its
# notice does, which the contract allows: a change applies on every server when its notice arrives. The fleet test
# sets TESSERA_E2E_CHANGE_SETTLE to the seconds to wait after each such change (notices take milliseconds).
_CHANGE_SETTLE = float(os.environ.get("TESSERA_E2E_CHANGE_SETTLE", "0"))


class RPCFailure(Exception):
    """A JSON-RPC error answer: `reason`, `status`, `code`, `retry_after`, `message`."""

    def __init__(self, error: dict):
        data = error.get("data", {})
        self.reason = data.get("reason")
        self.status = data.get("status")
        self.code = error.get("code")
        self.retry_after = data.get("retryAfter")
        self.message = error.get("message")
        super().__init__(self.message)


def call(listener, method: str, params: dict | None = None, *, headers: dict | None = None):
    """The result of `method`, or RPCFailure."""
    payload = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
    if params is not None:
        payload["params"] = params
    response = listener.rpc(payload, headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    if "error" in body:
        raise RPCFailure(body["error"])
    if _CHANGE_SETTLE and method in _CACHED_CHANGES:
        time.sleep(_CHANGE_SETTLE)
    return body["result"]


def reason_of(listener, method: str, params: dict | None = None, *, headers: dict | None = None) -> str:
    """The reason `method` fails with; fails the test when it succeeds."""
    try:
        result = call(listener, method, params, headers=headers)
    except RPCFailure as failure:
        return failure.reason
    raise AssertionError(f"{method} succeeded: {result}")


def failure_of(listener, method: str, params: dict | None = None, *, headers: dict | None = None) -> RPCFailure:
    """The RPCFailure `method` answers with (reason, status, code, retry_after); fails the test when it succeeds."""
    try:
        result = call(listener, method, params, headers=headers)
    except RPCFailure as failure:
        return failure
    raise AssertionError(f"{method} succeeded: {result}")


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{secrets.token_hex(6)}@example.com"


def jwt_parts(token: str) -> tuple[dict, dict]:
    """The header and claims of a JWT, unverified."""
    def decode(segment: str) -> dict:
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    header, claims, _ = token.split(".")
    return decode(header), decode(claims)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def psql(sql: str) -> str:
    """Runs SQL against the test database (the tests' only way to plant what later issues create)."""
    url = os.environ.get("TESSERA_TEST_DATABASE_URL")
    if not url:
        pytest.skip("TESSERA_TEST_DATABASE_URL is not set")
    return subprocess.run(["psql", url, "-qtAc", sql], check=True, capture_output=True, text=True).stdout.strip()
