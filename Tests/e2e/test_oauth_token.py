"""The OAuth token, revocation and introspection endpoints and the metadata, end to end.

Clients and users are rows written with psql, and authorization codes are sealed here exactly as
the authorize endpoint seals them (with the key derived from the server's master key), so these
tests need only the token side of the server. Access tokens are verified against the published JWKS with
authlib's JOSE implementation.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
import uuid

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from identity import psql

REDIRECT_URI = "com.example.e2e:/callback"
VERIFIER = secrets.token_urlsafe(48)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def literal(text: str | None) -> str:
    return "NULL" if text is None else "'" + text.replace("'", "''") + "'"


def new_client(kind: str = "public", grants: str = "authorization_code refresh_token",
               scopes: str = "openid email profile offline_access") -> tuple[str, str | None]:
    client_id = b64url(secrets.token_bytes(16))
    secret = secrets.token_urlsafe(32) if kind == "confidential" else None
    digest = "'\\x" + hashlib.sha256(secret.encode()).hexdigest() + "'::bytea" if secret else "NULL"
    psql(
        "INSERT INTO oauth_clients (client_id, client_name, client_type, redirect_uris, grant_types, scopes, "
        "access_token_ttl, refresh_token_ttl, secret_hash, created_at, updated_at) VALUES "
        f"({literal(client_id)}, 'e2e', {literal(kind)}, {literal(REDIRECT_URI)}, {literal(grants)}, "
        f"{literal(scopes)}, 900, 86400, {digest}, now(), now())"
    )
    return client_id, secret


def new_user() -> str:
    user_id = str(uuid.uuid4())
    psql(
        "INSERT INTO users (user_id, email, email_verified, created_at, tokens_valid_after) VALUES "
        f"({literal(user_id)}, {literal(f'oauth-{user_id}@example.com')}, true, now(), now() - interval '1 day')"
    )
    return user_id


def sealed_code(client_id: str, user_id: str, now: float | None = None) -> str:
    """A code as /oauth2/authorize issues it (Sources/TesseraOAuth/Tokens/SealedAuthorizationCode.swift): the grant packed
    field by field and sealed with AES-256-GCM under the key derived from the server's master key for codes."""
    master = open(os.environ["TESSERA_E2E_MASTER_KEY_FILE"], "rb").read()
    key = hmac.new(master, b"tessera key derivation v1\nauthorization code", hashlib.sha256).digest()
    key_id = ("d" + b64url(hmac.new(key, b"key id", hashlib.sha256).digest()[:6])).encode()

    def text(value: str) -> bytes:
        data = value.encode()
        return bytes([len(data)]) + data

    def identifier(value: str) -> bytes:
        if len(value) == 22:
            raw = base64.urlsafe_b64decode(value + "==")
            if len(raw) == 16 and b64url(raw) == value:
                return b"\xff" + raw
        return text(value)

    def milliseconds(seconds: float) -> bytes:
        return int(round(seconds * 1000)).to_bytes(8, "big", signed=True)

    now = time.time() if now is None else now
    payload = (b"\x01" + identifier(client_id) + identifier(user_id)
               + hashlib.sha256(REDIRECT_URI.encode()).digest()
               + text(b64url(hashlib.sha256(VERIFIER.encode()).digest())) + text("openid email")
               + b"\x01" + text("nonce-1") + milliseconds(now) + milliseconds(now + 60) + text("password")
               + b"\x00" + b"\x00" + b"\x00")
    header = bytes([1, len(key_id)]) + key_id
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(key).encrypt(nonce, payload, header + b"tessera authorization code")
    return b64url(header + nonce + sealed)


def code_rows(client_id: str, user_id: str, count: int) -> list[str]:
    """`count` fresh codes for the user, sealed as /oauth2/authorize seals them (nothing is stored)."""
    return [sealed_code(client_id, user_id) for _ in range(count)]


def redeem(public_url: str, client_id: str, code: str, session=requests) -> requests.Response:
    return session.post(f"{public_url}/oauth2/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
        "client_id": client_id, "code_verifier": VERIFIER,
    })


def verify(public_url: str, token: str, typ: str):
    keys = JsonWebKey.import_key_set(requests.get(f"{public_url}/oauth2/jwks").json())
    claims = JsonWebToken(["ES256"]).decode(token, keys)
    claims.validate()
    assert claims.header["typ"] == typ
    return claims


