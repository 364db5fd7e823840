"""The soak (make soak; scripts/soak.sh starts it): three `tessera serve` behind HAProxy (fleet.py) on a fresh database
of the durable benchmark cluster, under a steady load for SOAK_MINUTES, with a line every minute of what the database
holds and what each server's memory is, and a verdict at the end.

The load, all through HAProxy (every request may land on another server):

- the native-app cycle at `--rate` a second: a fixed pool of virtual users (`--users`), each signed in once through
  the login pages at the start (its browser session is its SSO), then per cycle `GET /oauth2/authorize` with PKCE and
  the SSO cookie -> 302 to the loopback redirect URI with a code -> `POST /oauth2/token` (authorization_code,
  code_verifier). The public client has the `refresh_token` grant only with `--refresh 1`, so the load legitimately
  creates one token family and one refresh token per cycle then, and none otherwise;
- every REPLAY_INTERVAL s, one more user (not of the pool) runs the cycle and redeems its code a second time, which
  must be refused (`invalid_grant`). A replay revokes the family the code's tokens name: with `--refresh 1` the one
  its grant created, without it the user's sign-in, which ends its browser session; that user then signs in again
  through the login pages at its next round (a new sign-in: one token family, one browser session, one login flow);
- an anonymous `GET /oauth2/authorize` every FLOW_INTERVAL s that never signs in: a login flow, kept 10 minutes;
- a wrong password at `accounts.signInWithPassword` every WRONG_PASSWORD_INTERVAL s, for addresses taken in turn from
  a pool of WRONG_PASSWORD_ADDRESSES that have no account: `login_failures` holds one row per address (each address
  fails 3 times per 15-minute window, below the limit of 10, so its window restarts rather than locks).

So codes are spent (`oauth_spent_codes`, 60 s) and login flows expire (10 min) at a steady rate, and the janitor
(`--retention-interval 5`) must keep every such table at a steady level. After the longest of these periods plus a
janitor interval (the settled window), the database must grow only by what the load legitimately creates, and each
server's resident memory must stay flat and under 100 MiB.

It prints a line a minute, writes every number to `<results>/soak.csv` and the table with the verdict to
`<results>/soak.txt`; the servers' and HAProxy's logs go to test-output/soak/. Exit status: 0 when the soak ran (a
target missed is reported as BELOW TARGET, as `make bench` does), 1 when the soak itself broke (more than 1 % of
any kind of request failed, or a server died).
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import json
import math
import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import requests

import fleet as fleet_module
from fleet import ROOT, Fleet

sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from loopback import Forms, prove_work  # noqa: E402  (the login-page form reader the e2e tests use)

# The fleet's logs and HAProxy's runtime socket go to test-output/soak, not test-output/fleet, so a soak and a fleet
# test (which empties test-output/fleet) can run side by side.
fleet_module.OUTPUT = ROOT / "test-output" / "soak"

PASSWORD = "correct horse battery"
REDIRECT_URI = "http://127.0.0.1/callback"
TIMEOUT = 15
# fleet.py starts every server with --retention-interval 5.
JANITOR_INTERVAL = 5
FLOW_INTERVAL = 2.0
WRONG_PASSWORD_INTERVAL = 5.0
WRONG_PASSWORD_ADDRESSES = 60
REPLAY_INTERVAL = 30.0
# The soak broke when more than this share of any kind of request failed.
MOST_FAILURES = 0.01
RSS_LIMIT_MIB = 100.0
RSS_DRIFT_MIB = 10.0
# What the settled window may grow by beyond what the load legitimately creates: relations extend a few pages at a
# time, and the first vacuum of a table adds its free-space and visibility maps.
SIZE_SLACK_BYTES = 1024 * 1024

# The tables whose live rows each line shows, their short names in the printed table, and for those the load puts
# rows in that expire, how long after the load starts their level is steady: the time their rows live (docs/
# operations.md, "The janitor"), or for login_failures the time until every address of the pool has failed once.
# Tables the load adds nothing to, or a fixed set of rows, must stay as they were after the set-up.
TABLES = {
    "oauth_spent_codes": "spent",
    "oauth_login_flows": "flows",
    "oauth_browser_sessions": "bsess",
    "token_families": "fam",
    "refresh_tokens": "rtok",
    "login_failures": "lfail",
    "rate_limits": "rlim",
    "mfa_sessions": "mfas",
    "mfa_pending_credentials": "mfap",
    "phone_sign_in_sessions": "phone",
    "oauth_revoked_access_tokens": "revat",
    "oauth_sso_revocations": "ssorev",
}
EXPIRING = {
    "oauth_spent_codes": 60,
    "oauth_login_flows": 600,
    "login_failures": WRONG_PASSWORD_ADDRESSES * WRONG_PASSWORD_INTERVAL,
}
# Tables whose growth is the load's legitimate product, judged against what it created: each sign-in through the
# login pages makes a token family with its refresh token (the sign-in's, which the pages never hand out, a row of
# refresh_tokens) and a browser session (12 h); each refresh token a code grant issues, a family of its own that
# holds the token in its row.
GRANT_TABLES = ("token_families", "refresh_tokens", "oauth_browser_sessions", "oauth_sso_revocations")
KINDS = ("cycle", "replay", "flow", "wrong_password")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class RPCError(Exception):
    def __init__(self, error: dict):
        self.reason = error.get("data", {}).get("reason") or error.get("message")
        super().__init__(self.reason)


def rpc(url: str, method: str, params: dict, headers: dict | None = None) -> dict:
    answer = requests.post(f"{url}/rpc", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                       headers=headers or {}, timeout=TIMEOUT)
    answer.raise_for_status()
    body = answer.json()
    if "error" in body:
        raise RPCError(body["error"])
    return body["result"]


@dataclass
class User:
    email: str
    http: requests.Session = field(default_factory=requests.Session)


@dataclass
class Load:
    """The soak's load: the cycle workers and the three background senders (flows, wrong passwords, replays), with
    their counts."""

    fleet: Fleet
    client_id: str
    tenant_id: str
    rate: int
    refresh: bool
    users: list[User]
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ok: Counter = field(default_factory=Counter)
    failed: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)
    replayer: User | None = None
    grants: int = 0
    refresh_tokens_issued: int = 0
    sign_ins: int = 0
    scheduled: int = 0
    worst_lag: float = 0.0
    threads: list[threading.Thread] = field(default_factory=list)

    @property
    def scope(self) -> str:
        return "openid email offline_access" if self.refresh else "openid email"

    def count(self, kind: str, ok: bool, reason: str = ""):
        with self.lock:
            (self.ok if ok else self.failed)[kind] += 1
            if not ok:
                self.reasons[f"{kind}: {reason}"[:160]] += 1

    def snapshot(self) -> dict:
        with self.lock:
            return {"ok": dict(self.ok), "failed": dict(self.failed), "grants": self.grants,
                    "refresh_tokens_issued": self.refresh_tokens_issued, "sign_ins": self.sign_ins,
                    "worst_lag": self.worst_lag}

    # The requests.

    def authorize_query(self, verifier: str, state: str) -> str:
        return urlencode({
            "response_type": "code", "client_id": self.client_id, "redirect_uri": REDIRECT_URI, "scope": self.scope,
            "state": state, "nonce": b64url(secrets.token_bytes(12)),
            "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256"})

    def redeem(self, http: requests.Session, code: str, verifier: str) -> requests.Response:
        return http.post(f"{self.fleet.public_url}/oauth2/token", timeout=TIMEOUT, data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
            "client_id": self.client_id, "code_verifier": verifier})

    def code_from(self, location: str, state: str) -> str:
        if not location.startswith(REDIRECT_URI + "?"):
            raise AssertionError(f"redirected to {location[:80]}")
        params = dict(parse_qsl(urlsplit(location).query))
        if params.get("state") != state or "code" not in params:
            raise AssertionError(f"redirect without the code or the state: {sorted(params)}")
        return params["code"]

    def check_tokens(self, answer: requests.Response) -> dict:
        """The tokens of a code grant, counted: what the grant legitimately left in the database."""
        if answer.status_code != 200:
            raise AssertionError(f"token {answer.status_code} {answer.text[:80]}")
        tokens = answer.json()
        if "access_token" not in tokens or ("refresh_token" in tokens) != self.refresh:
            raise AssertionError(f"token answer with {sorted(tokens)}")
        with self.lock:
            self.grants += 1
            self.refresh_tokens_issued += "refresh_token" in tokens
        return tokens

    def authorize(self, user: User, may_sign_in: bool) -> tuple[str, str]:
        """A code for `user` and its PKCE verifier: at once by SSO (302 to the redirect URI), or, when the browser
        has no live session and `may_sign_in`, after the login pages (the password form) sign the user in, which
        gives the browser its session."""
        verifier, state = b64url(secrets.token_bytes(32)), b64url(secrets.token_bytes(16))
        answer = user.http.get(f"{self.fleet.public_url}/oauth2/authorize?{self.authorize_query(verifier, state)}",
                               timeout=TIMEOUT, allow_redirects=False)
        location = answer.headers.get("Location", "")
        if answer.status_code == 302 and location.startswith(REDIRECT_URI):
            return self.code_from(location, state), verifier
        if not may_sign_in or answer.status_code not in (302, 303) or "/oauth2/login?flow=" not in location:
            raise AssertionError(f"authorize {answer.status_code} {location[:60]}")
        page = user.http.get(urljoin(answer.url, location), timeout=TIMEOUT)
        form = Forms(page.text).forms.get("password-form")
        if page.status_code != 200 or form is None:
            raise AssertionError(f"the sign-in page answered {page.status_code} without the password form")
        fields = {**form["hidden"], "email": user.email, "password": PASSWORD}
        fields.update(prove_work(form, fields))
        answer = user.http.post(urljoin(page.url, form["action"]), data=fields, timeout=TIMEOUT,
                                allow_redirects=False)
        # Follow the redirects on the issuer until one leaves for the redirect URI.
        for _ in range(5):
            location = answer.headers.get("Location", "")
            if answer.status_code not in (302, 303) or location.startswith(REDIRECT_URI):
                break
            answer = user.http.get(urljoin(answer.url, location), timeout=TIMEOUT, allow_redirects=False)
        code = self.code_from(answer.headers.get("Location", f"(HTTP {answer.status_code})"), state)
        with self.lock:
            self.sign_ins += 1
        return code, verifier

    def sign_in(self, user: User):
        """The user's sign-in at the start, through the login pages; the code it ends with is redeemed."""
        code, verifier = self.authorize(user, may_sign_in=True)
        self.check_tokens(self.redeem(user.http, code, verifier))

    def cycle(self, user: User):
        code, verifier = self.authorize(user, may_sign_in=False)
        self.check_tokens(self.redeem(user.http, code, verifier))

    def replay(self, index: int):
        """The cycle of the replaying user, whose code is then redeemed again: refused, and the family the code's
        tokens name revoked (without the refresh_token grant, the sign-in: the next round signs in again)."""
        code, verifier = self.authorize(self.replayer, may_sign_in=True)
        self.check_tokens(self.redeem(self.replayer.http, code, verifier))
        again = self.redeem(self.replayer.http, code, verifier)
        refused = again.status_code == 400 and again.json().get("error") == "invalid_grant"
        self.count("replay", refused, f"a replayed code answered {again.status_code} {again.text[:60]}")

    # The threads.

    def start(self, workers: int):
        self.started = time.monotonic()
        pool: queue.Queue[User] = queue.Queue()
        for user in self.users:
            pool.put(user)
        for _ in range(workers):
            self.spawn(self.cycle_worker, pool)
        # Offset from each other, so that the replaying user's sign-in never checks its password together with a
        # wrong password: each check holds scrypt's 32 MiB for its ~50 ms, and two at once on one server are 64.
        self.spawn(self.every, "flow", FLOW_INTERVAL, 0.5, self.anonymous_flow)
        self.spawn(self.every, "wrong_password", WRONG_PASSWORD_INTERVAL, 1.5, self.wrong_password)
        self.spawn(self.every, "replay", REPLAY_INTERVAL, 3.0, self.replay)

    def spawn(self, target, *args):
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self.threads.append(thread)

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=2 * TIMEOUT + 5)

    def cycle_worker(self, pool: queue.Queue):
        """Takes the next slot of the schedule (one every 1/rate s from the start), waits for it, and runs a cycle
        with a user no other worker holds. A worker that is late starts at once, so the rate catches up."""
        while not self.stop.is_set():
            with self.lock:
                index = self.scheduled
                self.scheduled += 1
            slot = self.started + index / self.rate
            if self.stop.wait(max(0.0, slot - time.monotonic())):
                return
            with self.lock:
                self.worst_lag = max(self.worst_lag, time.monotonic() - slot)
            user = pool.get()
            try:
                self.cycle(user)
                self.count("cycle", True)
            except (requests.RequestException, AssertionError, ValueError) as failure:
                self.count("cycle", False, f"{type(failure).__name__}: {failure}")
            finally:
                pool.put(user)

    def every(self, kind: str, interval: float, offset: float, action):
        """Runs `action(index)` every `interval` s from `offset` s after the start; a request that fails counts as a
        failed `kind`."""
        index = 0
        while not self.stop.wait(max(0.0, self.started + offset + index * interval - time.monotonic())):
            try:
                action(index)
            except (requests.RequestException, AssertionError, ValueError) as failure:
                self.count(kind, False, f"{type(failure).__name__}: {failure}")
            index += 1

    def anonymous_flow(self, index: int):
        """A browser that opens the sign-in page and leaves: a login flow that expires 10 minutes later."""
        verifier, state = b64url(secrets.token_bytes(32)), b64url(secrets.token_bytes(16))
        page = requests.get(f"{self.fleet.public_url}/oauth2/authorize?{self.authorize_query(verifier, state)}",
                            timeout=TIMEOUT)
        self.count("flow", page.status_code == 200 and "/oauth2/login?flow=" in page.url,
                   f"authorize {page.status_code}")

    def wrong_password(self, index: int):
        email = f"nobody-{index % WRONG_PASSWORD_ADDRESSES}@soak.example.com"
        try:
            rpc(self.fleet.public_url, "accounts.signInWithPassword",
                {"email": email, "password": "not the password", "tenantId": self.tenant_id})
        except RPCError as refusal:
            self.count("wrong_password", refusal.reason in ("INVALID_LOGIN_CREDENTIALS", "EMAIL_NOT_FOUND",
                                                             "INVALID_PASSWORD"), f"refused with {refusal.reason}")
            return
        self.count("wrong_password", False, "a wrong password was accepted")


