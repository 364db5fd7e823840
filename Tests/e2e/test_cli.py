"""The command line of API section 1: bad options and an unreachable database are one line on
stderr and exit status 2; `tessera migrate` is safe to run several times at once."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile

import pytest


def _binary() -> str:
    path = os.environ.get("TESSERA_BIN", "")
    if not path:
        pytest.fail("TESSERA_BIN is not set: run the suite through scripts/e2e.sh", pytrace=False)
    return path


def _database_url() -> str:
    url = os.environ.get("TESSERA_TEST_DATABASE_URL", "")
    if not url:
        pytest.fail("TESSERA_TEST_DATABASE_URL is not set: run the suite through scripts/e2e.sh", pytrace=False)
    return url


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    """Runs tessera with no TESSERA_* variables but those the test passes."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    return subprocess.run(
        [_binary(), *args], capture_output=True, text=True, timeout=timeout, env=environment, stdin=subprocess.DEVNULL
    )


def assert_one_line_exit_2(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    message = result.stderr.strip()
    assert message.startswith("tessera: "), message
    assert "\n" not in message, message
    for word in words:
        assert word in message, message


@pytest.fixture(scope="module")
def short_master_key():
    with tempfile.NamedTemporaryFile(delete=False) as key:
        key.write(b"x" * 31)
    yield key.name
    os.unlink(key.name)


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["serve"], ["--database-url"]),
        (["serve", "--database-url", "postgresql:///x", "--loops", "0"], ["--loops"]),
        (["serve", "--database-url", "postgresql:///x", "--listen", "localhost:8080"], ["--listen"]),
        (["serve", "--database-url", "postgresql:///x", "--admin-listen", "127.0.0.1:99999"], ["--admin-listen"]),
        (["serve", "--database-url", "postgresql:///x", "--app-verification", "off"], ["--app-verification"]),
        (["serve", "--database-url", "postgresql:///x", "--trusted-proxy", "10.0.0.0/40"], ["--trusted-proxy"]),
        (["serve", "--database-url", "postgresql:///x", "--issuer", "ftp://x"], ["--issuer"]),
        (["serve", "--database-url", "postgresql:///x", "--max-connections", "0"], ["--max-connections"]),
        (["serve", "--database-url", "postgresql:///x", "--retention-interval", "-5"], ["--retention-interval"]),
        (["janitor"], ["--database-url"]),
        (["serve", "--database-url", "postgresql:///x", "--issuer", "https://auth.example.com"],
         ["--master-key-file", "--dev"]),
        (["serve", "--database-url", "postgresql:///x", "--max-connections-per-client", "many"],
         ["--max-connections-per-client"]),
        (["serve", "--no-such-option"], ["--no-such-option"]),
        (["serve", "--listen", "none", "--admin-listen", "none", "--database-url", "postgresql:///x"], ["none"]),
        (["frobnicate"], []),
        (["migrate"], ["--database-url"]),
    ],
)
def test_bad_options_are_one_line_and_exit_2(arguments, words):
    assert_one_line_exit_2(run(*arguments), *words)


def test_a_master_key_of_the_wrong_size_is_refused(short_master_key):
    result = run("serve", "--database-url", _database_url(), "--master-key-file", short_master_key)
    assert_one_line_exit_2(result, "exactly 32 bytes", "found 31")


@pytest.mark.parametrize("extra", [[], ["--no-migrate"]])
def test_an_unreachable_database_is_one_line_and_exit_2(extra):
    result = run("serve", "--database-url", "postgresql:///tessera?host=/nonexistent-dir", *extra, timeout=20)
    assert_one_line_exit_2(result, "database unreachable")


def test_a_listen_address_in_use_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        # Servers sharing a database share its master key: the signing keys are sealed under it.
        result = run("serve", "--database-url", _database_url(), "--listen", f"127.0.0.1:{port}",
                     "--admin-listen", "127.0.0.1:0",
                     "--master-key-file", os.environ["TESSERA_E2E_MASTER_KEY_FILE"])
    assert_one_line_exit_2(result, str(port))


def test_a_server_without_the_master_key_of_its_database_says_so():
    result = run("serve", "--database-url", _database_url(), "--listen", "127.0.0.1:0",
                 "--admin-listen", "127.0.0.1:0")
    assert_one_line_exit_2(result, "master key")


def test_three_migrates_at_once_all_succeed():
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    environment["TESSERA_DATABASE_URL"] = _database_url()
    runs = [
        subprocess.Popen([_binary(), "migrate"], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for _ in range(3)
    ]
    results = [(process.wait(timeout=60), process.stderr.read()) for process in runs]
    assert [status for status, _ in results] == [0, 0, 0], results
    assert all("up to date" in log for _, log in results), results


def test_help_exits_0():
    result = run("--help")
    assert result.returncode == 0
    assert "serve" in result.stdout and "migrate" in result.stdout
