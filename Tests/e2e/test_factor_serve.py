"""`tessera factor serve totp` as its own process, registered and managed with `tessera admin factor-services`,
then used for an enrolment and a sign-in: the built-in TOTP plugin behind the factor protocol, next to the same
factor in process (docs/factor-services.md)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time

import pytest
import requests

from factor_fakes import ROOT, b64url, free_port
from identity import call, failure_of, jwt_parts
from test_admin_cli import admin_cli, cli_json
from test_mfa import Authenticator, new_tenant, sign_in, verified_user, with_tenant


@pytest.fixture
def totp_service():
    """`tessera factor serve totp --id totp-cli-N` on a free port with a fresh secret file; stopped with SIGTERM."""
    binary = os.environ.get("TESSERA_BIN")
    if not binary:
        pytest.skip("TESSERA_BIN is not set: run the suite through scripts/e2e.sh")
    factor_id = f"totp-cli-{secrets.randbelow(10**6)}"
    secret_path = ROOT / "test-output" / f"e2e-{factor_id}.secret"
    secret_path.parent.mkdir(exist_ok=True)
    secret_path.write_text(b64url(secrets.token_bytes(32)) + "\n")
    port = free_port()
    log = open(ROOT / "test-output" / f"e2e-{factor_id}.log", "wb")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    process = subprocess.Popen(
        [binary, "factor", "serve", "totp", "--id", factor_id, "--listen", f"127.0.0.1:{port}",
         "--secret-file", str(secret_path), "--loops", "1"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=environment)
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, "tessera factor serve exited"
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                break
        except requests.ConnectionError:
            pass
        assert time.monotonic() < deadline, "tessera factor serve did not become healthy"
        time.sleep(0.05)
    yield factor_id, f"http://127.0.0.1:{port}/rpc", secret_path
    admin_cli("factor-services", "delete", factor_id)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=15) == 0
    log.close()


def camel(factor_id: str) -> str:
    first, *rest = factor_id.split("-")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def test_a_built_in_factor_served_apart_is_registered_with_the_cli_and_signs_users_in(public, admin, totp_service):
    factor_id, url, secret_path = totp_service
    registered = cli_json("factor-services", "register", "--endpoint", url, "--secret-file", str(secret_path))
    service = registered["factorService"]
    assert service["factorId"] == factor_id and service["endpoints"] == [url] and service["timeoutMs"] == 2000
    assert registered["secret"] == secret_path.read_text().strip()
    assert service["descriptor"]["amr"] == "otp" and service["descriptor"]["loginPages"]
    listed = admin_cli("factor-services", "list")
    assert listed.returncode == 0 and factor_id in listed.stdout and "FACTOR ID" in listed.stdout
    assert cli_json("factor-services", "get", factor_id)["factorId"] == factor_id
    updated = cli_json("factor-services", "update", factor_id, "--timeout-ms", "1500")
    assert updated["timeoutMs"] == 1500 and updated["endpoints"] == [url]

    tenant = new_tenant(admin, None)
    mfa = cli_json("config", "set-mfa", "--tenant", tenant, "--state", "ENABLED", "--factor-service", factor_id)
    assert mfa["mfaConfig"]["providerConfigs"] == [
        {"state": "ENABLED", "factorServiceProviderConfig": {"factorId": factor_id}}]

    members = camel(factor_id)
    email, tokens = verified_user(admin, public, tenant, "factor-serve")
    started = call(public, "mfaEnrollment.start",
                   with_tenant({"idToken": tokens["idToken"], f"{members}EnrollmentInfo": {}}, tenant))
    session = started[f"{members}SessionInfo"]
    app = Authenticator(session["sharedSecretKey"])
    finalized = call(public, "mfaEnrollment.finalize", with_tenant(
        {"idToken": tokens["idToken"],
         f"{members}VerificationInfo": {"sessionInfo": session["sessionInfo"], "verificationCode": app.next_code()}},
        tenant))
    enrollment_id = finalized["mfaEnrollmentId"]
    challenge = sign_in(public, email, tenant)
    assert [entry["mfaEnrollmentId"] for entry in challenge["mfaInfo"]] == [enrollment_id]
    signed_in = call(public, "mfaSignIn.finalize", with_tenant(
        {"mfaPendingCredential": challenge["mfaPendingCredential"], "mfaEnrollmentId": enrollment_id,
         f"{members}VerificationInfo": {"verificationCode": app.next_code()}}, tenant))
    _, claims = jwt_parts(signed_in["idToken"])
    assert claims["sign_in_second_factor"] == factor_id and claims["second_factor_identifier"] == enrollment_id

    # The factor service's secret rotates to one the service does not have: its calls fail as unavailable (and
    # count against nobody) until it is given back.
    rotated = cli_json("factor-services", "rotate-secret", factor_id)
    assert rotated["secret"] and rotated["secret"] != secret_path.read_text().strip()
    again = sign_in(public, email, tenant)
    failure = failure_of(public, "mfaSignIn.finalize", with_tenant(
        {"mfaPendingCredential": again["mfaPendingCredential"], "mfaEnrollmentId": enrollment_id,
         f"{members}VerificationInfo": {"verificationCode": app.next_code()}}, tenant))
    assert failure.reason == "FACTOR_SERVICE_UNAVAILABLE"

    readiness = admin.get("/readyz")
    assert readiness.status_code == 200 and f"factor service {factor_id}: " in readiness.text
    metrics = admin.get("/metrics").text
    assert f'tessera_factor_service_calls_total{{factor="{factor_id}",method="factor.verifySignIn",outcome="OK"}}' \
        in metrics


def test_factor_service_commands_refuse_bad_input_with_a_usage_error(totp_service):
    factor_id, url, _ = totp_service
    missing = admin_cli("factor-services", "register")
    assert missing.returncode == 2 and "--endpoint" in missing.stderr
    timeout = admin_cli("factor-services", "register", "--endpoint", url, "--timeout-ms", "5")
    assert timeout.returncode == 2 and "--timeout-ms" in timeout.stderr
    insecure = admin_cli("factor-services", "register", "--endpoint", "http://192.0.2.1/rpc")
    assert insecure.returncode == 1 and "INVALID_ARGUMENT" in insecure.stderr
    unknown = admin_cli("factor-services", "get", "no-such-factor")
    assert unknown.returncode == 1 and "FACTOR_SERVICE_NOT_FOUND" in unknown.stderr


def test_tessera_factor_serve_refuses_bad_options(tmp_path):
    binary = os.environ.get("TESSERA_BIN")
    if not binary:
        pytest.skip("TESSERA_BIN is not set: run the suite through scripts/e2e.sh")
    secret = tmp_path / "secret"
    secret.write_text("too-short")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    for arguments, word in [
        (["email"], "totp or phone"),
        (["totp"], "--secret-file"),
        (["totp", "--secret-file", str(secret)], "32 bytes"),
        (["totp", "--secret-file", str(tmp_path / "absent")], "cannot read"),
        (["totp", "--id", "Bad_Id", "--secret-file", str(secret)], "--id"),
        (["phone", "--secret-file", str(secret)], "32 bytes"),
    ]:
        result = subprocess.run([binary, "factor", "serve", *arguments], env=environment, capture_output=True,
                                text=True, timeout=30)
        assert result.returncode == 2, (arguments, result.stderr)
        assert word in result.stderr and len(result.stderr.strip().splitlines()) == 1, (arguments, result.stderr)
