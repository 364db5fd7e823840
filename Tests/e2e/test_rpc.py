"""JSON-RPC 2.0 envelope semantics on POST /rpc (API §2), on both listeners."""

import pytest

DISCOVER = {"jsonrpc": "2.0", "id": 1, "method": "rpc.discover"}


def error_of(response) -> dict:
    """The error object of a single JSON-RPC response that must be HTTP 200."""
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body, dict), body
    assert body.get("jsonrpc") == "2.0"
    assert "result" not in body
    assert isinstance(body["error"]["code"], int)
    assert isinstance(body["error"]["message"], str)
    return body["error"]


def test_rpc_discover_returns_an_openrpc_1_2_document(listener):
    response = listener.rpc(DISCOVER)
    assert response.status_code == 200
    assert response.headers.get("Content-Type", "").startswith("application/json")
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == 1
    assert "error" not in body
    document = body["result"]
    assert document["openrpc"].startswith("1.2")
    assert isinstance(document["info"]["title"], str)
    assert isinstance(document["info"]["version"], str)
    assert isinstance(document["methods"], list)


@pytest.mark.parametrize("request_id", ["abc", 7, 2**53 - 1, 0])
def test_the_id_comes_back_unchanged(listener, request_id):
    body = listener.rpc({**DISCOVER, "id": request_id}).json()
    assert body["id"] == request_id
    assert type(body["id"]) is type(request_id)


def test_rpc_discover_refuses_unknown_params(listener):
    error = error_of(listener.rpc({**DISCOVER, "params": {"unexpected": 1}}))
    assert error["code"] == -32602
    assert error["data"]["reason"] == "INVALID_ARGUMENT"


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"not json",
        b'{"jsonrpc":"2.0","id":1,"method":"rpc.discover"',
        b'[{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}',
        b'{"jsonrpc":"2.0","id":1,"method":"rpc.discover"} trailing',
        b"\xff\xfe\x00",
    ],
    ids=["open-brace", "not-json", "unterminated-object", "unterminated-batch", "trailing-garbage", "not-utf8"],
)
def test_a_parse_error_is_http_200_with_code_minus_32700(listener, body):
    response = listener.rpc(body)
    error = error_of(response)
    assert error["code"] == -32700
    assert response.json()["id"] is None


def test_an_empty_batch_is_one_invalid_request_error(listener):
    error = error_of(listener.rpc(b"[]"))
    assert error["code"] == -32600


@pytest.mark.parametrize(
    "payload",
    [
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "1.0", "id": 1, "method": "rpc.discover"},
        {"id": 1, "method": "rpc.discover"},
        {"jsonrpc": "2.0", "id": 1, "method": 5},
        {"jsonrpc": "2.0", "id": {"nested": 1}, "method": "rpc.discover"},
        {"jsonrpc": "2.0", "id": 1, "method": "rpc.discover", "params": "a string"},
        b"42",
        b'"text"',
        b"null",
    ],
    ids=["no-method", "version-1.0", "no-version", "method-not-string", "id-object", "params-string", "number",
         "string", "null"],
)
def test_an_invalid_request_object_gets_code_minus_32600(listener, payload):
    response = listener.rpc(payload)
    error = error_of(response)
    assert error["code"] == -32600
    assert response.json()["id"] in (None, 1)


def test_an_unknown_method_gets_code_minus_32601_with_the_id(listener):
    response = listener.rpc({"jsonrpc": "2.0", "id": "x-1", "method": "no.such.method"})
    error = error_of(response)
    assert error["code"] == -32601
    assert response.json()["id"] == "x-1"


def test_a_notification_gets_204_and_no_body(listener):
    response = listener.rpc({"jsonrpc": "2.0", "method": "rpc.discover"})
    assert response.status_code == 204
    assert response.content == b""


def test_a_batch_of_only_notifications_gets_204(listener):
    notification = {"jsonrpc": "2.0", "method": "rpc.discover"}
    response = listener.rpc([notification, notification])
    assert response.status_code == 204
    assert response.content == b""


def test_a_batch_answers_every_call_by_id(listener):
    response = listener.rpc([DISCOVER, {**DISCOVER, "id": "two"}])
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list)
    assert sorted(str(entry["id"]) for entry in body) == ["1", "two"]
    assert all(entry["result"]["openrpc"].startswith("1.2") for entry in body)


def test_a_mixed_batch_leaves_out_notifications_and_keeps_errors(listener):
    response = listener.rpc(
        [
            DISCOVER,
            {"jsonrpc": "2.0", "method": "rpc.discover"},
            {"jsonrpc": "2.0", "id": 3, "method": "no.such.method"},
            1,
        ]
    )
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list)
    by_id = {}
    for entry in body:
        by_id.setdefault(entry["id"], []).append(entry)
    assert set(by_id) == {1, 3, None}
    assert "result" in by_id[1][0]
    assert by_id[3][0]["error"]["code"] == -32601
    assert by_id[None][0]["error"]["code"] == -32600


def test_a_batch_of_100_is_accepted(listener):
    response = listener.rpc([{**DISCOVER, "id": index} for index in range(100)])
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list)
    assert sorted(entry["id"] for entry in body) == list(range(100))


def test_a_batch_over_100_is_refused_as_invalid_request(listener):
    response = listener.rpc([{**DISCOVER, "id": index} for index in range(101)])
    assert response.status_code == 200
    body = response.json()
    entries = body if isinstance(body, list) else [body]
    assert entries, "an empty answer to a refused batch"
    assert all(entry.get("error", {}).get("code") == -32600 for entry in entries), entries[:3]