# Sampling.

def psql_json(database_url: str, sql: str) -> dict:
    answer = subprocess.run(["psql", database_url, "-XAtqc", sql], capture_output=True, text=True, timeout=60)
    if answer.returncode != 0:
        raise RuntimeError(f"psql failed: {answer.stderr.strip()}")
    return json.loads(answer.stdout)


SAMPLE_SQL = "SELECT json_build_object('db', pg_database_size(current_database()), 'rows', json_build_object(" + \
    ", ".join(f"'{table}', (SELECT count(*) FROM {table})" for table in TABLES) + \
    "), 'tables', (SELECT json_object_agg(relname, json_build_array(n_live_tup, n_dead_tup, " \
    "pg_total_relation_size(relid), autovacuum_count, vacuum_count, " \
    "to_char(last_autovacuum AT TIME ZONE 'UTC', 'HH24:MI:SS'))) FROM pg_stat_user_tables))"


def memory(pid: int) -> tuple[float, float]:
    """The process's resident set and its peak (VmRSS, VmHWM), in MiB."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, rest = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                values[name] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


class MemoryWatch:
    """Each server's resident memory, read every second: per minute its floor (the least VmRSS read, where a leak
    shows) and its peak (VmHWM, which the kernel keeps however briefly the memory was resident, such as a scrypt's
    32 MiB; reset every minute by writing 5 to /proc/PID/clear_refs, so each minute has its own)."""

    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        self.floor: dict[str, float] = {}
        self.resettable = True

    def read(self):
        for server in self.fleet.servers:
            rss, _ = memory(server.process.pid)
            self.floor[server.name] = min(rss, self.floor.get(server.name, rss))

    def minute(self) -> tuple[dict[str, float], dict[str, float]]:
        """The floor and the peak of each server since the last call, and a new minute begun."""
        self.read()
        floor, self.floor = self.floor, {}
        peak = {server.name: memory(server.process.pid)[1] for server in self.fleet.servers}
        for server in self.fleet.servers:
            try:
                Path(f"/proc/{server.process.pid}/clear_refs").write_text("5")
            except OSError:
                self.resettable = False
        return floor, peak


class CPUWatch:
    """The CPU time of the servers, of HAProxy and of this load generator, and how busy the whole machine was (it is
    shared: what else runs shows here), per minute, in % of one core (the machine's: of all its cores)."""

    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        self.tick = os.sysconf("SC_CLK_TCK")
        self.last = self.read()

    def read(self) -> dict[str, float]:
        def process(pid: int) -> float:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / self.tick
        with open("/proc/stat") as stat:
            machine = [int(value) for value in stat.readline().split()[1:]]
        return {"servers": sum(process(server.process.pid) for server in self.fleet.servers),
                "haproxy": process(self.fleet.haproxy.pid), "load": sum(os.times()[:2]),
                "busy": (sum(machine) - machine[3] - machine[4] - machine[7]) / self.tick,
                "total": sum(machine) / self.tick, "steal": machine[7] / self.tick, "at": time.monotonic()}

    def minute(self) -> dict[str, float]:
        now = self.read()
        seconds = max(now["at"] - self.last["at"], 1e-9)
        total = max(now["total"] - self.last["total"], 1e-9)
        used = {name: 100 * (now[name] - self.last[name]) / seconds for name in ("servers", "haproxy", "load")}
        used["busy"] = 100 * (now["busy"] - self.last["busy"]) / total
        used["steal"] = 100 * (now["steal"] - self.last["steal"]) / total
        self.last = now
        return used


@dataclass
class Sample:
    minute: str
    elapsed: float
    load: dict
    db: int
    rows: dict[str, int]
    tables: dict[str, list]
    rss: dict[str, float]
    peak: dict[str, float]
    cpu: dict[str, float]

    def done(self, kind: str, outcome: str = "ok") -> int:
        return self.load[outcome].get(kind, 0)

    def dead(self) -> int:
        return sum(self.tables.get(table, [0, 0])[1] for table in TABLES)


def take_sample(minute: str, started: float, load: Load, watch: MemoryWatch, cpu: CPUWatch, database_url: str
                ) -> Sample:
    numbers = psql_json(database_url, SAMPLE_SQL)
    rss, peak = watch.minute()
    return Sample(minute, time.monotonic() - started, load.snapshot(), numbers["db"], numbers["rows"],
                  numbers["tables"] or {}, rss, peak, cpu.minute())


def header(servers: list[str]) -> str:
    return (f"{'min':>4} {'cycles':>7} {'fail':>5} {'db MiB':>8} "
            + " ".join(f"{name + ' MiB':>11}" for name in servers) + f" {'srv%':>5} {'busy%':>5} "
            + " ".join(f"{short:>6}" for short in TABLES.values()) + f" {'dead':>6}")


def line(sample: Sample, previous: Sample | None) -> str:
    cycles = sample.done("cycle") + sample.done("cycle", "failed")
    failures = sum(sample.load["failed"].values())
    if previous is not None:
        cycles -= previous.done("cycle") + previous.done("cycle", "failed")
        failures -= sum(previous.load["failed"].values())
    return (f"{sample.minute:>4} {cycles:>7} {failures:>5} {sample.db / 2**20:>8.2f} "
            + " ".join(f"{f'{sample.rss[name]:.1f}/{sample.peak[name]:.1f}':>11}" for name in sample.rss)
            + f" {sample.cpu['servers']:>5.0f} {sample.cpu['busy']:>5.0f} "
            + " ".join(f"{sample.rows[table]:>6}" for table in TABLES) + f" {sample.dead():>6}")


def write_csv(path: Path, samples: list[Sample]):
    servers = list(samples[0].rss)
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["minute", "elapsed_s", *(f"{kind}_ok" for kind in KINDS),
                         *(f"{kind}_failed" for kind in KINDS), "grants", "refresh_tokens_issued", "sign_ins",
                         "db_bytes", *(f"rss_floor_mib_{name}" for name in servers),
                         *(f"rss_peak_mib_{name}" for name in servers), "cpu_servers_pct", "cpu_haproxy_pct",
                         "cpu_load_pct", "machine_busy_pct", "machine_steal_pct",
                         *(f"rows_{table}" for table in TABLES), *(f"dead_{table}" for table in TABLES),
                         *(f"bytes_{table}" for table in TABLES)])
        for sample in samples:
            writer.writerow([
                sample.minute, f"{sample.elapsed:.1f}", *(sample.done(kind) for kind in KINDS),
                *(sample.done(kind, "failed") for kind in KINDS), sample.load["grants"],
                sample.load["refresh_tokens_issued"], sample.load["sign_ins"], sample.db,
                *(f"{sample.rss[name]:.1f}" for name in servers),
                *(f"{sample.peak[name]:.1f}" for name in servers),
                *(f"{sample.cpu[name]:.1f}" for name in ("servers", "haproxy", "load", "busy", "steal")),
                *(sample.rows[table] for table in TABLES),
                *(sample.tables.get(table, [0, 0])[1] for table in TABLES),
                *(sample.tables.get(table, [0, 0, 0])[2] for table in TABLES)])


