"""PostgreSQL high availability (issue 20; docs/operations.md, "PostgreSQL high availability"): two `tessera serve`
on a primary with a synchronous streaming standby, given one multi-host URL (`host=primary,standby`,
`target_session_attrs=read-write`, `connect_timeout=3`). Under sign-up load the primary fails and, a second later, the
standby is promoted. It fails in two ways, each a run of every test below: `stopped` (`pg_ctl stop -m immediate`:
sessions cut, connections refused) and `hung` (every process frozen with SIGSTOP: sessions and new connections get no
answer, as from a machine that hangs or leaves the network). No server is restarted, and:

- sign-ups fail only for a bounded moment, and only as `UNAVAILABLE` (never a wrong answer), then succeed again on
  both servers; `/readyz` is 200 again;
- no sign-up that was answered with success is lost (the standby had every acknowledged commit);
- each server's change listener is seen down, then listening again on the new primary: a secret rotated through one
  server is refused by the other well inside the 5 s staleness bound, by a notice;
- each server's janitor runs again, on the new primary.

The numbers go to test-output/fleet/report.json ("failover (stopped)", "failover (hung)", ...) and the test's
output; the clusters' and servers' logs stay in test-output/fleet/ha/<mode>/."""

from __future__ import annotations

import base64
import os
import secrets
import threading
import time
from dataclasses import dataclass, field

import pytest
import requests

from replicated import HAServer, ReplicatedDatabase, missing_tools, server_bin_dir
from test_fleet import PASSWORD, report

# Sign-up threads per server.
THREADS_PER_SERVER = 2
# How long, at most, the sign-ups may fail after the primary fails (the 1 s detection and the promotion included),
# and the change listeners may take to listen on the new primary, by how it fails. A stopped primary cuts every
# session and refuses new ones: the servers notice at once (measured: ~1.6 s in all). A hung one answers nothing:
# a request in flight waits for its answer deadline (statement timeout 5 s + 2 s), a new connection for the URL's
# connect_timeout (3 s) before it tries the next host, and the idle listener finds out by its probe (every 5 s)
# (measured: ~11 s, the listener ~12 s).
BOUNDS = {"stopped": {"outage": 15.0, "listener": 15.0}, "hung": {"outage": 25.0, "listener": 30.0}}
# Well under the staleness bound (5 s): only a change notice makes the other server see a change this fast.
PROMPTLY = 2.0
# What the servers answer while no connection reaches a primary.
UNAVAILABLE = "UNAVAILABLE"


@pytest.fixture(scope="module", params=["stopped", "hung"])
def database(request):
    needed = ("TESSERA_BIN", "TESSERA_E2E_MASTER_KEY_FILE", "TESSERA_ADMIN_KEY")
    if any(name not in os.environ for name in needed):
        pytest.skip("run through scripts/fleet-test.sh (make fleet-test)")
    if reason := missing_tools():
        pytest.skip(reason)
    replicated = ReplicatedDatabase(server_bin_dir(), mode=request.param)
    try:
        replicated.create()
        yield replicated
    finally:
        replicated.remove()


@pytest.fixture(scope="module")
def servers(database: ReplicatedDatabase):
    started = [HAServer(name, os.environ["TESSERA_BIN"], database.url, os.environ["TESSERA_E2E_MASTER_KEY_FILE"],
                        os.environ["TESSERA_ADMIN_KEY"], database.root) for name in ("tessera-a", "tessera-b")]
    try:
        for server in started:
            server.start()
        yield started
    finally:
        for server in started:
            server.stop()


@dataclass
class Attempt:
    """One accounts.signUp: which server, when, and what came back."""

    server: str
    email: str
    started: float
    ended: float
    # ok, unavailable (a JSON-RPC UNAVAILABLE error), connection (no answer), or wrong (anything else).
    outcome: str
    detail: str = ""
    user_id: str = ""
    refresh_token: str = ""


def sign_up(server: HAServer, session: requests.Session) -> Attempt:
    email = f"ha-{secrets.token_hex(8)}@example.com"
    started = time.monotonic()

    def attempt(outcome: str, detail: str = "", user_id: str = "", refresh: str = "") -> Attempt:
        return Attempt(server.name, email, started, time.monotonic(), outcome, detail, user_id, refresh)

    try:
        # A connection of its own, as from many clients: the server's event loops (each with its own database
        # connections) all get some of the load.
        answer = session.post(f"{server.public_url}/rpc", timeout=15, headers={"Connection": "close"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "accounts.signUp", "params": {"email": email, "password": PASSWORD}})
        body = answer.json()
    except requests.Timeout as failure:
        return attempt("wrong", f"no answer within 15 s: {failure}")
    except requests.ConnectionError as failure:
        return attempt("connection", str(failure)[:200])
    except ValueError:
        return attempt("wrong", f"HTTP {answer.status_code}, not JSON: {answer.text[:200]}")
    if "result" in body and body["result"].get("localId") and body["result"].get("refreshToken"):
        return attempt("ok", user_id=body["result"]["localId"], refresh=body["result"]["refreshToken"])
    reason = body.get("error", {}).get("data", {}).get("reason")
    if reason == UNAVAILABLE:
        return attempt("unavailable", f"HTTP {answer.status_code}")
    return attempt("wrong", f"HTTP {answer.status_code}: {str(body)[:200]}")


