"""A database restart under a running server (DESIGN section 3): /readyz turns 503 while
PostgreSQL is down and 200 again once it is back, without restarting Tessera.

The file name sorts last on purpose: it stops the shared dev cluster for a few seconds."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import requests

from identity import failure_of, psql


def _dev_db() -> str:
    path = os.environ.get("TESSERA_DEV_DB", "")
    if not path:
        pytest.fail("TESSERA_DEV_DB is not set: run the suite through scripts/e2e.sh", pytrace=False)
    return path


def _wait_for(admin, status: int, seconds: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if admin.get("/readyz").status_code == status:
            return time.monotonic() - started
        time.sleep(0.05)
    pytest.fail(f"/readyz did not answer {status} within {seconds} s")


def test_readyz_follows_a_database_restart(admin, public):
    assert admin.get("/readyz").status_code == 200
    subprocess.run([_dev_db(), "stop"], check=True, capture_output=True)
    try:
        _wait_for(admin, 503, 10)
        assert "unavailable" in admin.get("/readyz").text
        # The server still answers what needs no database.
        assert public.get("/healthz").status_code == 200
    finally:
        subprocess.run([_dev_db(), "start"], check=True, capture_output=True)
    _wait_for(admin, 200, 20)


# Faults under load (issue 17): PostgreSQL stopped and restarted while refresh-token rotations and code redemptions
# run; a database that turns read-only.

def _oauth():
    import test_oauth_token as oauth
    return oauth


class _Rotations:
    """Threads rotating refresh tokens as fast as they can, recording every answer: which token earned a 200 (none may
    earn two), how long each failure took, and when each success happened."""

    def __init__(self, public_url: str, client_id: str, tokens: list[str]):
        import threading
        self.url, self.client_id = public_url, client_id
        self.accepted: dict[str, int] = {}
        self.failures: list[tuple[float, float, int, str]] = []
        self.successes: list[float] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(token,)) for token in tokens]

    def _run(self, token: str):
        import requests
        session = requests.Session()
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                answer = session.post(f"{self.url}/oauth2/token", timeout=10, data={
                    "grant_type": "refresh_token", "refresh_token": token, "client_id": self.client_id})
                status, body = answer.status_code, answer.json()
            except requests.RequestException as error:
                status, body = 0, {"error": str(error)}
            took = time.monotonic() - started
            with self.lock:
                if status == 200:
                    self.accepted[token] = self.accepted.get(token, 0) + 1
                    self.successes.append(time.monotonic())
                    token = body["refresh_token"]
                else:
                    self.failures.append((started, took, status, body.get("error", "")))
            if status != 200:
                time.sleep(0.05)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=15)


def test_token_rotations_fail_fast_through_a_database_restart_and_recover_without_reuse(admin, public, public_url):
    oauth = _oauth()
    client_id, _ = oauth.new_client()
    user_id = oauth.new_user()
    tokens = [oauth.redeem(public_url, client_id, code).json()["refresh_token"]
              for code in oauth.code_rows(client_id, user_id, 6)]
    # Codes redeemed once before the outage and tried again during and after it: never twice.
    codes = oauth.code_rows(client_id, user_id, 4)
    first = [oauth.redeem(public_url, client_id, code).status_code for code in codes]
    assert first == [200] * 4
    with _Rotations(public_url, client_id, tokens) as load:
        time.sleep(1.5)
        subprocess.run([_dev_db(), "stop"], check=True, capture_output=True)
        down_at = time.monotonic()
        try:
            _wait_for(admin, 503, 10)
            time.sleep(1.5)
            during = [oauth.redeem(public_url, client_id, code).status_code for code in codes]
        finally:
            subprocess.run([_dev_db(), "start"], check=True, capture_output=True)
        up_at = time.monotonic()
        _wait_for(admin, 200, 30)
        time.sleep(2)
    after = [oauth.redeem(public_url, client_id, code).status_code for code in codes]

    outage = [f for f in load.failures if down_at <= f[0] <= up_at]
    assert outage, "no rotation was tried while the database was down"
    # Fast failures: the pool answers at once instead of waiting for the database.
    assert max(took for _, took, _, _ in outage) < 2.0, outage[:5]
    assert {(status, error) for _, _, status, error in outage} <= {(503, "temporarily_unavailable")}, outage[:5]
    assert all(status in (503, 400) for status in during)
    # Full recovery without a restart of Tessera, and no token accepted twice, before, during or after.
    assert any(moment > up_at for moment in load.successes), "no rotation succeeded after the restart"
    assert max(load.accepted.values()) == 1
    assert after == [400] * 4


def test_a_read_only_database_answers_unavailable_and_writes_nothing(public, public_url):
    oauth = _oauth()
    client_id, _ = oauth.new_client()
    user_id = oauth.new_user()
    token = oauth.redeem(public_url, client_id, oauth.sealed_code(client_id, user_id)).json()["refresh_token"]
    families = int(psql(f"SELECT count(*) FROM token_families WHERE user_id = '{user_id}'"))
    email = f"readonly-{time.monotonic_ns()}@example.com"
    admin_url = os.environ["TESSERA_TEST_DATABASE_URL"]
    subprocess.run(["psql", admin_url, "-qc", "ALTER SYSTEM SET default_transaction_read_only = on"], check=True)
    subprocess.run(["psql", admin_url, "-qc", "SELECT pg_reload_conf()"], check=True, capture_output=True)
    try:
        time.sleep(0.5)
        # Before, a write refused by the database surfaced as INTERNAL: now it is the database being unavailable.
        refused = failure_of(public, "accounts.signUp", {"email": email, "password": "correct horse battery"})
        assert (refused.reason, refused.status) == ("UNAVAILABLE", "UNAVAILABLE")
        rotation = requests.post(f"{public_url}/oauth2/token", data={
            "grant_type": "refresh_token", "refresh_token": token, "client_id": client_id})
        assert (rotation.status_code, rotation.json()["error"]) == (503, "temporarily_unavailable")
        code = oauth.redeem(public_url, client_id, oauth.sealed_code(client_id, user_id))
        assert code.status_code == 503
    finally:
        subprocess.run(["psql", admin_url, "-qc", "ALTER SYSTEM RESET default_transaction_read_only"], check=True)
        subprocess.run(["psql", admin_url, "-qc", "SELECT pg_reload_conf()"], check=True, capture_output=True)
    time.sleep(0.5)
    # Nothing was half-written: no account, no family, and the refresh token still works once.
    assert psql(f"SELECT count(*) FROM users WHERE email = '{email}'") == "0"
    assert int(psql(f"SELECT count(*) FROM token_families WHERE user_id = '{user_id}'")) == families
    again = requests.post(f"{public_url}/oauth2/token", data={
        "grant_type": "refresh_token", "refresh_token": token, "client_id": client_id})
    assert again.status_code == 200
