"""scripts/demo.py, the first five minutes of make demo: run against the test server, its URL signs the demo user
in through the login pages, and the curl line it prints then turns the code into tokens."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from loopback import Forms
from support import TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scripts" / "demo.py"


def start(public_url: str, admin_url: str, key_file: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(DEMO), "--public", public_url, "--admin", admin_url,
                             "--admin-key-file", str(key_file), *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_until(demo: subprocess.Popen, prefix: str) -> tuple[str, list[str]]:
    """The first line of the demo's output that starts with `prefix` (spaces stripped), and the lines before it."""
    seen = []
    for line in demo.stdout:
        line = line.strip()
        if line.startswith(prefix):
            return line, seen
        seen.append(line)
    raise AssertionError(f"the demo ended without a line starting with {prefix!r}: {seen} {demo.stderr.read()}")


def field(lines: list[str], name: str) -> str:
    return next(line.split()[1] for line in lines if line.startswith(name + " "))


def sign_in(url: str, email: str, password: str) -> requests.Response:
    with requests.Session() as http:
        page = http.get(url, timeout=TIMEOUT)
        assert page.status_code == 200 and "password-form" in page.text, page.url
        form = Forms(page.text).forms["password-form"]
        return http.post(requests.compat.urljoin(page.url, form["action"]),
                         data={**form["hidden"], "email": email, "password": password}, timeout=TIMEOUT)


@pytest.fixture
def key_file(admin_key, tmp_path) -> Path:
    if not admin_key:
        pytest.skip("TESSERA_ADMIN_KEY is not set: run the suite through scripts/e2e.sh")
    path = tmp_path / "admin-key"
    path.write_text(admin_key + "\n")
    return path


def test_the_demo_url_signs_in_and_its_curl_line_gets_tokens(public_url, admin_url, key_file):
    mail_port = free_port()
    demo = start(public_url, admin_url, key_file, "--mail-port", str(mail_port))
    try:
        url, lines = read_until(demo, f"{public_url}/oauth2/authorize?")
        landed = sign_in(url, field(lines, "user"), field(lines, "password"))
        assert landed.status_code == 200 and "Signed in" in landed.text, landed.text
        command, _ = read_until(demo, "curl ")
        # It goes on as the e-mail webhook, printing each mail.
        posted = requests.post(f"http://127.0.0.1:{mail_port}/mail", timeout=TIMEOUT, json={
            "to": "demo@example.com", "subject": "Reset your password", "text": "…", "kind": "password_reset",
            "link": f"{public_url}/reset-password?oobCode=x"})
        assert posted.status_code == 204
        printed, _ = read_until(demo, "[mail to demo@example.com]")
        assert printed == "[mail to demo@example.com] Reset your password"
        assert demo.stdout.readline().strip() == f"{public_url}/reset-password?oobCode=x"
        assert requests.post(f"http://127.0.0.1:{mail_port}/mail", data="not json", timeout=TIMEOUT
                             ).status_code == 400
    finally:
        demo.kill()
    tokens = json.loads(subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=TIMEOUT,
                                       check=True).stdout)
    assert {"access_token", "id_token", "refresh_token"} <= set(tokens), tokens
    assert tokens["token_type"] == "Bearer"

    # Again: the same tenant and client, a new password (the old one no longer works).
    again = start(public_url, admin_url, key_file)
    try:
        _, second = read_until(again, f"{public_url}/oauth2/authorize?")
    finally:
        again.kill()
    assert field(second, "tenant") == field(lines, "tenant") and field(second, "client") == field(lines, "client")
    assert field(second, "password") != field(lines, "password")
    stale = sign_in(url, field(lines, "user"), field(lines, "password"))
    assert stale.status_code == 401


def test_the_demo_refuses_a_server_elsewhere(tmp_path):
    key = tmp_path / "key"
    key.write_text("k")
    refused = subprocess.run([sys.executable, str(DEMO), "--public", "https://auth.example.com", "--admin",
                              "http://127.0.0.1:1", "--admin-key-file", str(key)], capture_output=True, text=True,
                             timeout=TIMEOUT)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "demo.py: https://auth.example.com is not on this machine; the demo only runs against a development server"]