@dataclass
class SignUps:
    """Threads signing up new users, each on one server, as fast as they can (a failure waits 50 ms before the
    next attempt, as a client would), until stopped; every attempt recorded."""

    servers: list[HAServer]
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    attempts: list[Attempt] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    def __enter__(self) -> SignUps:
        for server in self.servers:
            for _ in range(THREADS_PER_SERVER):
                thread = threading.Thread(target=self.work, args=(server,), daemon=True)
                thread.start()
                self.threads.append(thread)
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def work(self, server: HAServer):
        session = requests.Session()
        while not self.stop.is_set():
            attempt = sign_up(server, session)
            with self.lock:
                self.attempts.append(attempt)
            if attempt.outcome != "ok":
                time.sleep(0.05)

    def of(self, server: HAServer) -> list[Attempt]:
        with self.lock:
            return [attempt for attempt in self.attempts if attempt.server == server.name]

    def recovered(self, server: HAServer, since: float) -> bool:
        """Whether a sign-up started after `since` on `server` succeeded, and none failed after it."""
        after = [attempt for attempt in self.of(server) if attempt.started > since]
        ok = [attempt.ended for attempt in after if attempt.outcome == "ok"]
        return bool(ok) and not any(attempt.ended > min(ok) and attempt.outcome != "ok" for attempt in after)


