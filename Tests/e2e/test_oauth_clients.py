"""OAuth clients over the admin JSON-RPC API (API §5 `oauthClients.*`): registration rules, secrets, scoping."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from identity import call, psql, reason_of
from support import Listener

NATIVE = {"clientName": "Native app", "type": "public", "redirectUris": ["com.example.app:/oauth2redirect"]}
BACKEND = {"clientName": "Web backend", "type": "confidential", "redirectUris": ["https://app.example.com/cb"]}


def shared_vectors(name: str) -> dict:
    """A JSON file of the shared test vectors, found as the Swift tests find it."""
    for variable in ("TESSERA_SHARED_DIR", "SHARED"):
        if os.environ.get(variable):
            return json.loads((Path(os.environ[variable]) / "spec" / "vectors" / name).read_text())
    root = Path(__file__).resolve().parents[2]
    return json.loads((root.parent / "shared" / "spec" / "vectors" / name).read_text())


REGISTRATION = shared_vectors("redirect-uris.json")["registration"]


@pytest.fixture
def tenant(admin):
    return call(admin, "tenants.create", {"tenant": {"displayName": "Clients"}})["tenantId"]


def keyed(admin_url: str, key: str) -> Listener:
    return Listener("admin", admin_url, {"Authorization": f"Bearer {key}"})


def stored_secret_hash(client_id: str) -> str:
    return psql(f"SELECT coalesce(encode(secret_hash, 'hex'), 'NULL') FROM oauth_clients WHERE client_id = '{client_id}'")


def test_the_methods_are_discoverable_with_schemas(admin):
    methods = {m["name"]: m for m in call(admin, "rpc.discover")["methods"]}
    for name in ("create", "get", "list", "update", "delete", "rotateSecret"):
        assert f"oauthClients.{name}" in methods
    create = methods["oauthClients.create"]
    assert "client" in json.dumps(create["params"]) and "clientSecret" in json.dumps(create["result"])


def test_a_public_client_gets_the_defaults_and_no_secret(admin, tenant):
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": NATIVE})
    assert created["tenantId"] == tenant and created["type"] == "public"
    assert "clientSecret" not in created and "secretHash" not in created
    assert created["grantTypes"] == ["authorization_code", "refresh_token"]
    assert created["scopes"] == ["openid", "profile", "email", "offline_access"]
    assert (created["accessTokenTtl"], created["refreshTokenTtl"]) == (900, 2592000)
    assert created["createTime"].endswith("Z") and created["updateTime"] == created["createTime"]
    assert stored_secret_hash(created["clientId"]) == "NULL"
    assert call(admin, "oauthClients.get", {"clientId": created["clientId"]}) == created
    assert reason_of(admin, "oauthClients.rotateSecret", {"clientId": created["clientId"]}) == "INVALID_ARGUMENT"


def test_a_confidential_clients_secret_is_shown_once_and_stored_hashed(admin, tenant):
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": BACKEND})
    secret = created["clientSecret"]
    assert secret.startswith("tcs_") and len(secret) == 47
    assert stored_secret_hash(created["clientId"]) == hashlib.sha256(secret.encode()).hexdigest()
    read = call(admin, "oauthClients.get", {"clientId": created["clientId"]})
    assert "clientSecret" not in read
    listed = call(admin, "oauthClients.list", {"tenantId": tenant})["clients"]
    assert secret not in json.dumps(listed)
    rotated = call(admin, "oauthClients.rotateSecret", {"clientId": created["clientId"]})
    assert rotated["clientId"] == created["clientId"] and rotated["clientSecret"] != secret
    assert stored_secret_hash(created["clientId"]) == hashlib.sha256(rotated["clientSecret"].encode()).hexdigest()
    events = call(admin, "auditLog.list", {"tenantId": tenant})["events"]
    audited = [e for e in events if e["target"] == f"oauthClients/{created['clientId']}"]
    assert {e["method"] for e in audited} == {"oauthClients.create", "oauthClients.rotateSecret"}
    assert all(e["after"]["clientSecret"] == "[REDACTED]" for e in audited)
    assert secret not in json.dumps(events) and rotated["clientSecret"] not in json.dumps(events)


@pytest.mark.parametrize("vector", [v for v in REGISTRATION if not v["allowed"]], ids=lambda v: v["uri"])
def test_every_refused_redirect_uri_vector_is_refused(admin, vector):
    client = dict(NATIVE, redirectUris=[vector["uri"]])
    assert reason_of(admin, "oauthClients.create", {"client": client}) == "INVALID_REDIRECT_URI"


@pytest.mark.parametrize("vector", [v for v in REGISTRATION if v["allowed"]], ids=lambda v: v["uri"])
def test_every_allowed_redirect_uri_vector_is_accepted(admin, tenant, vector):
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": dict(NATIVE, redirectUris=[vector["uri"]])})
    assert created["redirectUris"] == [vector["uri"]]


@pytest.mark.parametrize("client", [
    {"type": "public", "redirectUris": ["https://a.example/cb"]},
    dict(NATIVE, clientName=""),
    dict(NATIVE, type="native"),
    dict(NATIVE, redirectUris=[]),
    dict(NATIVE, redirectUris=["https://a.example/cb", "https://a.example/cb"]),
    dict(NATIVE, grantTypes=["client_credentials"]),
    dict(NATIVE, grantTypes=["implicit"]),
    dict(BACKEND, grantTypes=["client_credentials", "refresh_token"]),
    dict(NATIVE, scopes=["a b"]),
    dict(NATIVE, scopes=["openid"], defaultScopes=["email"]),
    dict(NATIVE, accessTokenTtl=59),
    dict(NATIVE, refreshTokenTtl=31536001),
    dict(NATIVE, clientSecret="mine"),
    dict(NATIVE, clientId="chosen"),
], ids=lambda c: json.dumps(c)[:60])
def test_a_client_breaking_a_rule_is_refused(admin, client):
    assert reason_of(admin, "oauthClients.create", {"client": client}) == "INVALID_ARGUMENT"


def test_params_are_strict(admin):
    assert reason_of(admin, "oauthClients.create", {"client": NATIVE, "extra": 1}) == "INVALID_ARGUMENT"
    assert reason_of(admin, "oauthClients.get", {}) == "INVALID_ARGUMENT"
    assert reason_of(admin, "oauthClients.get", {"clientId": "nope"}) == "CLIENT_NOT_FOUND"
    assert reason_of(admin, "oauthClients.create", {"tenantId": "t-nosuch", "client": NATIVE}) == "TENANT_NOT_FOUND"
    assert reason_of(admin, "oauthClients.list", {"pageSize": 101}) == "INVALID_ARGUMENT"


def test_update_with_and_without_a_mask(admin, tenant):
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": dict(NATIVE, accessTokenTtl=120)})
    client_id = created["clientId"]
    masked = call(admin, "oauthClients.update", {"clientId": client_id, "client": {"clientName": "Renamed"},
                                                  "updateMask": "clientName"})
    assert masked["clientName"] == "Renamed" and masked["accessTokenTtl"] == 120
    whole = call(admin, "oauthClients.update", {"clientId": client_id,
                                                 "client": {"clientName": "Whole", "redirectUris": ["http://[::1]/cb"]}})
    assert whole["accessTokenTtl"] == 900 and whole["type"] == "public" and whole["redirectUris"] == ["http://[::1]/cb"]
    assert reason_of(admin, "oauthClients.update", {"clientId": client_id, "client": dict(NATIVE, type="confidential")}) \
        == "INVALID_ARGUMENT"
    assert reason_of(admin, "oauthClients.update", {"clientId": client_id, "client": {}, "updateMask": "secret"}) \
        == "INVALID_ARGUMENT"
    assert call(admin, "oauthClients.get", {"clientId": client_id}) == whole


def test_list_pages_and_scoping(admin, admin_url, tenant):
    other = call(admin, "tenants.create", {"tenant": {"displayName": "Other"}})["tenantId"]
    mine = [call(admin, "oauthClients.create", {"tenantId": tenant, "client": NATIVE})["clientId"] for _ in range(3)]
    foreign = call(admin, "oauthClients.create", {"tenantId": other, "client": BACKEND})["clientId"]
    first = call(admin, "oauthClients.list", {"tenantId": tenant, "pageSize": 2})
    second = call(admin, "oauthClients.list", {"tenantId": tenant, "pageSize": 2, "pageToken": first["nextPageToken"]})
    assert "nextPageToken" not in second
    assert sorted(c["clientId"] for c in first["clients"] + second["clients"]) == sorted(mine)

    key = call(admin, "adminKeys.create", {"displayName": "clients", "scope": f"tenant:{tenant}"})["key"]
    scoped = keyed(admin_url, key)
    assert len(call(scoped, "oauthClients.list", {"tenantId": tenant})["clients"]) == 3
    assert call(scoped, "oauthClients.get", {"clientId": mine[0]})["clientId"] == mine[0]
    assert reason_of(scoped, "oauthClients.list", {"tenantId": other}) == "PERMISSION_DENIED"
    assert reason_of(scoped, "oauthClients.list", {}) == "PERMISSION_DENIED"
    assert reason_of(scoped, "oauthClients.create", {"tenantId": other, "client": NATIVE}) == "PERMISSION_DENIED"
    assert reason_of(scoped, "oauthClients.create", {"client": NATIVE}) == "PERMISSION_DENIED"
    for method, params in [
        ("oauthClients.get", {"clientId": foreign}),
        ("oauthClients.update", {"clientId": foreign, "client": {"clientName": "x"}, "updateMask": "clientName"}),
        ("oauthClients.rotateSecret", {"clientId": foreign}),
        ("oauthClients.delete", {"clientId": foreign}),
    ]:
        assert reason_of(scoped, method, params) == "CLIENT_NOT_FOUND", method
    assert call(admin, "oauthClients.get", {"clientId": foreign})["tenantId"] == other


def test_delete_takes_the_clients_tokens_with_it(admin, tenant):
    client_id = call(admin, "oauthClients.create", {"tenantId": tenant, "client": NATIVE})["clientId"]
    user = call(admin, "users.create", {"tenantId": tenant})["localId"]
    family = f"fam-{client_id}"
    psql(f"INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, created_at, client_id, scope) "
         f"VALUES ('{family}', '{user}', now(), 'password', now(), '{client_id}', 'openid')")
    assert call(admin, "oauthClients.delete", {"clientId": client_id}) == {}
    assert psql(f"SELECT count(*) FROM token_families WHERE family_id = '{family}'") == "0"
    assert reason_of(admin, "oauthClients.get", {"clientId": client_id}) == "CLIENT_NOT_FOUND"
    assert reason_of(admin, "oauthClients.delete", {"clientId": client_id}) == "CLIENT_NOT_FOUND"
    events = call(admin, "auditLog.list", {"tenantId": tenant})["events"]
    assert events[0]["method"] == "oauthClients.delete" and events[0]["before"]["clientId"] == client_id


def test_the_admin_cli_manages_clients(admin, tenant):
    from test_admin_cli import admin_cli, cli_json

    created = admin_cli("clients", "create", "--tenant", tenant, "--name", "CLI app", "--type", "confidential",
                        "--redirect-uri", "https://app.example.com/cb", "--scope", "openid", "--json")
    assert created.returncode == 0, created.stderr
    client = json.loads(created.stdout)
    assert client["clientSecret"].startswith("tcs_") and "cannot be shown again" in created.stderr
    client_id = client["clientId"]
    assert cli_json("clients", "get", client_id)["scopes"] == ["openid"]
    updated = cli_json("clients", "update", client_id, "--name", "Renamed", "--access-token-ttl", "600")
    assert (updated["clientName"], updated["accessTokenTtl"], updated["scopes"]) == ("Renamed", 600, ["openid"])
    listed = admin_cli("clients", "list", "--tenant", tenant, "--all")
    assert listed.returncode == 0 and client_id in listed.stdout and "CLIENT ID" in listed.stdout
    rotated = cli_json("clients", "rotate-secret", client_id)
    assert rotated["clientSecret"] != client["clientSecret"]
    refused = admin_cli("clients", "create", "--name", "Bad", "--type", "public", "--redirect-uri", "myapp://cb")
    assert refused.returncode == 1 and "INVALID_REDIRECT_URI" in refused.stderr
    assert admin_cli("clients", "delete", client_id).returncode != 0
    assert admin_cli("clients", "delete", client_id, "--yes").returncode == 0
    assert reason_of(admin, "oauthClients.get", {"clientId": client_id}) == "CLIENT_NOT_FOUND"
