"""A database restart under a running server (DESIGN section 3): /readyz turns 503 while
PostgreSQL is down and 200 again once it is back, without restarting Tessera.

The file name sorts last on purpose: it stops the shared dev cluster for a few seconds."""

from __future__ import annotations

import os
import subprocess
import time

import pytest


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
