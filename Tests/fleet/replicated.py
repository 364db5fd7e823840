"""A PostgreSQL primary with a synchronous streaming standby, made from scratch for the high-availability test
(Tests/fleet/test_ha.py), and `tessera serve` processes on it through a multi-host libpq URL.

Each cluster belongs to the `postgres` OS user when the test runs as root (initdb refuses root, as in
scripts/dev-db.sh), listens on no TCP port, only on a Unix socket in a private directory, and keeps its data and
log under test-output/fleet/ha/. The standby is a `pg_basebackup -R` copy of the primary that streams its WAL;
once it streams, the primary names it in `synchronous_standby_names`, so that a commit is acknowledged only once
the standby has it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from fleet import OUTPUT, free_port, wait_for

HA = OUTPUT / "ha"
OWNER = "postgres"
DATABASE = "tessera_ha"
STANDBY_NAME = "standby"


def server_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin with initdb and pg_basebackup (PG_BIN wins), or None."""
    if os.environ.get("PG_BIN"):
        candidates = [Path(os.environ["PG_BIN"])]
    else:
        versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                          key=lambda path: [int(part) for part in path.parent.name.split(".") if part.isdigit()])
        candidates = list(reversed(versions))
    for candidate in candidates:
        if all((candidate / tool).is_file() for tool in ("initdb", "pg_ctl", "pg_basebackup", "postgres")):
            return candidate
    return None


def missing_tools() -> str | None:
    """Why the test cannot run here (no PostgreSQL server binaries, no `postgres` user as root), or None."""
    if server_bin_dir() is None:
        where = os.environ.get("PG_BIN") or "/usr/lib/postgresql/*/bin"
        return f"no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) in {where} (make deps installs them)"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root needs runuser to run PostgreSQL as the postgres user"
        if subprocess.run(["id", "-u", OWNER], capture_output=True).returncode != 0:
            return f"running as root needs a '{OWNER}' OS user to own the clusters"
    if shutil.which("psql") is None:
        return "no psql"
    return None


def as_owner(*command: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs a PostgreSQL tool as the clusters' owner (`postgres` when we are root), from /."""
    prefix = ["runuser", "-u", OWNER, "--"] if os.geteuid() == 0 else []
    ran = subprocess.run([*prefix, *command], cwd="/", capture_output=True, text=True, timeout=timeout)
    if check and ran.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({ran.returncode}): {ran.stdout}{ran.stderr}")
    return ran


def owned_directory(path: Path, mode: int) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)
    if os.geteuid() == 0:
        shutil.chown(path, OWNER, OWNER)
    return path