# The verdict.

def settled_index(seconds: float) -> int:
    """The first minute whose sample is at least `seconds` plus a janitor interval after the load started."""
    return math.ceil((seconds + JANITOR_INTERVAL) / 60) if seconds else 0


def legitimate(first: Sample, then: Sample, refresh_grant: bool) -> dict[str, int]:
    """The rows the load legitimately added to each of GRANT_TABLES between two samples. Without the refresh_token
    grant a replay revokes the replaying user's sign-in, whose live browser session then ends early: one row of
    oauth_sso_revocations, kept until the session's expiry (12 h)."""
    refresh = then.load["refresh_tokens_issued"] - first.load["refresh_tokens_issued"]
    sign_ins = then.load["sign_ins"] - first.load["sign_ins"]
    replays = 0 if refresh_grant else then.done("replay") - first.done("replay")
    return {"token_families": refresh + sign_ins, "refresh_tokens": sign_ins,
            "oauth_browser_sessions": sign_ins, "oauth_sso_revocations": replays}


def verdict(samples: list[Sample], final: Sample, rate: int, refresh: bool, resettable: bool
            ) -> tuple[list[str], bool]:
    """The verdict's lines, and whether the soak itself broke."""
    out: list[str] = []
    last = samples[-1]
    broke = False

    def judged(ok: bool) -> str:
        return "PASS" if ok else "BELOW TARGET"

    # The soak itself.
    out.append("The load:")
    for kind in KINDS:
        ok, failed = final.done(kind), final.done(kind, "failed")
        share = failed / (ok + failed) if ok + failed else 0.0
        too_many = share > MOST_FAILURES
        broke |= too_many
        out.append(f"  {kind:<15} {ok:>7} ok {failed:>5} failed ({100 * share:.2f} %)"
                   + ("  <- more than 1 %: the soak broke" if too_many else ""))
    cycles = final.done("cycle") + final.done("cycle", "failed")
    out.append(f"  cycles a second: {cycles / last.elapsed:.1f} (asked {rate}), "
               f"the worst start behind the schedule {final.load['worst_lag']:.2f} s")
    during = samples[1:]
    if during:
        def mean(name: str) -> float:
            return sum(s.cpu[name] for s in during) / len(during)
        out.append(f"  CPU, mean of the minutes: the three servers {mean('servers'):.0f} % of one core "
                   f"({10 * mean('servers') / rate:.1f} ms a cycle, everything included), "
                   f"HAProxy {mean('haproxy'):.0f} %, "
                   f"the load generator {mean('load'):.0f} %; the whole machine {mean('busy'):.0f} % busy of "
                   f"{os.cpu_count()} cores (steal {mean('steal'):.1f} %)")

    settle = settled_index(max(EXPIRING.values()))
    window = (samples[settle], last) if settle < len(samples) - 1 else None
    if window:
        out.append(f"The settled window: minutes {window[0].minute}-{window[1].minute} (the longest expiry the load "
                   f"creates, {max(EXPIRING.values())} s for login flows, plus a janitor interval of "
                   f"{JANITOR_INTERVAL} s).")
    else:
        out.append(f"No settled window: the longest expiry the load creates ({max(EXPIRING.values())} s, login "
                   f"flows) plus a janitor interval ends at minute {settle}, so SOAK_MINUTES must be at least "
                   f"{settle + 1} for (c) and the flatness of (d); what can be judged is judged below.")

    # (a) Ephemeral tables: live rows do not grow once their own expiry has passed.
    out.append("(a) Each ephemeral table's live rows do not grow once what the load puts in it expires "
               "(tolerance 10 rows + 10 % of the level at the start):")
    for table in TABLES:
        if table in GRANT_TABLES:
            continue
        start_index = settled_index(EXPIRING.get(table, 0))
        if start_index >= len(samples) - 1:
            out.append(f"  {table:<28} not judged: steady only from minute {start_index}")
            continue
        start, end = samples[start_index].rows[table], last.rows[table]
        ok = end - start <= 10 + 0.1 * start
        out.append(f"  {table:<28} {judged(ok):<12} minute {samples[start_index].minute}: {start}, "
                   f"minute {last.minute}: {end}, highest {max(s.rows[table] for s in samples[start_index:])}")

    # (b) Token families, refresh tokens, browser sessions: exactly what the load created.
    base = samples[0]
    created = legitimate(base, final, refresh)
    out.append(f"(b) token_families, refresh_tokens, oauth_browser_sessions and oauth_sso_revocations grow by what "
               f"the load legitimately created, counted after it stopped: {final.load['grants'] - base.load['grants']} "
               f"code grants issued {created['token_families'] - created['oauth_browser_sessions']} refresh tokens "
               f"(SOAK_REFRESH={int(refresh)}; each a family that holds it), {final.load['sign_ins'] - base.load['sign_ins']} sign-ins through the login pages (each a "
               f"family and a browser session), {created['oauth_sso_revocations']} replays that revoked a sign-in "
               f"with a live browser session:")
    grants = final.load["grants"] - base.load["grants"]
    for table in GRANT_TABLES:
        grown = final.rows[table] - base.rows[table]
        out.append(f"  {table:<28} {judged(grown == created[table]):<12} grew by {grown} "
                   f"({grown / grants if grants else 0:.3f} a code grant), expected {created[table]}")

    # (c) Database size over the settled window against what (b) explains.
    if window:
        first, end = window
        cycles_in = (end.done("cycle") + end.done("cycle", "failed")
                     - first.done("cycle") - first.done("cycle", "failed"))
        grown = end.db - first.db
        explained = 0.0
        for table, rows in legitimate(first, end, refresh).items():
            live, size = final.rows[table], final.tables.get(table, [0, 0, 0])[2]
            explained += rows * (size / live if live else 0)
        relations = {table: end.tables.get(table, [0, 0, 0])[2] - first.tables.get(table, [0, 0, 0])[2]
                     for table in end.tables}
        ok = grown <= explained + SIZE_SLACK_BYTES
        per_cycle = (lambda size: f"{size / cycles_in:.0f}") if cycles_in else (lambda size: "-")
        out.append(f"(c) Database size over the settled window: {judged(ok)}: grew {grown / 2**20:.2f} MiB in "
                   f"{cycles_in} cycles, {per_cycle(grown)} bytes a cycle; what (b) legitimately explains: "
                   f"{explained / 2**20:.2f} MiB ({per_cycle(explained)} bytes a cycle, at each table's bytes a row); "
                   f"allowed beyond it: {SIZE_SLACK_BYTES / 2**20:.0f} MiB.")
        growers = sorted(((size, table) for table, size in relations.items() if size), reverse=True)[:6]
        out.append(("  grown most (table with its indexes and TOAST): " + ", ".join(
            f"{table} {size / 2**10:+.0f} KiB" for size, table in growers)) if growers else "  no table grew")
    else:
        out.append("(c) Database size: not judged (no settled window).")

    # (d) Each server's resident memory: its peak under the limit, its floor flat.
    out.append(f"(d) Each server's resident memory: its peak during the load under {RSS_LIMIT_MIB:.0f} MiB"
               + ("" if resettable else " (VmHWM could not be reset: the peaks include the start)")
               + (f", and its floor (the least read in a minute) at most {RSS_DRIFT_MIB:.0f} MiB higher at the end "
                  f"of the settled window than at its start:" if window else " (flatness not judged: no settled "
                                                                           "window):"))
    for name in last.rss:
        during = samples[1:] + [final]
        peak = max(s.peak[name] for s in during)
        peak_minute = next(s.minute for s in during if s.peak[name] == peak)
        ok = peak < RSS_LIMIT_MIB
        over = sum(s.peak[name] >= RSS_LIMIT_MIB for s in during)
        text = (f"{name}: peak {peak:.1f} MiB (minute {peak_minute}, {over} of {len(during)} minutes at "
                f"{RSS_LIMIT_MIB:.0f} MiB or more), floor "
                f"{min(s.rss[name] for s in during):.1f}-{max(s.rss[name] for s in during):.1f} MiB")
        if window:
            drift = window[1].rss[name] - window[0].rss[name]
            ok = ok and drift <= RSS_DRIFT_MIB
            text += (f", minute {window[0].minute} {window[0].rss[name]:.1f} -> minute {window[1].minute} "
                     f"{window[1].rss[name]:.1f} MiB ({drift:+.1f})")
        out.append(f"  {judged(ok):<12} {text}")
    return out, broke


