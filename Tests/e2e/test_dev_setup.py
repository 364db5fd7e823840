"""The set-up commands from a checkout the way a new user makes one: as root, a clone in a home folder only root may
enter (/root is mode 700). The `postgres` user cannot reach such a checkout, so the dev cluster lives under
/var/lib/tessera-dev instead (scripts/dev-db.sh)."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(os.geteuid() != 0, reason="the cluster's owner only differs from the caller's as root")
def test_a_checkout_only_root_can_enter_gets_a_dev_cluster(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o700)
    checkout = home / "tessera"
    (checkout / "scripts").mkdir(parents=True)
    for script in ("dev-db.sh", "lib.sh"):
        shutil.copy2(ROOT / "scripts" / script, checkout / "scripts" / script)
    dev_db = str(checkout / "scripts" / "dev-db.sh")
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("TESSERA_") and name != "PG_BIN"}
    try:
        # Before, this stopped with "the 'postgres' user cannot traverse ...".
        started = subprocess.run([dev_db, "start"], env=environment, capture_output=True, text=True, timeout=120)
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip().splitlines()[-1]
        assert "/var/lib/tessera-dev/" in url or "/tmp/tessera-pg-" in url, url
        answer = subprocess.run(["psql", url, "-qtAc", "SELECT 1"], capture_output=True, text=True, timeout=30)
        assert answer.stdout.strip() == "1", answer.stderr
        # Every command of the checkout finds the same cluster.
        status = subprocess.run([dev_db, "status"], env=environment, capture_output=True, text=True, timeout=30)
        assert status.returncode == 0 and "running" in status.stdout
    finally:
        removed = subprocess.run([dev_db, "remove"], env=environment, capture_output=True, text=True, timeout=120)
    assert removed.returncode == 0, removed.stderr
    assert subprocess.run([dev_db, "status"], env=environment, capture_output=True, timeout=30).returncode == 3


def _process_state(pid: int) -> str:
    """The state letter of process `pid` (T when stopped)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may signal the cluster owner's backends")
def test_start_resumes_a_backend_a_killed_test_run_left_stopped():
    url = os.environ["TESSERA_TEST_DATABASE_URL"]
    name = f"e2e_stopped_{secrets.token_hex(4)}"
    session = subprocess.Popen(["psql", url, "-qtAc", "SELECT pg_sleep(30)"], env={**os.environ, "PGAPPNAME": name},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    backend = None
    try:
        for _ in range(200):
            query = f"SELECT pid FROM pg_stat_activity WHERE application_name = '{name}'"
            found = subprocess.run(["psql", url, "-qtAc", query], capture_output=True, text=True, timeout=30)
            if found.stdout.strip():
                backend = int(found.stdout.strip())
                break
            time.sleep(0.05)
        assert backend is not None, "the session's backend never showed"
        # What the tests of a hung server do to their own backends; a run killed then never resumes them.
        os.kill(backend, signal.SIGSTOP)
        for _ in range(200):
            if _process_state(backend) == "T":
                break
            time.sleep(0.01)
        assert _process_state(backend) == "T"
        started = subprocess.run([str(ROOT / "scripts" / "dev-db.sh"), "start"], capture_output=True, text=True,
                                 timeout=120)
        assert started.returncode == 0, started.stderr
        assert f"resuming backend {backend}" in started.stderr
        assert _process_state(backend) != "T"
    finally:
        if backend is not None:
            os.kill(backend, signal.SIGCONT)
            # pg_sleep does not notice its client going: end the session rather than leave it for 30 s.
            subprocess.run(["psql", url, "-qtAc", f"SELECT pg_terminate_backend({backend})"], capture_output=True,
                           timeout=30)
        session.kill()
        session.wait()
