"""HTTP-level behaviour of POST /rpc and the connections around it (API §2, §9)."""

import json
import os
import resource
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from rawhttp import RawConnection, request_bytes
from servers import extra_server, server_log
from support import JSON_HEADERS, TIMEOUT

MIB = 1024 * 1024
DISCOVER = b'{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}'


def padded_discover(size: int) -> bytes:
    """A valid rpc.discover call padded with JSON whitespace to exactly `size` bytes."""
    return DISCOVER + b" " * (size - len(DISCOVER))


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
def test_rpc_refuses_methods_other_than_post_with_405(listener, method):
    response = requests.request(method, f"{listener.url}/rpc", timeout=TIMEOUT)
    assert response.status_code == 405
    # RFC 9110 §15.5.6: a 405 names the methods that are allowed.
    assert "POST" in response.headers.get("Allow", "")


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None],
    ids=["text-plain", "form", "multipart", "missing"],
)
def test_rpc_refuses_bodies_that_are_not_json_with_415(listener, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    response = requests.post(
        f"{listener.url}/rpc", data=DISCOVER, headers={**listener.rpc_headers, **headers}, timeout=TIMEOUT
    )
    assert response.status_code == 415


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "Application/JSON"])
def test_rpc_accepts_json_media_type_variants(listener, content_type):
    response = listener.rpc(DISCOVER, headers={"Content-Type": content_type})
    assert response.status_code == 200
    assert response.json()["result"]["openrpc"].startswith("1.2")


def test_a_body_of_exactly_1_mib_is_accepted(listener):
    response = listener.rpc(padded_discover(MIB))
    assert response.status_code == 200
    assert response.json()["id"] == 1


def test_a_body_over_1_mib_is_refused_with_413(listener):
    response = listener.rpc(padded_discover(MIB + 1))
    assert response.status_code == 413


def test_an_announced_body_over_1_mib_is_refused_before_it_arrives(listener):
    # Only the headers are sent: the server must answer from Content-Length alone
    # instead of waiting for two mebibytes that never come.
    with listener.raw() as connection:
        headers = {**JSON_HEADERS, **listener.rpc_headers, "Content-Length": str(2 * MIB)}
        connection.send(request_bytes("POST", "/rpc", connection.host_header, headers=headers))
        assert connection.read_response().status == 413


@pytest.mark.parametrize(
    ("request_data", "statuses"),
    [
        (b"GARBAGE\r\n\r\n", {400}),
        (b"POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", {400}),
        (b"POST /rpc HTTP/1.1\r\nHost: x\r\nA header line without a colon\r\n\r\n", {400}),
        (b"POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", {400}),
        (b"POST /rpc HTTP/9.9\r\nHost: x\r\n\r\n", {400, 505}),
    ],
    ids=["not-http", "bad-content-length", "header-without-colon", "conflicting-content-length", "bad-version"],
)
def test_malformed_http_is_refused_with_400(listener, request_data, statuses):
    with listener.raw() as connection:
        connection.send(request_data)
        assert connection.read_response().status in statuses


def test_headers_over_16_kib_are_refused(listener):
    with listener.raw() as connection:
        headers = {"X-Padding": "a" * (17 * 1024)}
        connection.send(request_bytes("GET", "/healthz", connection.host_header, headers=headers))
        assert connection.read_response().status in (400, 431)


def test_a_session_reuses_one_keep_alive_connection(listener, session):
    for _ in range(3):
        response = listener.rpc(DISCOVER, session=session)
        assert response.status_code == 200
        assert "close" not in response.headers.get("Connection", "").lower()
        health = session.get(f"{listener.url}/healthz", timeout=TIMEOUT)
        assert health.status_code == 200
    # This session has talked to one host only, so its pools hold every connection it made.
    pools = session.get_adapter(listener.url).poolmanager.pools
    pool_list = [pools[key] for key in pools.keys()]
    assert sum(pool.num_requests for pool in pool_list) == 6
    assert sum(pool.num_connections for pool in pool_list) == 1


def test_a_connection_survives_an_rpc_error(listener):
    with listener.raw() as connection:
        headers = {**JSON_HEADERS, **listener.rpc_headers}
        connection.send(request_bytes("POST", "/rpc", connection.host_header, b"{", headers))
        assert json.loads(connection.read_response().body)["error"]["code"] == -32700
        connection.send(request_bytes("POST", "/rpc", connection.host_header, DISCOVER, headers))
        assert json.loads(connection.read_response().body)["id"] == 1


def test_pipelined_requests_are_answered_in_order(listener):
    with listener.raw() as connection:
        headers = {**JSON_HEADERS, **listener.rpc_headers}
        unknown = b'{"jsonrpc":"2.0","id":2,"method":"no.such.method"}'
        connection.send(
            request_bytes("POST", "/rpc", connection.host_header, DISCOVER, headers)
            + request_bytes("GET", "/healthz", connection.host_header)
            + request_bytes("POST", "/rpc", connection.host_header, unknown, headers)
        )
        first, second, third = (connection.read_response() for _ in range(3))
        assert first.status == 200 and json.loads(first.body)["id"] == 1
        assert second.status == 200 and second.body.strip() == b"ok"
        assert third.status == 200 and json.loads(third.body)["error"]["code"] == -32601


def test_connection_close_is_honoured(listener):
    with listener.raw() as connection:
        connection.send(request_bytes("GET", "/healthz", connection.host_header, headers={"Connection": "close"}))
        assert connection.read_response().status == 200
        assert connection.is_closed_by_peer()


def _pid_listening_on(port: int) -> int:
    """The process whose command line serves 127.0.0.1:PORT (an extra server of this suite)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                arguments = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"serve" in arguments and f"127.0.0.1:{port}".encode() in arguments:
                return int(entry)
    raise AssertionError(f"no server process listens on {port}")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_server_out_of_descriptors_waits_without_spinning_and_then_serves_the_waiting_connections(public_url):
    # Accepting stops while the process has no descriptor left (the connections wait in the backlog) and resumes
    # once it has: nobody's connection is dropped, and the loop does not spin on a socket it cannot accept from.
    with extra_server("descriptors", public_url, ["--loops", "2"]) as (server, _):
        pid = _pid_listening_on(urlsplit(server.url).port)
        healthz = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
        with RawConnection(server.url, TIMEOUT) as kept:
            kept.send(healthz)
            assert kept.read_response().status == 200
            limits = resource.prlimit(pid, resource.RLIMIT_NOFILE)
            open_now = len(os.listdir(f"/proc/{pid}/fd"))
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (open_now + 2, limits[1]))
            waiting = []
            try:
                for _ in range(6):
                    connection = RawConnection(server.url, TIMEOUT)
                    waiting.append(connection)
                    connection.send(healthz)
                time.sleep(0.3)
                cpu_before = _cpu_seconds(pid)
                time.sleep(1)
                assert _cpu_seconds(pid) - cpu_before < 0.5, "the server spins while it cannot accept"
                kept.send(healthz)
                assert kept.read_response().status == 200, "a connection already open is served meanwhile"
            finally:
                resource.prlimit(pid, resource.RLIMIT_NOFILE, limits)
            for connection in waiting:
                assert connection.read_response().status == 200
                connection.close()
    log = server_log("descriptors").read_text()
    assert log.count("accepting paused") == 1, "one warning for the whole pause"
    assert "too many open files" in log
