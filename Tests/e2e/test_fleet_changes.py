"""Two servers on one database: what one server caches (clients, configuration, signing keys) follows a change
made through the other at once, through the change notices (docs/operations.md), long before the 5 s staleness
bound would."""

from __future__ import annotations

import base64
import json
import time

import pytest
import requests

from identity import RPCFailure, call
from servers import extra_server

# Well under the staleness bound (5 s): only a notice can make the second server see a change this fast.
PROMPTLY = 2.0


@pytest.fixture(scope="module")
def server_b(public_url):
    """A second server on the suite's database: (public, admin)."""
    with extra_server("fleet-b", public_url, [], admin=True) as listeners:
        yield listeners


def eventually(check, within: float = PROMPTLY):
    """Polls `check` until it returns true; fails after `within` seconds."""
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, f"not seen within {within} s"
        time.sleep(0.02)


def client_credentials(listener, client_id: str, secret: str) -> requests.Response:
    return requests.post(f"{listener.url}/oauth2/token", data={"grant_type": "client_credentials"},
                         auth=(client_id, secret), timeout=10)


def test_a_rotated_secret_and_a_deleted_client_are_refused_by_the_other_server_at_once(admin, server_b):
    public_b, _ = server_b
    created = call(admin, "oauthClients.create", {"client": {
        "clientName": "Fleet", "type": "confidential", "grantTypes": ["client_credentials"], "scopes": ["read"]}})
    client_id, old_secret = created["clientId"], created["clientSecret"]
    # B reads the client once and caches it.
    assert client_credentials(public_b, client_id, old_secret).status_code == 200
    assert client_credentials(public_b, client_id, old_secret).status_code == 200

    new_secret = call(admin, "oauthClients.rotateSecret", {"clientId": client_id})["clientSecret"]
    eventually(lambda: client_credentials(public_b, client_id, old_secret).status_code == 401)
    assert client_credentials(public_b, client_id, new_secret).status_code == 200

    call(admin, "oauthClients.update", {"clientId": client_id, "client": {"scopes": ["read", "write"]},
                                        "updateMask": "scopes"})
    eventually(lambda: client_credentials(public_b, client_id, new_secret).json().get("scope") == "read write")

    call(admin, "oauthClients.delete", {"clientId": client_id})
    eventually(lambda: client_credentials(public_b, client_id, new_secret).status_code == 401)


def test_a_tenant_disabled_on_one_server_is_disabled_on_the_other_at_once(admin, server_b):
    public_b, _ = server_b
    tenant = call(admin, "tenants.create", {"tenant": {"displayName": "Fleet"}})["tenantId"]
    sign_up = {"email": f"fleet-{time.monotonic_ns()}@example.com", "password": "correct horse battery",
               "tenantId": tenant}
    assert "idToken" in call(public_b, "accounts.signUp", sign_up)
    call(admin, "tenants.update", {"tenantId": tenant, "tenant": {"disableAuth": True}, "updateMask": "disableAuth"})

    def refused() -> bool:
        # A sign-up B answers before the notice arrives (milliseconds after the update) still succeeds: ask again.
        again = dict(sign_up, email=f"fleet-{time.monotonic_ns()}@example.com")
        try:
            call(public_b, "accounts.signUp", again)
        except RPCFailure as failure:
            assert failure.reason == "PROJECT_DISABLED", failure.reason
            return True
        return False
    eventually(refused)


def test_a_rotated_signing_key_signs_on_the_other_server_at_once(admin, server_b):
    public_b, _ = server_b
    created = call(admin, "oauthClients.create", {"client": {
        "clientName": "Fleet keys", "type": "confidential", "grantTypes": ["client_credentials"]}})

    def kid_of_b() -> str:
        answer = client_credentials(public_b, created["clientId"], created["clientSecret"])
        header = answer.json()["access_token"].split(".")[0]
        return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]

    kid_of_b()
    new_kid = call(admin, "keys.rotate")["kid"]
    # B reloads its keys every 30 s on its own; the notice makes it sign with the new key now.
    eventually(lambda: kid_of_b() == new_kid)


def test_the_janitor_of_a_server_deletes_expired_rows_and_counts_them(public_url):
    """`--retention-interval 1`: within a few seconds the server's janitor deletes a spent code past its expiry,
    keeps one that has not expired, and says so on /metrics."""
    import secrets

    from identity import psql

    old, live = secrets.token_hex(16), secrets.token_hex(16)
    psql("INSERT INTO oauth_spent_codes (code_hash, family_id, expires_at) VALUES "
         f"('\\x{old}', 'janitor-e2e', now() - interval '1 hour'), "
         f"('\\x{live}', 'janitor-e2e', now() + interval '1 hour')")
    with extra_server("janitor", public_url, ["--retention-interval", "1"], admin=True) as (_, admin_b):
        eventually(lambda: psql(f"SELECT count(*) FROM oauth_spent_codes WHERE code_hash = '\\x{old}'") == "0",
                   within=15)
        metrics = admin_b.get("/metrics").text
        assert 'tessera_janitor_rows_deleted_total{table="oauth_spent_codes"}' in metrics
        assert "tessera_janitor_pass_seconds" in metrics
    assert psql(f"SELECT count(*) FROM oauth_spent_codes WHERE code_hash = '\\x{live}'") == "1"
    psql("DELETE FROM oauth_spent_codes WHERE family_id = 'janitor-e2e'")


def test_an_access_token_revoked_on_one_server_is_inactive_on_the_other_at_once(admin, public, server_b):
    """RFC 7009 for any grant: a client_credentials access token (no sign-in behind it) revoked through one server
    is `active: false` at the other server's introspection at once."""
    public_b, _ = server_b
    created = call(admin, "oauthClients.create", {"client": {
        "clientName": "Fleet revocation", "type": "confidential", "grantTypes": ["client_credentials"]}})
    client_id, secret = created["clientId"], created["clientSecret"]
    token = client_credentials(public, client_id, secret).json()["access_token"]

    def active(listener) -> bool:
        answer = requests.post(f"{listener.url}/oauth2/introspect", data={"token": token}, auth=(client_id, secret),
                               timeout=10)
        return answer.json()["active"]

    assert active(public) and active(public_b)
    assert requests.post(f"{public.url}/oauth2/revoke", data={"token": token}, auth=(client_id, secret),
                         timeout=10).status_code == 200
    assert not active(public_b) and not active(public)
