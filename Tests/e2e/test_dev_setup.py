"""The set-up commands from a checkout the way a new user makes one: as root, a clone in a home folder only root may
enter (/root is mode 700). The `postgres` user cannot reach such a checkout, so the dev cluster lives under
/var/lib/tessera-dev instead (scripts/dev-db.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
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
