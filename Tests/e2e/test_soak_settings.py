"""scripts/soak.sh (make soak) checks its settings before it starts anything: a bad one is a one-line error naming the
setting and the value, with lib.sh's `die` status (1), and no cluster, server or database is touched."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("name", "value"), [
    ("SOAK_MINUTES", "abc"), ("SOAK_MINUTES", "0"), ("SOAK_MINUTES", "1.5"), ("SOAK_MINUTES", "-3"),
    ("SOAK_RATE", "0"), ("SOAK_RATE", "fast"), ("SOAK_REFRESH", "2"), ("SOAK_REFRESH", "yes"), ("SOAK_USERS", "0"),
])
def test_a_bad_setting_is_a_one_line_error(tmp_path, name, value):
    # TESSERA_DATA_DIR points at an empty folder: had the script gone past its checks, it would have stopped for
    # want of keys there, not started the benchmark cluster.
    environment = {**{key: item for key, item in os.environ.items() if not key.startswith("SOAK_")},
                   name: value, "TESSERA_DATA_DIR": str(tmp_path), "TESSERA_BIN": "/bin/true"}
    ran = subprocess.run([str(ROOT / "scripts" / "soak.sh")], env=environment, capture_output=True, text=True,
                         timeout=30)
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout == ""
    assert ran.stderr.count("\n") == 1, ran.stderr
    assert ran.stderr.startswith(f"soak.sh: error: {name} must be ") and f"'{value}'" in ran.stderr, ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_binary_is_named(tmp_path):
    environment = {**{key: item for key, item in os.environ.items() if not key.startswith("SOAK_")},
                   "TESSERA_DATA_DIR": str(tmp_path), "TESSERA_BIN": str(tmp_path / "no-such-tessera")}
    ran = subprocess.run([str(ROOT / "scripts" / "soak.sh")], env=environment, capture_output=True, text=True,
                         timeout=30)
    assert ran.returncode == 1
    assert ran.stderr == f"soak.sh: error: no server binary at {tmp_path / 'no-such-tessera'} (run 'make build', " \
                         "or set TESSERA_BIN)\n"
