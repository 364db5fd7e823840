"""The fleet: three servers behind HAProxy on one PostgreSQL (make fleet-test).

- The end-to-end OAuth, login-page and MFA flows, run through HAProxy: every request may land on another server,
  so a login flow started on one continues on another.
- Under load (refresh-token rotations over JSON-RPC and client_credentials grants, through HAProxy): a rolling
  restart (drain, SIGTERM, start, next) fails no request; `kill -9` of one server fails at most the requests in
  flight on it. Afterwards no refresh token that was accepted is accepted again, and a user's password counters
  survive. The numbers go to test-output/fleet/report.json and the test's output.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import pytest
import requests

from fleet import OUTPUT, ROOT, Fleet, from_environment

PASSWORD = "correct horse battery"
THREADS = 6


@pytest.fixture(scope="module")
def fleet():
    needed = ("TESSERA_BIN", "TESSERA_TEST_DATABASE_URL", "TESSERA_E2E_MASTER_KEY_FILE", "TESSERA_ADMIN_KEY")
    if any(name not in os.environ for name in needed):
        pytest.skip("run through scripts/fleet-test.sh (make fleet-test)")
    # The e2e suites plant rows already expired to see how they are answered (Tests/e2e/servers.py): a janitor
    # running beside them deletes such a row before the request that reads it, one run in a hundred (a phone
    # session answered INVALID_SESSION_INFO, not SESSION_EXPIRED). The fleet's janitors are tested by the soak
    # and by test_ha.py.
    started = from_environment(retention_interval=0)
    started.start()
    yield started
    started.stop()


def rpc(url: str, method: str, params: dict, session: requests.Session, headers: dict | None = None) -> dict:
    answer = session.post(f"{url}/rpc", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                          headers=headers or {}, timeout=15)
    answer.raise_for_status()
    body = answer.json()
    if "error" in body:
        raise RuntimeError(body["error"].get("data", {}).get("reason", body["error"]["message"]))
    return body["result"]


def test_the_end_to_end_flows_work_across_the_fleet(fleet: Fleet):
    environment = {**os.environ, "TESSERA_URL": fleet.public_url, "TESSERA_ADMIN_URL": fleet.admin_url,
                   "TESSERA_E2E_MAIL_PORT": str(fleet.mail_port), "TESSERA_E2E_SMS_PORT": str(fleet.sms_port),
                   "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                   # A cached change applies on each server when its notice arrives (Tests/e2e/identity.py).
                   "TESSERA_E2E_CHANGE_SETTLE": "0.2"}
    suites = [str(ROOT / "Tests" / "e2e" / name) for name in (
        "test_oauth_flow.py", "test_oauth_token.py", "test_mfa.py", "test_accounts.py", "test_phone.py")]
    # Tests of one server's /metrics are left out: through HAProxy, each scrape may come from another server.
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not metrics", *suites],
                         env=environment, capture_output=True, text=True, timeout=1800)
    (OUTPUT / "e2e.txt").write_text(ran.stdout + ran.stderr)
    assert ran.returncode == 0, ran.stdout[-4000:]
    print("\n" + ran.stdout.strip().splitlines()[-1])


@dataclass
class Load:
    """Threads that each keep a sign-in alive by rotating its refresh token over JSON-RPC, and take
    client_credentials grants, through HAProxy, until stopped."""

    fleet: Fleet
    basic: str
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    counts: dict[str, int] = field(default_factory=lambda: {"ok": 0, "failed": 0})
    failures: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    def run(self):
        for index in range(THREADS):
            thread = threading.Thread(target=self.work, args=(index,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def finish(self) -> dict[str, int]:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
        return dict(self.counts)

    def count(self, ok: bool, what: str = ""):
        with self.lock:
            self.counts["ok" if ok else "failed"] += 1
            if not ok:
                self.failures.append(what)

    def work(self, index: int):
        session = requests.Session()
        url = self.fleet.public_url
        refresh = None
        turn = 0
        while not self.stop.is_set():
            turn += 1
            try:
                if refresh is None:
                    email = f"fleet-{index}-{time.monotonic_ns()}@example.com"
                    refresh = rpc(url, "accounts.signUp", {"email": email, "password": PASSWORD}, session)[
                        "refreshToken"]
                    self.count(True)
                elif turn % 2:
                    rotated = rpc(url, "token.refresh", {"refreshToken": refresh}, session)["refreshToken"]
                    with self.lock:
                        self.used.append(refresh)
                    refresh = rotated
                    self.count(True)
                else:
                    answer = session.post(f"{url}/oauth2/token", data={"grant_type": "client_credentials"},
                                          headers={"Authorization": f"Basic {self.basic}"}, timeout=15)
                    self.count(answer.status_code == 200, f"client_credentials {answer.status_code}")
            except (requests.RequestException, RuntimeError) as failure:
                # The outcome of a rotation in flight is unknown: start a new sign-in rather than guess.
                refresh = None
                self.count(False, f"{type(failure).__name__}: {failure}"[:200])


@pytest.fixture(scope="module")
def confidential(fleet: Fleet) -> str:
    session = requests.Session()
    created = rpc(fleet.admin_url, "oauthClients.create", {"client": {
        "clientName": "fleet load", "type": "confidential", "grantTypes": ["client_credentials"],
        "scopes": ["read"], "defaultScopes": ["read"]}}, session,
        headers={"Authorization": f"Bearer {fleet.admin_key}"})
    return base64.b64encode(f"{created['clientId']}:{created['clientSecret']}".encode()).decode()


def replayed(fleet: Fleet, load: Load) -> int:
    """How many of a sample of the refresh tokens the load had rotated are accepted again (must be none)."""
    session = requests.Session()
    accepted = 0
    for token in load.used[-30:]:
        try:
            rpc(fleet.public_url, "token.refresh", {"refreshToken": token}, session)
            accepted += 1
        except RuntimeError:
            pass
    return accepted


def report(name: str, numbers: dict):
    path = OUTPUT / "report.json"
    reports = json.loads(path.read_text()) if path.exists() else {}
    reports[name] = numbers
    path.write_text(json.dumps(reports, indent=2) + "\n")
    print(f"\n{name}: {numbers}")


def test_a_rolling_restart_under_load_fails_no_request(fleet: Fleet, confidential: str):
    load = Load(fleet, confidential)
    load.run()
    time.sleep(2)
    started = time.monotonic()
    fleet.rolling_restart()
    restart_seconds = round(time.monotonic() - started, 1)
    time.sleep(2)
    counts = load.finish()
    numbers = {**counts, "restart_seconds": restart_seconds, "replays_accepted": replayed(fleet, load),
               "failures": load.failures[:10]}
    report("rolling restart", numbers)
    assert counts["ok"] > 100
    assert counts["failed"] == 0, load.failures[:10]
    assert numbers["replays_accepted"] == 0


def test_kill_9_fails_only_the_requests_in_flight(fleet: Fleet, confidential: str):
    # A user with wrong passwords counted before the kill: the counters live in the database.
    session = requests.Session()
    email = f"fleet-kill-{time.monotonic_ns()}@example.com"
    rpc(fleet.public_url, "accounts.signUp", {"email": email, "password": PASSWORD}, session)
    for _ in range(3):
        with pytest.raises(RuntimeError, match="INVALID_LOGIN_CREDENTIALS"):
            rpc(fleet.public_url, "accounts.signInWithPassword", {"email": email, "password": "wrong one"}, session)
    load = Load(fleet, confidential)
    load.run()
    time.sleep(2)
    victim = fleet.servers[1]
    fleet.kill(victim)
    time.sleep(3)
    fleet.start_server(victim)
    fleet.wait_until_all_up()
    time.sleep(2)
    counts = load.finish()
    numbers = {**counts, "replays_accepted": replayed(fleet, load), "failures": load.failures[:10]}
    report("kill -9", numbers)
    assert counts["ok"] > 100
    # Each load thread has at most one request in flight when the server dies.
    assert counts["failed"] <= THREADS, load.failures
    assert numbers["replays_accepted"] == 0
    # The user is not locked out: 3 failures of 10 were counted, and the right password works on any server.
    for _ in range(3):
        assert "idToken" in rpc(fleet.public_url, "accounts.signInWithPassword",
                                {"email": email, "password": PASSWORD}, session)
