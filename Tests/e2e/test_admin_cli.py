"""`tessera admin`, the admin CLI (API §1), against the running server."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from identity import call, unique_email


def admin_cli(*args, key=None, stdin=None, admin_url=None):
    binary = os.environ.get("TESSERA_BIN")
    if not binary:
        pytest.skip("TESSERA_BIN is not set: run the suite through scripts/e2e.sh")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    environment["TESSERA_ADMIN_URL"] = admin_url or os.environ["TESSERA_ADMIN_URL"]
    if key is not False:
        environment["TESSERA_ADMIN_KEY"] = key or os.environ["TESSERA_ADMIN_KEY"]
    return subprocess.run([binary, "admin", *args], env=environment, input=stdin, capture_output=True, text=True,
                          timeout=30)


def cli_json(*args, **kwargs):
    result = admin_cli(*args, "--json", **kwargs)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_tenant_and_mfa_commands(admin):
    tenant = cli_json("tenants", "create", "--display-name", "CLI tenant")
    tenant_id = tenant["tenantId"]
    human = admin_cli("tenants", "get", tenant_id)
    assert human.returncode == 0 and f"tenantId:" in human.stdout and tenant_id in human.stdout
    set_mfa = cli_json("config", "set-mfa", "--tenant", tenant_id, "--state", "MANDATORY",
                       "--totp-adjacent-intervals", "2")
    assert set_mfa["mfaConfig"] == {"state": "MANDATORY", "enabledProviders": [],
                                    "providerConfigs": [{"state": "ENABLED",
                                                         "totpProviderConfig": {"adjacentIntervals": 2}}]}
    kept = cli_json("config", "set-mfa", "--tenant", tenant_id, "--state", "ENABLED", "--phone-sms")
    assert kept["mfaConfig"]["enabledProviders"] == ["PHONE_SMS"]
    assert kept["mfaConfig"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 2
    assert call(admin, "tenants.get", {"tenantId": tenant_id})["effectiveMfaConfig"]["state"] == "ENABLED"
    listed = admin_cli("tenants", "list", "--all")
    assert listed.returncode == 0 and tenant_id in listed.stdout and "TENANT" in listed.stdout
    refused = admin_cli("tenants", "delete", tenant_id)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert admin_cli("tenants", "delete", tenant_id, "--yes").returncode == 0


def test_user_commands_read_the_password_from_stdin(public):
    email = unique_email("cli")
    user = cli_json("users", "create", "--email", email, "--password-stdin", "--email-verified",
                    stdin="a password from stdin\n")
    assert user["emailVerified"] is True
    call(public, "accounts.signInWithPassword", {"email": email, "password": "a password from stdin"})
    assert cli_json("users", "get", "--email", email)["localId"] == user["localId"]
    assert cli_json("users", "update", user["localId"], "--disabled", "true")["disabled"] is True
    assert admin_cli("users", "revoke-tokens", user["localId"]).returncode == 0
    assert admin_cli("users", "delete", user["localId"]).returncode == 0


def test_key_commands_and_errors():
    created = cli_json("keys", "create", "--display-name", "cli", "--scope", "project")
    assert created["key"].startswith("tsa_")
    listing = admin_cli("keys", "list")
    assert created["keyId"] in listing.stdout and created["key"] not in listing.stdout
    assert cli_json("config", "get", key=created["key"])["displayName"]
    assert admin_cli("keys", "revoke", created["keyId"]).returncode == 0
    denied = admin_cli("config", "get", key=created["key"])
    assert denied.returncode == 1 and denied.stderr.startswith("tessera: UNAUTHENTICATED")
    missing = admin_cli("config", "get", key=False)
    assert missing.returncode == 2 and "TESSERA_ADMIN_KEY" in missing.stderr
    unreachable = admin_cli("config", "get", admin_url="http://127.0.0.1:9")
    assert unreachable.returncode == 1 and "cannot reach admin listener" in unreachable.stderr
    assert cli_json("keys", "rotate-signing")["kid"]
    events = cli_json("audit", "list", "--page-size", "3")["events"]
    assert events[0]["method"] == "keys.rotate"
