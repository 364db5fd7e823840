"""A master-key rotation as docs/operations.md tells it (`--previous-master-key-file`, then `tessera reseal`), on a
database of its own: nothing sealed under the old key is lost, a user's second factor and the signing key stay
the same, and once re-sealed the old key can go."""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest

from identity import call, jwt_parts, psql
from servers import extra_server
from support import Listener
from test_mfa import enrolled_user, new_tenant, pending_credential, sign_in_params, totp_config


def tessera(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs tessera with no TESSERA_* variables of the environment."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    return subprocess.run([os.environ["TESSERA_BIN"], *args], capture_output=True, text=True, timeout=timeout,
                          env=environment, stdin=subprocess.DEVNULL)


def one_line_exit_2(result: subprocess.CompletedProcess, *words: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    message = result.stderr.strip()
    assert message.startswith("tessera: ") and "\n" not in message, message
    for word in words:
        assert word in message, message
    return message


def counts(result: subprocess.CompletedProcess) -> dict[str, int]:
    assert result.returncode == 0, (result.returncode, result.stderr)
    return {table: int(count) for table, count in (line.split() for line in result.stdout.splitlines())}


@pytest.fixture
def scratch_database() -> str:
    """A migrated database of its own, dropped after the test: a re-seal touches every row of its tables."""
    url = os.environ.get("TESSERA_TEST_DATABASE_URL") or pytest.skip("run the suite through scripts/e2e.sh")
    name = f"tessera_rotation_{secrets.token_hex(4)}"
    psql(f"CREATE DATABASE {name}")
    path, query = (url.split("?", 1) + [""])[:2]
    scratch = path[:path.rindex("/") + 1] + name + ("?" + query if query else "")
    try:
        migrated = tessera("migrate", "--database-url", scratch)
        assert migrated.returncode == 0, migrated.stderr
        yield scratch
    finally:
        psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def key_file(directory: Path, name: str) -> str:
    path = directory / name
    path.write_bytes(secrets.token_bytes(32))
    return str(path)


def signs_in(public: Listener, user, tenant: str) -> dict:
    """The tokens of a password sign-in finished with the user's next TOTP code."""
    return call(public, "mfaSignIn.finalize",
                sign_in_params(pending_credential(public, user), user.enrollment_id, user.app.next_code(), tenant))


def test_a_rotation_keeps_second_factors_and_the_signing_key_and_then_needs_only_the_new_key(
        scratch_database, tmp_path, public_url):
    old, new, stranger = (key_file(tmp_path, name) for name in ("old.key", "new.key", "stranger.key"))
    admin_key = secrets.token_hex(16)
    bootstrap = ["--bootstrap-admin-key", admin_key]

    def admin_of(listener: Listener) -> Listener:
        return Listener(listener.name, listener.url, {"Authorization": f"Bearer {admin_key}"})

    with extra_server("rotation-old", public_url, bootstrap, admin=True, database_url=scratch_database,
                      master_key_file=old) as (public, admin):
        admin = admin_of(admin)
        tenant = new_tenant(admin, totp_config(10), "Rotation")
        users = [enrolled_user(admin, public, tenant, "rotation") for _ in range(2)]
        kid = jwt_parts(users[0].tokens["idToken"])[0]["kid"]

    # The new key alone cannot open what the old one sealed: the server says so and does not start.
    one_line_exit_2(tessera("serve", "--database-url", scratch_database, "--listen", "127.0.0.1:0",
                            "--admin-listen", "none", "--no-migrate", "--master-key-file", new), "master key")

    # The new key seals, the old one still opens: the first user signs in as before.
    with extra_server("rotation-both", public_url, ["--previous-master-key-file", old],
                      database_url=scratch_database, master_key_file=new) as (public, _):
        tokens = signs_in(public, users[0], tenant)
        assert jwt_parts(tokens["idToken"])[0]["kid"] == kid

    # A ring that cannot open everything stops at the first envelope it cannot open, naming it.
    one_line_exit_2(tessera("reseal", "--database-url", scratch_database, "--master-key-file", stranger),
                    "signing_keys row", "cannot be re-sealed", "neither the current nor a previous key")
    resealed = counts(tessera("reseal", "--database-url", scratch_database, "--master-key-file", new,
                              "--previous-master-key-file", old))
    assert set(resealed) == {"signing_keys", "mfa_enrollments", "factor_services"}, resealed
    # The second user's TOTP state was sealed under the old key and never written since.
    assert resealed["signing_keys"] >= 1 and resealed["mfa_enrollments"] >= 1, resealed
    assert set(counts(tessera("reseal", "--database-url", scratch_database, "--master-key-file", new,
                              "--previous-master-key-file", old)).values()) == {0}

    # Re-sealed: the old key can go. Both users sign in with their authenticator, signed by the same key.
    with extra_server("rotation-new", public_url, [], database_url=scratch_database,
                      master_key_file=new) as (public, _):
        for user in users:
            tokens = signs_in(public, user, tenant)
            assert jwt_parts(tokens["idToken"])[0]["kid"] == kid


def test_a_previous_key_that_is_the_current_one_or_has_no_current_one_is_refused(tmp_path):
    key = key_file(tmp_path, "only.key")
    url = "postgresql:///tessera?host=/nonexistent-dir"
    one_line_exit_2(tessera("serve", "--database-url", url, "--master-key-file", key,
                            "--previous-master-key-file", key), "is the current one")
    one_line_exit_2(tessera("serve", "--database-url", url, "--previous-master-key-file", key),
                    "--previous-master-key-file needs --master-key-file")
    one_line_exit_2(tessera("reseal", "--database-url", url), "--master-key-file")
    one_line_exit_2(tessera("reseal", "--master-key-file", key), "--database-url")
    one_line_exit_2(tessera("reseal", "--database-url", url, "--master-key-file", key,
                            "--previous-master-key-file", str(tmp_path / "missing.key")), "missing.key")