def eventually(check, within: float, what: str) -> float:
    """Polls `check` until it returns true; returns the seconds it took, fails after `within` seconds."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < within, f"{what}: not within {within} s"
        time.sleep(0.02)
    return round(time.monotonic() - started, 2)


@dataclass
class Watch:
    """A thread that samples each server's `/readyz` and `tessera_change_listener_up` every 50 ms until stopped, to
    tell how long after a moment each was seen down and then up again."""

    servers: list[HAServer]
    stop: threading.Event = field(default_factory=threading.Event)
    samples: list[tuple[float, str, bool, bool]] = field(default_factory=list)
    thread: threading.Thread | None = None

    def __enter__(self) -> Watch:
        self.thread = threading.Thread(target=self.work, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        self.thread.join(timeout=10)

    def work(self):
        while not self.stop.is_set():
            for server in self.servers:
                try:
                    listening = server.metric("tessera_change_listener_up") == 1
                except requests.RequestException:
                    listening = False
                self.samples.append((time.monotonic(), server.name, server.ready(), listening))
            time.sleep(0.05)

    def down(self, server: HAServer, since: float, column: int) -> float | None:
        """Seconds from `since` until `server`'s readiness (column 2) or listener (column 3) was seen up again after
        it was seen down; None when it was never seen down."""
        mine = [sample for sample in self.samples if sample[1] == server.name and sample[0] >= since]
        first_down = next((index for index, sample in enumerate(mine) if not sample[column]), None)
        if first_down is None:
            return None
        back = next((sample[0] for sample in mine[first_down:] if sample[column]), None)
        return round(back - since, 2) if back is not None else float("inf")


@dataclass
class Failover:
    """What happened to the sign-ups around the promotion, for the tests below."""

    mode: str
    attempts: list[Attempt]
    died: float
    promoted: float
    numbers: dict

    @property
    def bounds(self) -> dict[str, float]:
        return BOUNDS[self.mode]


@pytest.fixture(scope="module")
def failover(database: ReplicatedDatabase, servers: list[HAServer]) -> Failover:
    mode = database.mode
    with Watch(servers) as watch, SignUps(servers) as load:
        time.sleep(3)
        times = database.fail_over(detection=1.0)
        died, promoted = times["died"], times["promoted"]
        # Both servers answer again by themselves: a success on each, then a little more load.
        for server in servers:
            eventually(lambda: load.recovered(server, promoted), BOUNDS[mode]["outage"] + 5,
                       f"sign-ups on {server.name}")
        time.sleep(2)
        # Each listener has been seen down and listening again (or the bound has passed: the test below says so).
        deadline = died + BOUNDS[mode]["listener"] + 5
        while time.monotonic() < deadline and not all(
                (watch.down(server, died, 3) or float("inf")) < float("inf") for server in servers):
            time.sleep(0.1)
    attempts = load.attempts
    failures = [attempt for attempt in attempts if attempt.outcome != "ok"]
    per_server = {}
    for server in servers:
        mine = [attempt for attempt in attempts if attempt.server == server.name]
        failed = [attempt for attempt in mine if attempt.outcome != "ok"]
        last_failure = max((attempt.ended for attempt in failed), default=died)
        per_server[server.name] = {
            "ok": len(mine) - len(failed),
            "failed": len(failed),
            # From the primary's death to the end of the last failed sign-up on this server.
            "outage_seconds": round(last_failure - died, 2),
            # From the end of the promotion to the first sign-up started after it that succeeded.
            "back_after_promotion_seconds": round(min(
                attempt.ended for attempt in mine if attempt.outcome == "ok" and attempt.started > promoted)
                - promoted, 2),
            # From the primary's death until /readyz and the change listener were seen up again (None: never seen
            # down by the 50 ms sampling).
            "readyz_back_seconds": watch.down(server, died, 2),
            "listener_back_seconds": watch.down(server, died, 3),
        }
    numbers = {
        "mode": mode,
        "ok": sum(attempt.outcome == "ok" for attempt in attempts),
        "ok_before_failover": sum(attempt.outcome == "ok" and attempt.ended < died for attempt in attempts),
        "failed": len(failures),
        "failed_by_kind": {kind: sum(attempt.outcome == kind for attempt in failures)
                           for kind in ("unavailable", "connection", "wrong")},
        "promotion_seconds": round(promoted - died, 2),
        "outage_seconds": max(entry["outage_seconds"] for entry in per_server.values()),
        "servers": per_server,
        "failures": sorted({f"{attempt.outcome} {attempt.detail}"[:120] for attempt in failures})[:10],
    }
    return Failover(mode, attempts, died, promoted, numbers)


def test_sign_ups_fail_only_for_a_moment_only_as_unavailable_then_succeed_without_a_restart(
        failover: Failover, servers: list[HAServer]):
    numbers = failover.numbers
    report(f"failover ({failover.mode})", numbers)
    assert numbers["ok_before_failover"] > 10, "too little load before the failover"
    # Never a wrong answer: a failure is UNAVAILABLE (or, in principle, a connection the server dropped).
    wrong = [attempt for attempt in failover.attempts if attempt.outcome == "wrong"]
    assert not wrong, wrong[:5]
    # Failures only between the primary's death and the bound, none after.
    assert numbers["outage_seconds"] < failover.bounds["outage"], numbers
    early = [attempt for attempt in failover.attempts if attempt.outcome != "ok" and attempt.ended < failover.died]
    assert not early, f"sign-ups failed before the primary died: {early[:5]}"
    # The same processes, never restarted, answer again.
    for server in servers:
        assert server.process.poll() is None, f"{server.name} exited"
        assert any(attempt.outcome == "ok" and attempt.started > failover.promoted
                   for attempt in failover.attempts if attempt.server == server.name)


def test_no_acknowledged_sign_up_is_lost(failover: Failover, database: ReplicatedDatabase,
                                         servers: list[HAServer]):
    """Replication was synchronous: every sign-up answered with success before the primary died is on the promoted
    standby, its user and its sign-in (the refresh token works)."""
    acknowledged = [attempt for attempt in failover.attempts if attempt.outcome == "ok"]
    before = [attempt for attempt in acknowledged if attempt.ended < failover.died]
    ids = ",".join(f'"{attempt.user_id}"' for attempt in acknowledged)
    found = int(database.standby.psql(f"SELECT count(*) FROM users WHERE user_id = ANY('{{{ids}}}')",
                                      database="tessera_ha"))
    # A sign-up that failed may still have committed (its answer was lost with the primary): allowed, counted.
    failed = [attempt.email for attempt in failover.attempts if attempt.outcome != "ok"]
    emails = ",".join(f'"{email}"' for email in failed)
    stored, half_done = (database.standby.psql(
        f"SELECT count(*) || ',' || count(*) FILTER (WHERE NOT EXISTS "
        f"(SELECT 1 FROM token_families f WHERE f.user_id = u.user_id)) "
        f"FROM users u WHERE email = ANY('{{{emails}}}')", database="tessera_ha") if failed else "0,0").split(",")
    # The last sign-ins acknowledged before the failover (the most at risk) still refresh; UNAVAILABLE is retried
    # (as a client would) for a while, since this is about what the database kept.
    session = requests.Session()
    refreshed, retried = 0, 0
    for index, attempt in enumerate(before[-20:]):
        deadline = time.monotonic() + 20
        while True:
            answer = session.post(f"{servers[index % 2].public_url}/rpc", timeout=15, headers={"Connection": "close"},
                                  json={"jsonrpc": "2.0", "id": 1, "method": "token.refresh",
                                        "params": {"refreshToken": attempt.refresh_token}}).json()
            reason = answer.get("error", {}).get("data", {}).get("reason")
            if reason != UNAVAILABLE or time.monotonic() > deadline:
                break
            retried += 1
            time.sleep(0.2)
        refreshed += "result" in answer
    numbers = {"acknowledged": len(acknowledged), "acknowledged_before_failover": len(before),
               "lost": len(acknowledged) - found, "failed_yet_stored": int(stored),
               "failed_yet_stored_without_sign_in": int(half_done),
               "refreshed": f"{refreshed}/{len(before[-20:])}", "refreshes_retried": retried}
    report(f"failover ({failover.mode}): acknowledged sign-ups", numbers)
    assert numbers["lost"] == 0, numbers
    assert refreshed == len(before[-20:]), numbers
    # The old primary stays down (or frozen): nobody writes to it.
    assert database.primary.frozen if failover.mode == "hung" else not database.primary.running


def test_each_server_is_ready_and_listens_again_and_a_change_reaches_the_other_at_once(
        failover: Failover, servers: list[HAServer]):
    a, b = servers
    for server in servers:
        eventually(server.ready, 20, f"{server.name} /readyz")
        # Seen not listening after the failure, then listening again: on a new session, on the new primary (a
        # listener that never noticed would still claim to listen, to the old primary).
        back = failover.numbers["servers"][server.name]["listener_back_seconds"]
        assert back is not None and back < failover.bounds["listener"], \
            f"{server.name}'s change listener did not listen again within {failover.bounds['listener']} s: {back}"
        eventually(lambda: server.metric("tessera_change_listener_up") == 1, 20, f"{server.name} listens")
    admin = requests.Session()
    admin.headers["Authorization"] = f"Bearer {os.environ['TESSERA_ADMIN_KEY']}"

    def call(server: HAServer, method: str, params: dict) -> dict:
        body = admin.post(f"{server.admin_url}/rpc", timeout=15,
                          json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).json()
        assert "result" in body, body
        return body["result"]

    created = call(a, "oauthClients.create", {"client": {
        "clientName": "ha", "type": "confidential", "grantTypes": ["client_credentials"], "scopes": ["read"]}})
    client_id, old_secret = created["clientId"], created["clientSecret"]

    def grant(server: HAServer, secret: str) -> int:
        basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        return requests.post(f"{server.public_url}/oauth2/token", data={"grant_type": "client_credentials"},
                             headers={"Authorization": f"Basic {basic}"}, timeout=15).status_code

    # B reads the client and caches it.
    assert grant(b, old_secret) == 200 and grant(b, old_secret) == 200
    heard = b.metric("tessera_change_notices_heard")
    new_secret = call(a, "oauthClients.rotateSecret", {"clientId": client_id})["clientSecret"]
    seen = eventually(lambda: grant(b, old_secret) == 401, PROMPTLY, "the rotated secret refused by B")
    assert grant(b, new_secret) == 200
    assert b.metric("tessera_change_notices_heard") > heard, "B saw the change without a notice"
    report(f"failover ({failover.mode}): change notices", {"change_seen_by_other_server_seconds": seen})


def test_the_janitor_of_each_server_runs_again_on_the_new_primary(failover: Failover, database: ReplicatedDatabase,
                                                                  servers: list[HAServer]):
    passes = {server.name: server.metric("tessera_janitor_pass_seconds_count") for server in servers}
    code = secrets.token_hex(16)
    database.standby.psql("INSERT INTO oauth_spent_codes (code_hash, family_id, expires_at) VALUES "
                          f"('\\x{code}', 'ha-janitor', now() - interval '1 hour')", database="tessera_ha")
    deleted = eventually(lambda: database.standby.psql(
        f"SELECT count(*) FROM oauth_spent_codes WHERE code_hash = '\\x{code}'", database="tessera_ha") == "0",
        15, "the expired row deleted")
    # Every server's janitor completes passes again (the one that finds the lock taken completes an empty one).
    for server in servers:
        eventually(lambda: server.metric("tessera_janitor_pass_seconds_count") >= passes[server.name] + 2, 15,
                   f"{server.name}'s janitor passes")
    log = "".join((database.root / f"{server.name}.log").read_text() for server in servers)
    report(f"failover ({failover.mode}): janitor", {"expired_row_deleted_seconds": deleted,
                                 "passes_failed_during_failover": log.count("janitor pass failed")})
