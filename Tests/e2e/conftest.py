"""Fixtures for the end-to-end tests.

The tests talk to a running server over real sockets, as any client would. They read:

    TESSERA_URL          the public listener, e.g. http://127.0.0.1:8080
    TESSERA_ADMIN_URL    the admin listener, e.g. http://127.0.0.1:8081
    TESSERA_ADMIN_KEY    a project-scope admin key (the server's --bootstrap-admin-key)
    TESSERA_E2E_TIMEOUT  seconds to wait for any one answer (default 10)
    TESSERA_E2E_MAIL_PORT, TESSERA_E2E_SMS_PORT
                         where the server delivers e-mail and SMS (fixtures mailbox, smsbox)

scripts/e2e.sh starts a server on free ports and sets them; docs/development.md says more.
"""

from __future__ import annotations

import os

import pytest
import requests

from support import Listener


def _required_url(variable: str, example: str) -> str:
    value = os.environ.get(variable, "").rstrip("/")
    if not value:
        pytest.fail(
            f"{variable} is not set: run the suite through scripts/e2e.sh (make e2e), "
            f"or point it at a running server, e.g. {variable}={example}",
            pytrace=False,
        )
    return value


@pytest.fixture(scope="session")
def public_url() -> str:
    return _required_url("TESSERA_URL", "http://127.0.0.1:8080")


@pytest.fixture(scope="session")
def admin_url() -> str:
    return _required_url("TESSERA_ADMIN_URL", "http://127.0.0.1:8081")


@pytest.fixture(scope="session")
def admin_key() -> str | None:
    return os.environ.get("TESSERA_ADMIN_KEY") or None


@pytest.fixture(scope="session")
def public(public_url) -> Listener:
    return Listener("public", public_url)


@pytest.fixture(scope="session")
def admin(admin_url, admin_key) -> Listener:
    # Admin clients always present their key; whether a method such as rpc.discover needs
    # it is for the admin method tests to pin down, not for the transport tests.
    headers = {"Authorization": f"Bearer {admin_key}"} if admin_key else {}
    return Listener("admin", admin_url, headers)


@pytest.fixture(params=["public", "admin"])
def listener(request) -> Listener:
    """Each test that takes `listener` runs once against each listener."""
    return request.getfixturevalue(request.param)


@pytest.fixture
def session():
    """A requests.Session, so that a test can check connection reuse."""
    with requests.Session() as http:
        yield http


@pytest.fixture(scope="session")
def mailbox():
    """The e-mail webhook receiver the server delivers to (scripts/e2e.sh passes the port)."""
    from receiver import Mailbox

    port = os.environ.get("TESSERA_E2E_MAIL_PORT")
    if not port:
        pytest.skip("TESSERA_E2E_MAIL_PORT is not set: run the suite through scripts/e2e.sh")
    box = Mailbox(int(port))
    yield box
    box.close()


@pytest.fixture(scope="session")
def smsbox():
    """The SMS webhook receiver the server delivers to (scripts/e2e.sh passes the port). Messages are
    `{to, body, kind, tenantId?, languageCode}`; `receiver.sms_code(body)` reads the code."""
    from receiver import Mailbox

    port = os.environ.get("TESSERA_E2E_SMS_PORT")
    if not port:
        pytest.skip("TESSERA_E2E_SMS_PORT is not set: run the suite through scripts/e2e.sh")
    box = Mailbox(int(port))
    yield box
    box.close()
