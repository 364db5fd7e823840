"""More server processes on the suite's database and master key, for the tests of a fleet or of other options."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
import requests

from support import Listener, free_port

NEEDED = ("TESSERA_BIN", "TESSERA_TEST_DATABASE_URL", "TESSERA_E2E_MASTER_KEY_FILE")


def server_log(name: str) -> Path:
    """Where the log of the extra server `name` goes."""
    return Path(__file__).resolve().parents[2] / "test-output" / f"e2e-{name}-server.log"


def _wait_healthy(process: subprocess.Popen, listeners: list[Listener], log_path: Path, name: str):
    deadline = time.monotonic() + 30
    for listener in listeners:
        while True:
            assert process.poll() is None, f"the {name} server exited: {log_path.read_text()[-2000:]}"
            try:
                if listener.get("/healthz").status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, f"the {name} server is not healthy: {log_path.read_text()[-2000:]}"
            time.sleep(0.05)


@contextmanager
def extra_server(name: str, issuer: str, options: list[str], *, admin: bool = False,
                 database_url: str | None = None, master_key_file: str | None = None
                 ) -> Iterator[tuple[Listener, Listener | None]]:
    """Runs `tessera serve OPTIONS` with its public listener (and, when `admin`, its admin listener) on free ports,
    without migrating, its log in test-output/e2e-NAME-server.log; yields the listeners once both are healthy and
    stops the server with SIGTERM after, failing unless it exits 0 within 15 s. Only the options given and the
    suite's database and master key (or `database_url` and `master_key_file`) apply: no TESSERA_* variable of the
    environment reaches it."""
    missing = [variable for variable in NEEDED if not os.environ.get(variable)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not set: run the suite through scripts/e2e.sh")
    port = free_port()
    admin_port = free_port() if admin else None
    log_path = server_log(name)
    log_path.parent.mkdir(exist_ok=True)
    environment = {variable: value for variable, value in os.environ.items() if not variable.startswith("TESSERA_")}
    command = [os.environ["TESSERA_BIN"], "serve",
               "--database-url", database_url or os.environ["TESSERA_TEST_DATABASE_URL"],
               "--listen", f"127.0.0.1:{port}",
               "--admin-listen", f"127.0.0.1:{admin_port}" if admin_port else "none", "--issuer", issuer,
               "--master-key-file", master_key_file or os.environ["TESSERA_E2E_MASTER_KEY_FILE"], "--no-migrate",
               *options]
    if "--retention-interval" not in options:
        # Tests plant expired rows to see how they are answered; only the janitor's own test runs one.
        command += ["--retention-interval", "0"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   env=environment)
    try:
        public = Listener(name, f"http://127.0.0.1:{port}")
        admin_listener = Listener(f"{name}-admin", f"http://127.0.0.1:{admin_port}") if admin_port else None
        _wait_healthy(process, [public] + ([admin_listener] if admin_listener else []), log_path, name)
        yield public, admin_listener
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail(f"the {name} server did not stop within 15 s of SIGTERM")
    assert status == 0, f"the {name} server exited with {status}: {log_path.read_text()[-2000:]}"