@dataclass
class Cluster:
    """One PostgreSQL server under `root`: its data directory, its private socket directory and port (which only
    names the socket), and its log."""

    name: str
    bin: Path
    root: Path
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.root / self.name

    @property
    def sockets(self) -> Path:
        near = self.root / f"{self.name}-socket"
        # A socket's path holds at most 107 bytes: a deep checkout gets a short directory under /tmp instead.
        if len(str(near / f".s.PGSQL.{self.port}")) <= 100:
            return near
        return Path(f"/tmp/tessera-ha-{os.getpid()}-{self.root.name}-{self.name}")

    @property
    def log(self) -> Path:
        return self.root / f"{self.name}.log"

    def tool(self, name: str) -> str:
        return str(self.bin / name)

    def start(self):
        """Starts the server with its own socket and port (command-line settings win over the copied files)."""
        owned_directory(self.sockets, 0o755)
        if not self.log.exists():
            self.log.touch()
            if os.geteuid() == 0:
                shutil.chown(self.log, OWNER, OWNER)
        as_owner(self.tool("pg_ctl"), "--pgdata", str(self.data), "--log", str(self.log), "--wait",
                 "--timeout", "60", "--silent", "start",
                 "-o", f"-c port={self.port} -c unix_socket_directories={self.sockets} -c listen_addresses=''")

    def stop(self, mode: str = "fast"):
        as_owner(self.tool("pg_ctl"), "--pgdata", str(self.data), "--mode", mode, "--wait", "--timeout", "60",
                 "--silent", "stop")

    def promote(self):
        """Ends recovery and waits until the server accepts writes."""
        as_owner(self.tool("pg_ctl"), "--pgdata", str(self.data), "--wait", "--timeout", "60", "--silent",
                 "promote")

    def processes(self) -> list[int]:
        """The postmaster's pid and its children's (the backends and auxiliary processes)."""
        pid_file = self.data / "postmaster.pid"
        try:
            postmaster = int(pid_file.read_text().split()[0])
            # A stale file may name a pid that some other program has now.
            if Path(f"/proc/{postmaster}/comm").read_text().strip() not in ("postgres", "postmaster"):
                return []
        except (OSError, ValueError, IndexError):
            return []
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                children.append(int(stat.parent.name))
        return [postmaster, *children]

    def freeze(self):
        """SIGSTOP to the postmaster and every backend: the server keeps its sockets open and answers nothing, as
        a machine that hangs or drops off the network does (a new connection is accepted by the kernel and then
        waits forever)."""
        # The postmaster first, so that it forks no backend that the list below would miss.
        postmaster, *_ = self.processes()
        os.kill(postmaster, signal.SIGSTOP)
        for pid in self.processes():
            os.kill(pid, signal.SIGSTOP)

    @property
    def frozen(self) -> bool:
        """Whether the server runs and every one of its processes is stopped by a signal."""
        states = []
        for pid in self.processes():
            try:
                states.append(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])
            except OSError:
                pass
        return bool(states) and all(state in "Tt" for state in states)

    def thaw(self):
        """SIGCONT to every process of the server (a no-op unless frozen)."""
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    @property
    def running(self) -> bool:
        return as_owner(self.tool("pg_ctl"), "--pgdata", str(self.data), "status", check=False).returncode == 0

    def psql(self, sql: str, database: str = "postgres") -> str:
        ran = subprocess.run(
            ["psql", "-X", "-qtA", "-h", str(self.sockets), "-p", str(self.port), "-U", "postgres", "-d", database,
             "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True, timeout=60)
        if ran.returncode != 0:
            raise RuntimeError(f"psql on {self.name}: {ran.stderr.strip()}")
        return ran.stdout.strip()


@dataclass
class ReplicatedDatabase:
    """A primary and a synchronous streaming standby, and the libpq URL that lists both."""

    bin: Path
    # How the primary fails in fail_over: `stopped` or `hung`.
    mode: str = "stopped"
    primary: Cluster = None  # type: ignore[assignment]
    standby: Cluster = None  # type: ignore[assignment]

    def __post_init__(self):
        self.primary = self.primary or Cluster("primary", self.bin, self.root)
        self.standby = self.standby or Cluster("standby", self.bin, self.root)

    @property
    def root(self) -> Path:
        """Where the clusters, their logs and the servers' logs go: test-output/fleet/ha/<mode>."""
        return HA / self.mode

    @property
    def url(self) -> str:
        """The multi-host URL Tessera is given: the primary, then the standby; libpq connects to the first host
        that accepts writes (`target_session_attrs=read-write`), so after a promotion it finds the new primary."""
        hosts = ",".join(str(cluster.sockets) for cluster in (self.primary, self.standby))
        ports = ",".join(str(cluster.port) for cluster in (self.primary, self.standby))
        return (f"postgresql:///{DATABASE}?host={hosts}&port={ports}&user=postgres"
                f"&target_session_attrs=read-write&connect_timeout=3")

    def create(self):
        """initdb, the primary started and its database created, the standby copied with `pg_basebackup -R` and
        started, and, once it streams, the primary made to wait for it at every commit."""
        self.remove()  # what an interrupted run left running
        shutil.rmtree(self.root, ignore_errors=True)
        owned_directory(HA, 0o755)
        owned_directory(self.root, 0o755)
        primary, standby = self.primary, self.standby
        owned_directory(primary.data, 0o700)
        as_owner(primary.tool("initdb"), "--pgdata", str(primary.data), "--username", "postgres", "--auth", "trust",
                 "--encoding", "UTF8", "--locale", "C.UTF-8", "--no-sync", "--no-instructions")
        with open(primary.data / "postgresql.conf", "a") as conf:
            conf.write("""
# Tessera's high-availability test (Tests/fleet/replicated.py); the standby copies this file.
wal_level = replica
max_wal_senders = 5
hot_standby = on
synchronous_commit = on
wal_receiver_status_interval = 1s
max_connections = 100
""")
        # Only local sockets: every database and replication is trusted from them.
        (primary.data / "pg_hba.conf").write_text(
            "local all all trust\nlocal replication all trust\n")
        primary.start()
        primary.psql(f"CREATE DATABASE {DATABASE}")

        owned_directory(standby.data, 0o700)
        # application_name in the connection string goes into the standby's primary_conninfo: it is the name
        # synchronous_standby_names refers to.
        as_owner(standby.tool("pg_basebackup"), "--pgdata", str(standby.data), "--write-recovery-conf",
                 "--wal-method", "stream", "--checkpoint", "fast", "--no-sync",
                 "--dbname", f"host={primary.sockets} port={primary.port} user=postgres "
                             f"application_name={STANDBY_NAME}")
        standby.start()
        self.wait_streaming()
        # Set on the primary only, after the copy: the standby must not inherit it, or once promoted it would wait
        # at every commit for a standby that does not exist.
        primary.psql(f"ALTER SYSTEM SET synchronous_standby_names = '{STANDBY_NAME}'")
        primary.psql("SELECT pg_reload_conf()")
        self.wait_streaming(state="sync")

    def wait_streaming(self, state: str | None = None, seconds: float = 30):
        """Waits until the primary's pg_stat_replication shows the standby streaming (with `sync_state` `state`)."""
        deadline = time.monotonic() + seconds
        row = ""
        while time.monotonic() < deadline:
            row = self.primary.psql(
                f"SELECT state || ',' || sync_state FROM pg_stat_replication WHERE application_name = '{STANDBY_NAME}'")
            if row.startswith("streaming") and (state is None or row.endswith("," + state)):
                return
            time.sleep(0.1)
        raise RuntimeError(f"the standby does not stream ({state or 'any'}) within {seconds} s: {row!r}")

    def fail_over(self, detection: float = 1.0) -> dict[str, float]:
        """The primary fails, `detection` seconds pass (what an operator or a failover manager takes to notice), and
        the standby is promoted. `mode` says how the primary fails: `stopped` (`pg_ctl stop -m immediate`: every
        session cut, new connections refused) or `hung` (every process frozen: sessions and new connections get no
        answer, as from a machine that hangs or leaves the network). Returns the monotonic times of the failure and
        of the end of the promotion."""
        died = time.monotonic()
        if self.mode == "stopped":
            self.primary.stop("immediate")
        else:
            self.primary.freeze()
        time.sleep(detection)
        self.standby.promote()
        return {"died": died, "promoted": time.monotonic()}

    def remove(self):
        """Stops both servers and deletes their data; the logs stay. Called once the Tessera servers are stopped, so
        a frozen old primary may be thawed to stop it: nobody writes to it any more."""
        for cluster in (self.primary, self.standby):
            cluster.thaw()
            if cluster.data.exists() and cluster.running:
                try:
                    cluster.stop("immediate")
                except (RuntimeError, subprocess.TimeoutExpired):
                    pass
            shutil.rmtree(cluster.data, ignore_errors=True)
            shutil.rmtree(cluster.sockets, ignore_errors=True)


@dataclass
class HAServer:
    """One `tessera serve` on the replicated database, with its own public and admin port and log."""

    name: str
    binary: str
    database_url: str
    master_key_file: str
    admin_key: str
    logs: Path
    public_port: int = field(default_factory=free_port)
    admin_port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def public_url(self) -> str:
        return f"http://127.0.0.1:{self.public_port}"

    @property
    def admin_url(self) -> str:
        return f"http://127.0.0.1:{self.admin_port}"

    def start(self):
        """Starts the server (it migrates the database at start), janitor every second, a password limit per
        client address high enough for the load's sign-ups, and waits until it is ready."""
        with open(self.logs / f"{self.name}.log", "a") as log:
            self.process = subprocess.Popen([
                self.binary, "serve", "--database-url", self.database_url,
                "--listen", f"127.0.0.1:{self.public_port}", "--admin-listen", f"127.0.0.1:{self.admin_port}",
                "--issuer", self.public_url, "--master-key-file", self.master_key_file,
                "--bootstrap-admin-key", self.admin_key, "--app-verification", "enforced",
                "--retention-interval", "1", "--max-password-attempts-per-client", "1000000",
            ], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for(f"{self.admin_url}/readyz", process=self.process)
        wait_for(f"{self.public_url}/healthz", process=self.process)

    def metric(self, name: str) -> float:
        """The value of the unlabelled series `name` (or the sum of its series) on this server's /metrics."""
        text = requests.get(f"{self.admin_url}/metrics", timeout=5).text
        values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                  if line.startswith(name) and (line[len(name)] in " {")]
        return sum(values)

    def ready(self) -> bool:
        try:
            return requests.get(f"{self.admin_url}/readyz", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