@pytest.mark.parametrize("path", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"])
def test_metadata(public_url, path):
    answer = requests.get(public_url + path)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.headers["Cache-Control"] == "public, max-age=3600"
    document = answer.json()
    issuer = document["issuer"]
    assert document["token_endpoint"] == issuer.rstrip("/") + "/oauth2/token"
    assert document["jwks_uri"].endswith("/oauth2/jwks")
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token", "client_credentials"]
    assert "none" in document["token_endpoint_auth_methods_supported"]
    assert document["authorization_response_iss_parameter_supported"] is True
    assert document["id_token_signing_alg_values_supported"] == ["ES256"]


def test_client_credentials_with_authlib(public_url):
    client_id, secret = new_client("confidential", grants="client_credentials", scopes="read write")
    with OAuth2Session(client_id, secret, token_endpoint_auth_method="client_secret_basic", scope="read") as oauth:
        token = oauth.fetch_token(f"{public_url}/oauth2/token", grant_type="client_credentials")
    assert token["token_type"] == "Bearer"
    assert token["scope"] == "read"
    assert "refresh_token" not in token
    claims = verify(public_url, token["access_token"], "at+jwt")
    assert claims["sub"] == client_id and claims["aud"] == client_id and claims["client_id"] == client_id
    assert claims["scope"] == "read"
    assert "amr" not in claims


def test_error_shapes(public_url):
    client_id, secret = new_client("confidential", grants="client_credentials")
    url = f"{public_url}/oauth2/token"
    unknown = requests.post(url, data={"grant_type": "password", "client_id": client_id})
    assert unknown.status_code == 400
    assert unknown.json()["error"] == "unsupported_grant_type"
    assert unknown.headers["Cache-Control"] == "no-store" and unknown.headers["Pragma"] == "no-cache"
    wrong = requests.post(url, data={"grant_type": "client_credentials"}, auth=(client_id, secret + "x"))
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "invalid_client" and wrong.json()["error_description"]
    assert wrong.headers["WWW-Authenticate"].startswith('Basic realm="tessera"')
    as_json = requests.post(url, json={"grant_type": "client_credentials"}, auth=(client_id, secret))
    assert as_json.status_code == 400 and as_json.json()["error"] == "invalid_request"


def test_a_code_is_taken_only_as_the_server_wrote_it(public_url):
    """A code is spent by the digest of its text: the same code with base64's `=` padding (another text, the same
    bytes) is invalid_grant and spends nothing before the code's redemption, and is no second redemption after it."""
    client_id, _ = new_client()
    user_id = new_user()
    [code] = code_rows(client_id, user_id, 1)
    padded = code + "=" * (-len(code) % 4)
    assert padded != code, "this code's length leaves no room for padding"
    before = redeem(public_url, client_id, padded)
    assert before.status_code == 400 and before.json()["error"] == "invalid_grant"
    assert redeem(public_url, client_id, code).status_code == 200
    after = redeem(public_url, client_id, padded)
    assert after.status_code == 400 and after.json()["error"] == "invalid_grant"


def test_code_grant_refresh_revoke_and_introspect(public_url):
    client_id, _ = new_client()
    server_id, server_secret = new_client("confidential", grants="client_credentials")
    user_id = new_user()
    [code] = code_rows(client_id, user_id, 1)
    answer = redeem(public_url, client_id, code)
    assert answer.status_code == 200, answer.text
    tokens = answer.json()
    access = verify(public_url, tokens["access_token"], "at+jwt")
    assert access["sub"] == user_id and access["amr"] == ["pwd"]
    id_token = verify(public_url, tokens["id_token"], "JWT")
    assert id_token["nonce"] == "nonce-1" and id_token["aud"] == client_id
    assert id_token["email"] == f"oauth-{user_id}@example.com"

    replay = redeem(public_url, client_id, code)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    introspect = f"{public_url}/oauth2/introspect"
    inactive = requests.post(introspect, data={"token": tokens["access_token"]}, auth=(server_id, server_secret))
    assert inactive.json() == {"active": False}

    [code] = code_rows(client_id, user_id, 1)
    tokens = redeem(public_url, client_id, code).json()
    active = requests.post(introspect, data={"token": tokens["access_token"]}, auth=(server_id, server_secret))
    assert active.json()["active"] is True and active.json()["sub"] == user_id
    refused = requests.post(introspect, data={"token": tokens["access_token"], "client_id": client_id})
    assert refused.status_code == 401

    revoked = requests.post(f"{public_url}/oauth2/revoke",
                            data={"token": tokens["refresh_token"], "client_id": client_id})
    assert revoked.status_code == 200
    after = requests.post(introspect, data={"token": tokens["access_token"]}, auth=(server_id, server_secret))
    assert after.json() == {"active": False}
    refresh = requests.post(f"{public_url}/oauth2/token", data={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id})
    assert refresh.status_code == 400 and refresh.json()["error"] == "invalid_grant"


def transactions() -> tuple[int, int, int]:
    """The committed plus rolled-back transactions of the test database once the statistics are flushed, the
    number of readings taken, and what each reading adds itself (psql's session): the count is settled when the
    readings of more than ten seconds grow by one step, since an idle backend may hold its statistics back that
    long (PGSTAT_IDLE_INTERVAL)."""
    values: list[int] = []
    for _ in range(160):
        values.append(int(psql(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")))
        steps = {b - a for a, b in zip(values[-46:], values[-45:])}
        if len(values) >= 46 and len(steps) == 1 and steps.pop() <= 4:
            return values[-1], len(values), values[-1] - values[-2]
        time.sleep(0.25)
    pytest.fail("the transaction statistics did not settle")


@pytest.mark.skipif(not os.environ.get("TESSERA_E2E_MEASURE"),
                    reason="slow (about a minute): set TESSERA_E2E_MEASURE=1")
def test_an_authorization_code_grant_takes_one_database_round_trip(public_url):
    """DESIGN §7: every pipeline is one round trip and one implicit transaction, so the growth of the
    database's transaction count over many grants is the number of round trips per grant. Nothing else may
    use the test database meanwhile."""
    grants = 40
    client_id, _ = new_client()
    codes = code_rows(client_id, new_user(), grants)
    with requests.Session() as session:
        before, _, _ = transactions()
        for code in codes:
            assert redeem(public_url, client_id, code, session).status_code == 200
        after, readings, step = transactions()
    # The sessions that read `before` and all but the last reading of `after` ended in between.
    per_grant = (after - before - step * readings) / grants
    print(f"database round trips per authorization_code grant: {per_grant:.2f}")
    assert per_grant <= 1.1