def autovacuum_report(first: Sample, final: Sample) -> list[str]:
    out = [f"Vacuum (after the load): {'table':<28} {'live':>8} {'dead':>7} {'MiB':>7} {'grew MiB':>8} "
           f"{'autovacuums':>11} {'last (UTC)':>10}"]
    for table in TABLES:
        live, dead, size, autovacuums, _, last = final.tables.get(table, [0, 0, 0, 0, 0, None])
        grown = size - first.tables.get(table, [0, 0, 0])[2]
        out.append(f"{'':24}{table:<28} {live:>8} {dead:>7} {size / 2**20:>7.2f} {grown / 2**20:>8.2f} "
                   f"{autovacuums:>11} {last or '-':>10}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--master-key-file", required=True)
    parser.add_argument("--admin-key-file", required=True)
    parser.add_argument("--minutes", type=int, required=True)
    parser.add_argument("--rate", type=int, required=True)
    parser.add_argument("--refresh", type=int, choices=(0, 1), required=True)
    parser.add_argument("--users", type=int, required=True)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--title", default="")
    arguments = parser.parse_args()
    # scripts/soak.sh stops the soak with SIGTERM when it is interrupted: the fleet is then stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    fleet = Fleet(binary=arguments.binary, database_url=arguments.database_url,
                  master_key_file=arguments.master_key_file,
                  admin_key=Path(arguments.admin_key_file).read_text().strip())
    output = fleet_module.OUTPUT
    output.mkdir(parents=True, exist_ok=True)
    log = open(output / "soak.log", "w")

    def say(text: str = ""):
        print(text, flush=True)
        log.write(text + "\n")
        log.flush()

    load = None
    try:
        fleet.start()
        # Minute 0 is the set-up: from here to the first line.
        watch, cpu = MemoryWatch(fleet), CPUWatch(fleet)
        (output / "pids").write_text("".join(f"{server.process.pid}\n" for server in fleet.servers)
                                     + f"{fleet.haproxy.pid}\n")
        pids = ", ".join(f"{server.name} pid {server.process.pid}" for server in fleet.servers)
        say(f"soak: three servers behind HAProxy at {fleet.public_url} ({pids})")
        admin = {"Authorization": f"Bearer {fleet.admin_key}"}
        tenant = rpc(fleet.admin_url, "tenants.create", {"tenant": {"displayName": "Soak"}}, admin)["tenantId"]
        grants = ["authorization_code", "refresh_token"] if arguments.refresh else ["authorization_code"]
        client = rpc(fleet.admin_url, "oauthClients.create", {"tenantId": tenant, "client": {
            "clientName": "Soak native app", "type": "public", "redirectUris": [REDIRECT_URI],
            "grantTypes": grants}}, admin)["clientId"]
        users = []
        for index in range(arguments.users + 1):
            email = f"soak-{index}@soak.example.com"
            rpc(fleet.admin_url, "users.create", {"email": email, "password": PASSWORD, "emailVerified": True,
                                                  "tenantId": tenant}, admin)
            users.append(User(email))
        load = Load(fleet, client, tenant, arguments.rate, bool(arguments.refresh), users[1:], replayer=users[0])
        for user in users:
            load.sign_in(user)
        say(f"soak: tenant {tenant}, public client {client} (grants {', '.join(grants)}), {len(load.users)} users "
            f"signed in once; {arguments.rate} cycles a second for {arguments.minutes} min; an anonymous login flow "
            f"every {FLOW_INTERVAL:g} s, a wrong password every {WRONG_PASSWORD_INTERVAL:g} s, a replayed code "
            f"every {REPLAY_INTERVAL:g} s (by one more user, who signs in again when the replay ended its sign-in)")
        say("columns: cycles and failures in the minute; pg_database_size; each server's resident memory in the "
            "minute, floor/peak (the least VmRSS read each second / VmHWM); srv% = the three servers' CPU, in % "
            "of one core; busy% = the whole machine's, of all its cores (it is shared); live rows of "
            + ", ".join(f"{short}={table}" for table, short in TABLES.items()) + "; dead = their dead tuples")
        workers = min(len(load.users), 4 + arguments.rate // 5)
        started = time.monotonic()
        samples = [take_sample("0", started, load, watch, cpu, arguments.database_url)]
        say(header([server.name for server in fleet.servers]))
        say(line(samples[0], None))
        load.start(workers)
        started = load.started
        for minute in range(1, arguments.minutes + 1):
            while time.monotonic() < started + 60 * minute:
                time.sleep(min(1.0, max(0.0, started + 60 * minute - time.monotonic())))
                watch.read()
                for server in fleet.servers:
                    if server.process.poll() is not None:
                        raise RuntimeError(f"{server.name} exited with {server.process.returncode} (see "
                                           f"{output / (server.name + '.log')})")
            samples.append(take_sample(str(minute), started, load, watch, cpu, arguments.database_url))
            say(line(samples[-1], samples[-2]))
        load.finish()
        time.sleep(1)
        final = take_sample("end", started, load, watch, cpu, arguments.database_url)
        say(line(final, samples[-1]) + "  (after the load stopped)")
        write_csv(arguments.results / "soak.csv", samples + [final])

        lines, broke = verdict(samples, final, arguments.rate, bool(arguments.refresh), watch.resettable)
        lines += autovacuum_report(samples[0], final)
        if load.reasons:
            lines.append("Failures: " + "; ".join(
                f"{reason} x{count}" for reason, count in load.reasons.most_common(8)))
        if broke:
            lines.append("The soak broke: more than 1 % of some kind of request failed (see test-output/soak/).")
        say()
        for text in lines:
            say(text)
        table = (output / "soak.log").read_text()
        (arguments.results / "soak.txt").write_text((arguments.title + "\n" if arguments.title else "") + table)
        return 1 if broke else 0
    except (RuntimeError, requests.RequestException, RPCError) as failure:
        say(f"soak: error: {failure}")
        return 1
    finally:
        if load is not None:
            load.stop.set()
        fleet.stop()


if __name__ == "__main__":
    sys.exit(main())
