"""Three `tessera serve` processes behind HAProxy on one PostgreSQL (the dev cluster's test database), for the
fleet tests (make fleet-test). Each server has its own public and admin port; HAProxy balances the public and the
admin listeners round robin, checks each server's /readyz on its admin port, and has a runtime socket through
which a rolling restart drains a server before stopping it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output" / "fleet"

sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from support import free_port  # noqa: E402  (the port helper the e2e tests use)


def wait_for(url: str, seconds: float = 60, process: subprocess.Popen | None = None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode} before {url} answered")
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer 200 within {seconds} s")


@dataclass
class Server:
    """One `tessera serve` of the fleet."""

    name: str
    public_port: int
    admin_port: int
    process: subprocess.Popen | None = None
    starts: int = 0


@dataclass
class Fleet:
    binary: str
    database_url: str
    master_key_file: str
    admin_key: str
    # Seconds between each server's janitor passes; 0 runs none.
    retention_interval: int = 5
    servers: list[Server] = field(default_factory=list)
    public_port: int = field(default_factory=free_port)
    admin_port: int = field(default_factory=free_port)
    mail_port: int = field(default_factory=free_port)
    sms_port: int = field(default_factory=free_port)
    haproxy: subprocess.Popen | None = None

    @property
    def public_url(self) -> str:
        return f"http://127.0.0.1:{self.public_port}"

    @property
    def admin_url(self) -> str:
        return f"http://127.0.0.1:{self.admin_port}"

    @property
    def socket_path(self) -> Path:
        return OUTPUT / "haproxy.sock"

    def start(self, count: int = 3):
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.servers = [Server(f"s{index + 1}", free_port(), free_port()) for index in range(count)]
        for server in self.servers:
            self.start_server(server)
        self.start_haproxy()

    def start_server(self, server: Server):
        server.starts += 1
        log = open(OUTPUT / f"{server.name}.log", "a")
        server.process = subprocess.Popen([
            self.binary, "serve", "--database-url", self.database_url,
            "--listen", f"127.0.0.1:{server.public_port}", "--admin-listen", f"127.0.0.1:{server.admin_port}",
            "--issuer", self.public_url, "--master-key-file", self.master_key_file,
            "--bootstrap-admin-key", self.admin_key, "--app-verification", "enforced",
            "--email-webhook-url", f"http://127.0.0.1:{self.mail_port}/mail",
            "--sms-webhook-url", f"http://127.0.0.1:{self.sms_port}/sms",
            "--trusted-proxy", "127.0.0.1", "--retention-interval", str(self.retention_interval),
        ], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for(f"http://127.0.0.1:{server.admin_port}/readyz", process=server.process)
        wait_for(f"http://127.0.0.1:{server.public_port}/healthz", process=server.process)

    def start_haproxy(self):
        public = "\n".join(
            f"    server {s.name} 127.0.0.1:{s.public_port} check port {s.admin_port} inter 300 fall 2 rise 2"
            for s in self.servers)
        admin = "\n".join(
            f"    server {s.name} 127.0.0.1:{s.admin_port} check inter 300 fall 2 rise 2" for s in self.servers)
        config = OUTPUT / "haproxy.cfg"
        config.write_text(f"""global
    maxconn 4096
    stats socket {self.socket_path} mode 600 level admin
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout http-keep-alive 5s
    # A request whose connection could not be made was not handled: it is sent to another server. Nothing else
    # is retried: a request that reached a server that then died may have been handled (a refresh token
    # rotated), and sending it again would present a used token.
    retries 2
    option redispatch
    retry-on conn-failure
frontend public
    bind 127.0.0.1:{self.public_port}
    option forwardfor
    default_backend servers
backend servers
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
{public}
frontend admin
    bind 127.0.0.1:{self.admin_port}
    default_backend admins
backend admins
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
{admin}
""")
        self.haproxy = subprocess.Popen(
            ["haproxy", "-f", str(config), "-db"], stdout=open(OUTPUT / "haproxy.log", "a"),
            stderr=subprocess.STDOUT)
        wait_for(self.public_url + "/healthz", process=self.haproxy)
        self.wait_until_all_up()

    def runtime(self, command: str) -> str:
        """A command of HAProxy's runtime API."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(str(self.socket_path))
            connection.sendall(command.encode() + b"\n")
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        return answer.decode()

    def states(self, backend: str = "servers") -> dict[str, str]:
        """Each server's HAProxy state (`UP`, `DOWN`, `MAINT`, …) in `backend`."""
        lines = self.runtime("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
        return {row["svname"]: row["status"] for row in rows
                if row["pxname"] == backend and row["svname"] not in ("FRONTEND", "BACKEND")}

    def wait_until_all_up(self, seconds: float = 30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if all(state.startswith("UP") for state in self.states().values()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"not every server is up in HAProxy: {self.states()}")

    def rolling_restart(self):
        """Each server in turn: drained in HAProxy (no new requests), its current sessions finished, SIGTERM,
        started again, up in HAProxy, ready again."""
        for server in self.servers:
            for backend in ("servers", "admins"):
                self.runtime(f"set server {backend}/{server.name} state drain")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.current_sessions(server.name) > 0:
                time.sleep(0.05)
            server.process.send_signal(signal.SIGTERM)
            assert server.process.wait(timeout=15) == 0, f"{server.name} did not stop cleanly"
            self.start_server(server)
            for backend in ("servers", "admins"):
                self.runtime(f"set server {backend}/{server.name} state ready")
            self.wait_until_all_up()

    def current_sessions(self, name: str) -> int:
        lines = self.runtime("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        return sum(int(row["scur"] or 0) for row in (dict(zip(header, line.split(","))) for line in lines[1:] if line)
                   if row["svname"] == name)

    def kill(self, server: Server):
        """`kill -9` of one server; HAProxy finds it down by its checks."""
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)

    def stop(self):
        for server in self.servers:
            if server.process and server.process.poll() is None:
                server.process.send_signal(signal.SIGTERM)
                try:
                    server.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.process.kill()
        if self.haproxy and self.haproxy.poll() is None:
            self.haproxy.terminate()
            self.haproxy.wait(timeout=10)


def from_environment(retention_interval: int) -> Fleet:
    return Fleet(
        binary=os.environ["TESSERA_BIN"], database_url=os.environ["TESSERA_TEST_DATABASE_URL"],
        master_key_file=os.environ["TESSERA_E2E_MASTER_KEY_FILE"], admin_key=os.environ["TESSERA_ADMIN_KEY"],
        retention_interval=retention_interval)
