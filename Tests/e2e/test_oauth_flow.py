"""The whole OAuth 2.0 authorization code flow with PKCE, end to end, with third-party clients only:

- Python's authlib (`OAuth2Session`) as a public native client with a loopback redirect URI (RFC 8252 §7.3) on a
  real listening socket, the login pages driven with `requests` (the forms' hidden inputs posted back unchanged),
  a TOTP second factor answered with pyotp; tokens verified against /oauth2/jwks; refresh rotation and reuse
  detection, revocation, introspection, a replayed code;
- headless Chromium (Selenium) on the login pages: password, TOTP, SMS with resend, MANDATORY enrolment with the
  QR code, SSO, the error page; a screenshot of every page (test-output/oauth-browser/) and no CSP violation in
  the console;
- the command-line example of docs/oauth.md, run as written, its browser being this module's Chromium;
- the login pages' headers, cookies and CSRF defence, seen from outside.

Every test makes its own users; the module shares one tenant (TOTP and SMS enabled), its clients, one loopback
receiver and one browser.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urljoin

import pyotp
import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session, OAuthError
from authlib.jose import JsonWebKey, JsonWebToken

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import BROWSER_TIMEOUT, Browser
from identity import call, reason_of, unique_email
from loopback import Forms, LoopbackReceiver, query
from receiver import Mailbox, sms_code
from support import TIMEOUT

PASSWORD = "correct horse battery"
SCOPE = "openid email offline_access"
LOOPBACK = "http://127.0.0.1/callback"
PERIOD = 30
ADJACENT_INTERVALS = 2
TOTP = {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": ADJACENT_INTERVALS}}
APP = {"recaptchaToken": "e2e"}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "oauth.md"


# The parties: tenant, clients, users and their authenticators.

def new_tenant(admin, mfa_config: dict) -> str:
    return call(admin, "tenants.create", {"tenant": {"displayName": "OAuth flow e2e", "mfaConfig": mfa_config}})[
        "tenantId"]


def new_app(admin, tenant: str) -> str:
    """A public native client of `tenant` with the loopback redirect URI, registered as docs/oauth.md says."""
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": {
        "clientName": "OAuth flow e2e", "type": "public", "redirectUris": [LOOPBACK]}})
    return created["clientId"]


@pytest.fixture(scope="module")
def tenant(admin) -> str:
    return new_tenant(admin, {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "providerConfigs": [TOTP]})


@pytest.fixture(scope="module")
def app(admin, tenant) -> str:
    return new_app(admin, tenant)


@pytest.fixture(scope="module")
def resource_server(admin, tenant) -> tuple[str, str]:
    """A confidential client of the tenant (a resource server that introspects): its id and secret."""
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": {
        "clientName": "Resource server", "type": "confidential", "redirectUris": ["https://rs.example.com/cb"]}})
    return created["clientId"], created["clientSecret"]


@pytest.fixture(scope="module")
def receiver():
    box = LoopbackReceiver()
    yield box
    box.close()


@pytest.fixture(scope="module")
def browser():
    try:
        chromium = Browser()
    except Exception as failure:  # noqa: BLE001 - any failure to start means no browser on this machine
        pytest.skip(f"headless Chromium does not start: {failure}")
    yield chromium
    chromium.quit()


@pytest.fixture
def fresh_browser(browser):
    """The module's browser without cookies, presenting a client IP of its own; after the test, the console must
    show no Content Security Policy violation."""
    browser.clear_cookies()
    browser.present_client_ip(new_client_ip())
    yield browser
    assert browser.csp_violations() == []


def new_client_ip() -> str:
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{1 + secrets.randbelow(254)}"


def new_number() -> str:
    return f"+1555{secrets.randbelow(10**7):07d}"


def new_user(admin, tenant: str, prefix: str = "oauth") -> str:
    """A new password user of `tenant` with a verified e-mail; its e-mail."""
    email = unique_email(prefix)
    call(admin, "users.create", {"email": email, "password": PASSWORD, "emailVerified": True, "tenantId": tenant})
    return email


class Authenticator:
    """The user's authenticator app: each code is of a later step than the last one given out, since the server
    refuses a step it has already accepted."""

    def __init__(self, secret: str):
        self.totp = pyotp.TOTP(secret)
        self.last_step: int | None = None

    def next_code(self) -> str:
        step = int(time.time()) // PERIOD
        if self.last_step is not None:
            step = max(step, self.last_step + 1)
        self.last_step = step
        return self.totp.at(step * PERIOD)


def id_token_of(public, email: str, tenant: str) -> str:
    signed_in = call(public, "accounts.signInWithPassword", {"email": email, "password": PASSWORD, "tenantId": tenant})
    return signed_in["idToken"]


def enrol_totp(public, email: str, tenant: str) -> Authenticator:
    """Enrols TOTP for the user over the JSON-RPC API, as an app would (see test_mfa.py)."""
    id_token = id_token_of(public, email, tenant)
    started = call(public, "mfaEnrollment.start", {"idToken": id_token, "tenantId": tenant, "totpEnrollmentInfo": {}})
    info = started["totpSessionInfo"]
    authenticator = Authenticator(info["sharedSecretKey"])
    call(public, "mfaEnrollment.finalize", {"idToken": id_token, "tenantId": tenant, "totpVerificationInfo": {
        "sessionInfo": info["sessionInfo"], "verificationCode": authenticator.next_code()}})
    return authenticator


def enrol_sms(public, smsbox: Mailbox, email: str, tenant: str) -> str:
    """Enrols a fresh number as the user's SMS second factor over the JSON-RPC API (see test_phone.py); the number."""
    number = new_number()
    id_token = id_token_of(public, email, tenant)
    started = call(public, "mfaEnrollment.start", {
        "idToken": id_token, "tenantId": tenant,
        "phoneEnrollmentInfo": {"phoneNumber": number, "appVerification": APP}},
        headers={"X-Forwarded-For": new_client_ip()})
    code = sms_code(smsbox.wait_for(number)["body"])
    call(public, "mfaEnrollment.finalize", {"idToken": id_token, "tenantId": tenant, "phoneVerificationInfo": {
        "sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": code}})
    return number


# Tokens.

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def verified(public_url: str, token: str, typ: str, audience: str) -> dict:
    """The claims of `token` once its signature is checked against /oauth2/jwks with authlib's jose, and `typ`,
    `iss`, `aud`, `exp` are as they must be."""
    keys = JsonWebKey.import_key_set(requests.get(f"{public_url}/oauth2/jwks", timeout=TIMEOUT).json())
    claims = JsonWebToken(["ES256"]).decode(token, keys, claims_options={
        "iss": {"essential": True, "value": public_url}, "aud": {"essential": True, "value": audience},
        "exp": {"essential": True}})
    claims.validate()
    assert claims.header["typ"] == typ and claims.header["alg"] == "ES256" and claims.header["kid"]
    return dict(claims)


def redeem(public_url: str, app: str, redirect_uri: str, code: str, verifier: str) -> dict:
    """The tokens for `code`, redeemed by a plain form POST."""
    answer = requests.post(f"{public_url}/oauth2/token", timeout=TIMEOUT, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "client_id": app,
        "code_verifier": verifier})
    assert answer.status_code == 200, answer.text
    return answer.json()


def error_of(action) -> str:
    """The OAuth error code `action` (an authlib call) fails with."""
    with pytest.raises(OAuthError) as raised:
        action()
    return raised.value.error


@dataclass
class Authorization:
    """An authorization request of `app` to the loopback receiver, with its PKCE verifier, state and nonce."""

    url: str
    verifier: str
    state: str
    nonce: str


def authorization(public_url: str, app: str, redirect_uri: str, **extra) -> Authorization:
    verifier, state, nonce = b64url(secrets.token_bytes(32)), b64url(secrets.token_bytes(16)), generate_token(20)
    url = f"{public_url}/oauth2/authorize?" + urlencode({
        "response_type": "code", "client_id": app, "redirect_uri": redirect_uri, "scope": SCOPE, "state": state,
        "nonce": nonce, "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
        "code_challenge_method": "S256", **extra})
    return Authorization(url, verifier, state, nonce)


# The login pages, driven with requests.

def post_form(http: requests.Session, page: requests.Response, form_id: str, *, follow: bool = True, **fields
              ) -> requests.Response:
    """Submits the form `form_id` of `page` as a browser would: its hidden inputs unchanged, plus `fields`;
    follows the redirects unless `follow` is false."""
    forms = Forms(page.text).forms
    assert form_id in forms, f"no form {form_id} on {page.url}: {sorted(forms)}"
    form = forms[form_id]
    assert form["method"] == "post" and set(form["hidden"]) == {"flow", "csrf"}, form
    return http.post(urljoin(page.url, form["action"]), data={**form["hidden"], **fields}, timeout=TIMEOUT,
                     allow_redirects=follow)


def log_in(http: requests.Session, authorize_url: str, email: str, authenticator: Authenticator | None = None
           ) -> requests.Response:
    """Walks the login pages from `authorize_url` with e-mail and password, then the TOTP code when
    `authenticator` is given; the answer of the loopback receiver the last redirect reached."""
    page = http.get(authorize_url, timeout=TIMEOUT)
    assert page.status_code == 200 and "/oauth2/login?flow=" in page.url, (page.status_code, page.url)
    page = post_form(http, page, "password-form", email=email, password=PASSWORD)
    if authenticator:
        assert page.status_code == 200 and "code-form" in Forms(page.text).forms, page.text
        assert "authenticator app" in page.text
        page = post_form(http, page, "code-form", code=authenticator.next_code())
    assert page.status_code == 200 and page.url.startswith("http://127.0.0.1:"), (page.status_code, page.url)
    return page


def public_session(app: str, receiver: LoopbackReceiver) -> OAuth2Session:
    """authlib as a public native client: no secret (`none`), PKCE S256, the loopback redirect URI."""
    return OAuth2Session(app, scope=SCOPE, redirect_uri=receiver.redirect_uri, code_challenge_method="S256",
                         token_endpoint_auth_method="none", revocation_endpoint_auth_method="none")


@dataclass
class Grant:
    """What an authlib authorization ended with: the tokens, and the nonce, state, PKCE verifier and redirect."""

    token: dict
    nonce: str
    state: str
    verifier: str
    redirect: str


def authlib_grant(public_url: str, oauth: OAuth2Session, receiver: LoopbackReceiver, email: str,
                  authenticator: Authenticator | None = None) -> Grant:
    """A whole authorization with authlib: the URL from `create_authorization_url`, the login, the redirect on the
    loopback receiver (`state` and `iss` checked), the code redeemed with `fetch_token`."""
    verifier, nonce = generate_token(48), generate_token(20)
    url, state = oauth.create_authorization_url(f"{public_url}/oauth2/authorize", code_verifier=verifier,
                                                nonce=nonce)
    before = len(receiver.received)
    with requests.Session() as http:
        landed = log_in(http, url, email, authenticator)
    redirect = receiver.wait(before)
    assert landed.url == redirect
    params = query(redirect)
    assert set(params) == {"code", "state", "iss"}, params
    assert params["state"] == state and params["iss"] == public_url
    token = oauth.fetch_token(f"{public_url}/oauth2/token", authorization_response=redirect, state=state,
                              code_verifier=verifier)
    return Grant(dict(token), nonce, state, verifier, redirect)


# 1. authlib, a public client, a loopback redirect and a TOTP second factor.

def test_authlib_with_pkce_a_loopback_redirect_and_a_totp_second_factor(public, public_url, admin, tenant, app,
                                                                       receiver):
    email = new_user(admin, tenant, "authlib")
    authenticator = enrol_totp(public, email, tenant)
    oauth = public_session(app, receiver)
    grant = authlib_grant(public_url, oauth, receiver, email, authenticator)
    token = grant.token
    assert token["token_type"] == "Bearer" and token["scope"] == SCOPE and token["expires_in"] == 900
    assert set(token) >= {"access_token", "refresh_token", "id_token", "expires_in", "scope", "token_type"}

    access = verified(public_url, token["access_token"], "at+jwt", app)
    assert access["client_id"] == app and access["scope"] == SCOPE and access["tenant"] == tenant
    assert access["amr"] == ["pwd", "otp", "mfa"] and access["sid"] and access["jti"]
    assert access["auth_time"] <= access["iat"] < access["exp"]
    identity = verified(public_url, token["id_token"], "JWT", app)
    assert identity["sub"] == access["sub"] and identity["azp"] == app and identity["nonce"] == grant.nonce
    assert identity["amr"] == ["pwd", "otp", "mfa"] and identity["email"] == email
    assert identity["email_verified"] is True
    assert identity["at_hash"] == b64url(hashlib.sha256(token["access_token"].encode()).digest()[:16])

    # Refresh tokens rotate; a used one revokes the grant, so the newest one stops working too.
    token_url = f"{public_url}/oauth2/token"
    rotated = dict(oauth.refresh_token(token_url, refresh_token=token["refresh_token"]))
    assert rotated["refresh_token"] != token["refresh_token"]
    assert rotated["access_token"] != token["access_token"]
    again = verified(public_url, rotated["access_token"], "at+jwt", app)
    assert (again["sub"], again["sid"], again["amr"]) == (access["sub"], access["sid"], access["amr"])
    refreshed_identity = verified(public_url, rotated["id_token"], "JWT", app)
    assert "nonce" not in refreshed_identity and refreshed_identity["amr"] == ["pwd", "otp", "mfa"]
    assert error_of(lambda: oauth.refresh_token(token_url, refresh_token=token["refresh_token"])) == "invalid_grant"
    assert error_of(lambda: oauth.refresh_token(token_url, refresh_token=rotated["refresh_token"])) \
        == "invalid_grant"


def test_authlib_revocation_and_introspection(public_url, admin, tenant, app, resource_server, receiver):
    email = new_user(admin, tenant, "revoke")
    oauth = public_session(app, receiver)
    token = authlib_grant(public_url, oauth, receiver, email).token
    assert verified(public_url, token["access_token"], "at+jwt", app)["amr"] == ["pwd"]

    introspect_url = f"{public_url}/oauth2/introspect"
    server_id, server_secret = resource_server
    with OAuth2Session(server_id, server_secret, token_endpoint_auth_method="client_secret_basic") as server:
        active = server.introspect_token(introspect_url, token=token["access_token"]).json()
        assert active["active"] is True and active["token_type"] == "access_token"
        assert (active["client_id"], active["aud"], active["iss"]) == (app, app, public_url)
        assert active["scope"] == SCOPE and active["tenant"] == tenant and active["amr"] == ["pwd"]
        # Refresh tokens introspect for their own client only.
        assert server.introspect_token(introspect_url, token=token["refresh_token"]).json() == {"active": False}
        # A public client may not introspect.
        refused = oauth.introspect_token(introspect_url, token=token["access_token"])
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"

        revoked = oauth.revoke_token(f"{public_url}/oauth2/revoke", token=token["refresh_token"],
                                     token_type_hint="refresh_token")
        assert revoked.status_code == 200 and revoked.content == b""
        assert server.introspect_token(introspect_url, token=token["access_token"]).json() == {"active": False}
    assert error_of(lambda: oauth.refresh_token(f"{public_url}/oauth2/token", refresh_token=token["refresh_token"])) \
        == "invalid_grant"


def test_a_replayed_code_is_invalid_grant_and_revokes_the_first_tokens(public_url, admin, tenant, app,
                                                                       resource_server, receiver):
    email = new_user(admin, tenant, "replay")
    oauth = public_session(app, receiver)
    grant = authlib_grant(public_url, oauth, receiver, email)
    token, token_url = grant.token, f"{public_url}/oauth2/token"
    assert error_of(lambda: oauth.fetch_token(token_url, authorization_response=grant.redirect, state=grant.state,
                                              code_verifier=grant.verifier)) == "invalid_grant"
    server_id, server_secret = resource_server
    with OAuth2Session(server_id, server_secret) as server:
        inactive = server.introspect_token(f"{public_url}/oauth2/introspect", token=token["access_token"]).json()
    assert inactive == {"active": False}
    assert error_of(lambda: oauth.refresh_token(token_url, refresh_token=token["refresh_token"])) == "invalid_grant"


# 2. Headless Chromium on the login pages.

def sign_in_on_password_page(browser: Browser, auth: Authorization, email: str, screenshot: str | None = None):
    browser.open(auth.url)
    assert browser.has("password-form") and browser.title == "Sign in", browser.url
    if screenshot:
        browser.screenshot(screenshot)
    browser.fill("email", email)
    browser.fill("password", PASSWORD)
    browser.submit("sign-in")


def landed(browser: Browser, receiver: LoopbackReceiver, before: int, auth: Authorization, public_url: str,
           screenshot: str) -> str:
    """The code the browser brought to the loopback receiver (with the request's state and the issuer), after
    the landing page is saved."""
    redirect = receiver.wait(before, timeout=BROWSER_TIMEOUT)
    assert browser.url == redirect and browser.has("landed"), browser.url
    browser.screenshot(screenshot)
    params = query(redirect)
    assert set(params) == {"code", "state", "iss"}, params
    assert params["state"] == auth.state and params["iss"] == public_url
    assert len(receiver.received) == before + 1
    return params["code"]


def claims_of_code(public_url: str, app: str, receiver: LoopbackReceiver, auth: Authorization, code: str) -> dict:
    """The access token claims of the tokens `code` is redeemed for."""
    tokens = redeem(public_url, app, receiver.redirect_uri, code, auth.verifier)
    identity = verified(public_url, tokens["id_token"], "JWT", app)
    assert identity["nonce"] == auth.nonce
    return verified(public_url, tokens["access_token"], "at+jwt", app)


def test_chromium_password_page_then_sso_without_a_form(fresh_browser, public_url, admin, tenant, app, receiver):
    browser = fresh_browser
    email = new_user(admin, tenant, "chromium")
    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    sign_in_on_password_page(browser, auth, email, "password page")
    code = landed(browser, receiver, before, auth, public_url, "landing page after the password")
    first = claims_of_code(public_url, app, receiver, auth, code)
    assert first["amr"] == ["pwd"] and first["tenant"] == tenant
    assert set(browser.cookies()) >= {"tessera_browser", "tessera_session"}

    # SSO: the next authorization of the same browser lands on the redirect URI at once.
    again = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    browser.open(again.url)
    code = landed(browser, receiver, before, again, public_url, "landing page after sso")
    second = claims_of_code(public_url, app, receiver, again, code)
    assert (second["sub"], second["auth_time"], second["amr"]) == (first["sub"], first["auth_time"], ["pwd"])
    assert second["sid"] != first["sid"]

    # prompt=login asks for the password again, session or not.
    browser.open(authorization(public_url, app, receiver.redirect_uri, prompt="login").url)
    assert browser.has("password-form")


def test_chromium_forgot_password_to_a_sign_in_with_the_new_one(fresh_browser, public, public_url, admin, tenant,
                                                                 app, receiver, mailbox):
    browser = fresh_browser
    email = new_user(admin, tenant, "chromium-reset")
    auth = authorization(public_url, app, receiver.redirect_uri)
    browser.open(auth.url)
    browser.submit("forgot-password")
    assert browser.title == "Reset your password", browser.url
    browser.fill("email", email)
    browser.submit("send-reset")
    assert browser.has("reset-sent") and email in browser.text("reset-sent")
    browser.screenshot("password reset asked")
    mail = mailbox.wait_for(email)
    assert mail["kind"] == "password_reset" and mail["tenantId"] == tenant
    assert mail["link"].startswith(f"{public_url}/reset-password?oobCode=")

    browser.open(mail["link"])
    assert browser.title == "Choose a new password"
    assert browser.element("newPassword").get_attribute("minlength") == "8"
    browser.fill("newPassword", "a brand new password")
    browser.screenshot("new password")
    browser.submit("reset-password")
    assert browser.has("reset-done"), browser.url
    assert reason_of(public, "accounts.signInWithPassword",
                     {"email": email, "password": PASSWORD, "tenantId": tenant}) == "INVALID_LOGIN_CREDENTIALS"

    before = len(receiver.received)
    browser.open(auth.url)
    browser.fill("email", email)
    browser.fill("password", "a brand new password")
    browser.submit("sign-in")
    code = landed(browser, receiver, before, auth, public_url, "landing page after the reset")
    assert claims_of_code(public_url, app, receiver, auth, code)["amr"] == ["pwd"]
    # The link worked once.
    browser.open(mail["link"])
    browser.fill("newPassword", "yet another password")
    browser.submit("reset-password")
    assert browser.title == "Link not valid"


def test_chromium_logout_then_the_login_page_again(fresh_browser, public_url, admin, tenant, receiver):
    browser = fresh_browser
    created = call(admin, "oauthClients.create", {"tenantId": tenant, "client": {
        "clientName": "Logout e2e", "type": "public", "redirectUris": [LOOPBACK], "postLogoutRedirectUris": [LOOPBACK]}})
    app = created["clientId"]
    assert created["postLogoutRedirectUris"] == [LOOPBACK]
    end_session = requests.get(f"{public_url}/.well-known/openid-configuration", timeout=TIMEOUT).json()[
        "end_session_endpoint"]
    assert end_session == f"{public_url}/oauth2/logout"
    email = new_user(admin, tenant, "chromium-logout")
    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    sign_in_on_password_page(browser, auth, email)
    tokens = redeem(public_url, app, receiver.redirect_uri,
                    landed(browser, receiver, before, auth, public_url, "landing page before logout"), auth.verifier)
    assert "sid" in verified(public_url, tokens["id_token"], "JWT", app)

    # The app sends the browser to the end-session endpoint with the ID token: signed out at once, and back.
    before = len(receiver.received)
    browser.open(end_session + "?" + urlencode({"id_token_hint": tokens["id_token"], "state": "bye",
                                                "post_logout_redirect_uri": receiver.redirect_uri}))
    assert query(receiver.wait(before, timeout=BROWSER_TIMEOUT)) == {"state": "bye"}
    assert "tessera_session" not in browser.cookies()
    answer = requests.post(f"{public_url}/oauth2/token", timeout=TIMEOUT, data={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": app})
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
    browser.open(authorization(public_url, app, receiver.redirect_uri).url)
    assert browser.has("password-form"), browser.url
    browser.screenshot("login page after logout")

    # Without an ID token the user is asked first.
    again = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    sign_in_on_password_page(browser, again, email)
    receiver.wait(before, timeout=BROWSER_TIMEOUT)
    browser.open(f"{end_session}?client_id={app}")
    assert browser.title == "Sign out?" and "Logout e2e" in browser.text("instructions")
    browser.screenshot("logout confirmation")
    browser.submit("sign-out")
    assert browser.has("signed-out")
    browser.open(authorization(public_url, app, receiver.redirect_uri).url)
    assert browser.has("password-form"), browser.url


def test_chromium_sign_in_with_a_recovery_code_once(fresh_browser, public, public_url, admin, receiver):
    browser = fresh_browser
    tenant = new_tenant(admin, {"state": "ENABLED", "providerConfigs": [
        TOTP, {"state": "ENABLED", "recoveryCodeProviderConfig": {}}]})
    app = new_app(admin, tenant)
    email = new_user(admin, tenant, "chromium-recovery")
    id_token = id_token_of(public, email, tenant)
    totp = call(public, "mfaEnrollment.start", {"idToken": id_token, "tenantId": tenant, "totpEnrollmentInfo": {}})[
        "totpSessionInfo"]
    enrolled = call(public, "mfaEnrollment.finalize", {"idToken": id_token, "tenantId": tenant, "totpVerificationInfo": {
        "sessionInfo": totp["sessionInfo"], "verificationCode": Authenticator(totp["sharedSecretKey"]).next_code()}})
    info = call(public, "mfaEnrollment.start", {"idToken": enrolled["idToken"], "tenantId": tenant,
                                                "recoveryCodeEnrollmentInfo": {}})["recoveryCodeSessionInfo"]
    codes = info["codes"]
    call(public, "mfaEnrollment.finalize", {"idToken": enrolled["idToken"], "tenantId": tenant,
                                            "recoveryCodeVerificationInfo": {"sessionInfo": info["sessionInfo"],
                                                                             "code": codes[0]}})

    def recovery_code_page(auth: Authorization, screenshot: str | None = None):
        sign_in_on_password_page(browser, auth, email)
        assert browser.has("factor-form"), browser.url
        label = browser.driver.find_element(By.XPATH, "//label[normalize-space()='Recovery code']")
        browser.element(label.get_attribute("for")).click()
        browser.submit("continue")
        assert browser.has("code-form") and "recovery codes" in browser.text("instructions")
        assert browser.element("code").get_attribute("inputmode") is None
        if screenshot:
            browser.screenshot(screenshot)

    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    recovery_code_page(auth, "recovery code page")
    browser.fill("code", codes[1].upper())
    browser.submit("verify")
    code = landed(browser, receiver, before, auth, public_url, "landing page after a recovery code")
    assert claims_of_code(public_url, app, receiver, auth, code)["amr"] == ["pwd", "otp", "mfa"]

    # The same code, the second time, in a new browser session: refused.
    browser.clear_cookies()
    recovery_code_page(authorization(public_url, app, receiver.redirect_uri))
    browser.fill("code", codes[1])
    browser.submit("verify")
    assert browser.has("code-error"), browser.url
    browser.screenshot("a used recovery code refused")


@pytest.mark.parametrize("language, title", [("ja", "サインイン"), ("ru", "Вход")])
def test_chromium_login_page_in_the_users_language(fresh_browser, public_url, app, receiver, language, title):
    browser = fresh_browser
    browser.open(authorization(public_url, app, receiver.redirect_uri, ui_locales=f"de {language}").url)
    assert browser.title == title
    assert browser.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
    browser.screenshot(f"login page in {language}")
    browser.submit("forgot-password")
    assert browser.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language


def test_pages_follow_accept_language_then_the_tenants_default(public_url, admin):
    tenant = call(admin, "tenants.create", {"tenant": {"displayName": "Langue", "defaultLanguage": "fr"}})
    assert tenant["defaultLanguage"] == "fr"
    app = new_app(admin, tenant["tenantId"])
    for accept, expected in ((None, "fr"), ("ja-JP, en;q=0.5", "ja"), ("de, ru;q=0.9", "ru"), ("de", "fr")):
        headers = {"Accept-Language": accept} if accept else {}
        page = requests.get(authorization(public_url, app, LOOPBACK).url, headers=headers, timeout=TIMEOUT)
        assert page.status_code == 200 and f'<html lang="{expected}">' in page.text, (accept, page.text[:200])
    assert reason_of(admin, "tenants.create", {"tenant": {"displayName": "X", "defaultLanguage": "de"}}) \
        == "INVALID_ARGUMENT"


def test_chromium_phone_sign_in_with_a_test_number(fresh_browser, public_url, admin, receiver):
    browser = fresh_browser
    number = new_number()
    tenant = call(admin, "tenants.create", {"tenant": {
        "displayName": "Phone pages", "testPhoneNumbers": {number: "246810"}}})["tenantId"]
    app = new_app(admin, tenant)
    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    browser.open(auth.url)
    browser.submit("use-phone")
    assert browser.has("phone-number-form"), browser.url
    browser.fill("phoneNumber", number[:2] + " " + number[2:])
    browser.screenshot("phone sign-in: the number")
    browser.submit("send-code")  # login.js does the page's proof of work first
    assert browser.has("code-form") and number in browser.text("instructions"), browser.url
    browser.fill("code", "135790")
    browser.submit("verify")
    assert browser.has("code-error")
    browser.fill("code", "246810")
    browser.submit("verify")
    code = landed(browser, receiver, before, auth, public_url, "landing page after phone sign-in")
    assert claims_of_code(public_url, app, receiver, auth, code)["amr"] == ["sms"]


def test_chromium_totp_second_factor(fresh_browser, public, public_url, admin, tenant, app, receiver):
    browser = fresh_browser
    email = new_user(admin, tenant, "chromium-totp")
    authenticator = enrol_totp(public, email, tenant)
    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    sign_in_on_password_page(browser, auth, email)
    assert browser.has("code-form") and "authenticator app" in browser.text("instructions")
    browser.screenshot("totp second factor page")
    browser.fill("code", "12345")
    browser.submit("verify")
    assert browser.has("code-error") and browser.element("code").get_attribute("aria-invalid") == "true"
    browser.screenshot("totp second factor page with an error")
    browser.fill("code", authenticator.next_code())
    browser.submit("verify")
    code = landed(browser, receiver, before, auth, public_url, "landing page after totp")
    first = claims_of_code(public_url, app, receiver, auth, code)
    assert first["amr"] == ["pwd", "otp", "mfa"]

    # The session passed the second factor, so SSO skips both steps and keeps both factors.
    again = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    browser.open(again.url)
    code = landed(browser, receiver, before, again, public_url, "landing page after sso with totp")
    second = claims_of_code(public_url, app, receiver, again, code)
    assert (second["sub"], second["auth_time"], second["amr"]) == (first["sub"], first["auth_time"], first["amr"])


def test_chromium_sms_second_factor_with_resend(fresh_browser, public, public_url, admin, tenant, app, receiver,
                                                smsbox):
    browser = fresh_browser
    email = new_user(admin, tenant, "chromium-sms")
    number = enrol_sms(public, smsbox, email, tenant)
    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    sign_in_on_password_page(browser, auth, email)
    assert browser.has("code-form") and browser.has("resend-form")
    assert number[-4:] in browser.text("instructions") and number not in browser.driver.page_source
    first = smsbox.wait_for(number, after=1)
    assert first["kind"] == "mfa_sign_in" and first["tenantId"] == tenant
    browser.screenshot("sms code page")
    browser.submit("resend")
    assert browser.has("code-form")
    browser.screenshot("sms code page after resend")
    second = smsbox.wait_for(number, after=2)
    assert second["kind"] == "mfa_sign_in" and smsbox.count(number) == 3
    browser.fill("code", sms_code(second["body"]))
    browser.submit("verify")
    code = landed(browser, receiver, before, auth, public_url, "landing page after sms")
    assert claims_of_code(public_url, app, receiver, auth, code)["amr"] == ["pwd", "sms", "mfa"]


def test_chromium_mandatory_totp_enrolment_with_the_qr_code(fresh_browser, public_url, admin, receiver):
    browser = fresh_browser
    mandatory = new_tenant(admin, {"state": "MANDATORY", "providerConfigs": [TOTP]})
    app = new_app(admin, mandatory)
    email = new_user(admin, mandatory, "chromium-enrol")
    auth = authorization(public_url, app, receiver.redirect_uri)
    before = len(receiver.received)
    sign_in_on_password_page(browser, auth, email)
    assert browser.has("enroll-totp-form") and not browser.has("enroll-phone-form")
    browser.screenshot("mandatory enrolment choice")
    browser.submit("enroll-totp")
    assert browser.has("qr-code") and browser.driver.find_elements(By.CSS_SELECTOR, "#qr-code svg")
    assert browser.element("qr-code").size["width"] > 100
    key = re.sub(r"\s+", "", browser.text("manual-entry-key")).upper()
    assert re.fullmatch(r"[A-Z2-7]{16,}=*", key), key
    browser.screenshot("totp enrolment with the qr code")
    browser.fill("code", pyotp.TOTP(key).now())
    browser.submit("verify")
    code = landed(browser, receiver, before, auth, public_url, "landing page after enrolment")
    assert claims_of_code(public_url, app, receiver, auth, code)["amr"] == ["pwd", "otp", "mfa"]


def test_chromium_shows_the_400_page_for_an_unknown_client(fresh_browser, public_url, receiver):
    browser = fresh_browser
    auth = authorization(public_url, "no-such-client", receiver.redirect_uri)
    answer = requests.get(auth.url, allow_redirects=False, timeout=TIMEOUT)
    assert answer.status_code == 400 and "Location" not in answer.headers
    before = len(receiver.received)
    browser.open(auth.url)
    assert browser.url == auth.url and browser.has("error-message") and not browser.driver.find_elements(
        By.TAG_NAME, "form")
    browser.screenshot("error page for an unknown client")
    assert len(receiver.received) == before

    # The console check of `fresh_browser` sees violations: an inline style is one under the pages' policy.
    assert browser.csp_violations() == []
    browser.driver.execute_script("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    WebDriverWait(browser.driver, BROWSER_TIMEOUT).until(lambda _: browser.csp_violations())
    assert "style-src 'self'" in browser.csp_violations()[0]
    browser.forget_console()


# 3. The command-line example of docs/oauth.md, as written.

def cli_example() -> str:
    """The python block of the section "A command-line tool with a loopback redirect" of docs/oauth.md."""
    section = DOCS.read_text().split("## A command-line tool with a loopback redirect", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no python block in the CLI section of docs/oauth.md"
    return match.group(1)


def test_the_cli_example_of_the_docs_signs_in(fresh_browser, public_url, admin, tenant, app, tmp_path):
    browser = fresh_browser
    example = cli_example()
    for line in ('ISSUER = "https://auth.example.com"\n', 'CLIENT_ID = "CLIENT_ID_FROM_oauthClients.create"\n'):
        assert example.count(line) == 1, line
    program = tmp_path / "cli.py"
    program.write_text(example.replace('"https://auth.example.com"', repr(public_url))
                       .replace('"CLIENT_ID_FROM_oauthClients.create"', repr(app)))
    # The "browser" hands the URL to this test, which drives the module's Chromium: webbrowser waits for the
    # command it runs, and the example must reach handle_request() before the redirect can be answered.
    url_file = tmp_path / "url"
    opener = tmp_path / "open-browser"
    opener.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{url_file}.part" && mv "{url_file}.part" "{url_file}"\n')
    opener.chmod(opener.stat().st_mode | stat.S_IXUSR)
    environment = {**os.environ, "BROWSER": str(opener)}
    environment.pop("DISPLAY", None)
    email = new_user(admin, tenant, "cli")
    process = subprocess.Popen([sys.executable, str(program)], env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + BROWSER_TIMEOUT
        while not url_file.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the example did not open the browser"
            time.sleep(0.05)
        url = url_file.read_text()
        assert url.startswith(f"{public_url}/oauth2/authorize?")
        assert query(url)["redirect_uri"].startswith("http://127.0.0.1:")
        browser.open(url)
        assert browser.has("password-form")
        browser.fill("email", email)
        browser.fill("password", PASSWORD)
        browser.submit("sign-in")
        assert "Signed in. You can close this window." in browser.driver.page_source
        browser.screenshot("landing page of the cli example")
        output, errors = process.communicate(timeout=BROWSER_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, errors
    assert output == "access token expires in 900 seconds\n", (output, errors)


# 4. Security, from outside.

CSP = "default-src 'none'; style-src 'self'; script-src 'self'; form-action 'self'{target}; frame-ancestors 'none'; base-uri 'none'"


def assert_protected(answer: requests.Response, target: str = ""):
    assert answer.headers["Content-Security-Policy"] == CSP.format(target=target), answer.headers
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"


def cookie_attributes(answer: requests.Response, name: str) -> tuple[str, set[str]]:
    """The value and the attributes (lower-cased, `name=value` or flags) of the one Set-Cookie of `name`."""
    headers = [value for value in answer.raw.headers.getlist("Set-Cookie") if value.startswith(f"{name}=")]
    assert len(headers) == 1, answer.raw.headers.getlist("Set-Cookie")
    pair, *attributes = [part.strip() for part in headers[0].split(";")]
    return pair.split("=", 1)[1], {attribute.lower() for attribute in attributes}


def test_the_login_pages_headers_and_cookie_flags(public_url, admin, tenant, app, receiver):
    email = new_user(admin, tenant, "headers")
    auth = authorization(public_url, app, receiver.redirect_uri)
    with requests.Session() as http:
        start = http.get(auth.url, allow_redirects=False, timeout=TIMEOUT)
        assert start.status_code == 303 and "/oauth2/login?flow=" in start.headers["Location"]
        assert_protected(start)
        value, attributes = cookie_attributes(start, "tessera_browser")
        assert len(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))) == 32
        assert attributes == {"path=/", "httponly", "samesite=lax"}
        page = http.get(urljoin(auth.url, start.headers["Location"]), timeout=TIMEOUT)
        assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
        assert_protected(page, f" http://127.0.0.1:{receiver.port}")
        assert "<script" not in page.text.lower() and " style=" not in page.text.lower()
        stylesheet = http.get(f"{public_url}/oauth2/login.css", timeout=TIMEOUT)
        assert stylesheet.status_code == 200 and stylesheet.headers["Content-Type"].startswith("text/css")
        assert_protected(stylesheet)

        signed_in = post_form(http, page, "password-form", follow=False, email=email, password=PASSWORD)
        assert signed_in.status_code == 303
        assert signed_in.headers["Location"].startswith(receiver.redirect_uri + "?")
        _, attributes = cookie_attributes(signed_in, "tessera_session")
        assert attributes == {"path=/", "httponly", "samesite=lax", "max-age=43200"}


def test_forms_without_the_csrf_token_or_from_another_browser_get_403(public_url, admin, tenant, app, receiver):
    email = new_user(admin, tenant, "csrf")
    auth = authorization(public_url, app, receiver.redirect_uri)
    credentials = {"email": email, "password": PASSWORD}
    with requests.Session() as http, requests.Session() as other:
        page = http.get(auth.url, timeout=TIMEOUT)
        assert other.get(auth.url, timeout=TIMEOUT).status_code == 200
        form = Forms(page.text).forms["password-form"]
        action = urljoin(page.url, form["action"])
        flow, csrf = form["hidden"]["flow"], form["hidden"]["csrf"]
        refusals = [
            http.post(action, data={"flow": flow, **credentials}, allow_redirects=False, timeout=TIMEOUT),
            http.post(action, data={"flow": flow, "csrf": "", **credentials}, allow_redirects=False,
                      timeout=TIMEOUT),
            http.post(action, data={"flow": flow, "csrf": b64url(secrets.token_bytes(32)), **credentials},
                      allow_redirects=False, timeout=TIMEOUT),
            # Another browser, with a flow of its own, cannot post this browser's form, token and all.
            other.post(action, data={"flow": flow, "csrf": csrf, **credentials}, allow_redirects=False,
                           timeout=TIMEOUT),
        ]
        # Nor may it see this browser's page.
        refusals.append(other.get(page.url, allow_redirects=False, timeout=TIMEOUT))
        for refused in refusals:
            assert refused.status_code == 403 and 'id="error-message"' in refused.text, refused.text
            assert_protected(refused)
            assert "tessera_session" not in refused.headers.get("Set-Cookie", "")
        # Nothing changed: the genuine form still signs in, once.
        before = len(receiver.received)
        post_form(http, page, "password-form", **credentials)
        assert query(receiver.wait(before))["state"] == auth.state
        replayed = post_form(http, page, "password-form", **credentials)
        assert replayed.status_code == 400 and 'id="error-message"' in replayed.text
        assert len(receiver.received) == before + 1


@pytest.mark.parametrize(("change", "error"), [
    ({"scope": "openid admin"}, "invalid_scope"),
    ({"code_challenge_method": "plain"}, "invalid_request"),
    ({"code_challenge": None}, "invalid_request"),
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"prompt": "none"}, "login_required"),
])
def test_errors_after_the_redirect_uri_is_trusted_come_back_with_state_and_iss(public_url, app, receiver, change,
                                                                               error):
    state = "st ä/&=" + secrets.token_hex(4)
    auth = authorization(public_url, app, receiver.redirect_uri)
    params = {**query(auth.url), "state": state, **change}
    url = f"{public_url}/oauth2/authorize?" + urlencode({k: v for k, v in params.items() if v is not None})
    answer = requests.get(url, allow_redirects=False, timeout=TIMEOUT)
    assert answer.status_code in (302, 303) and answer.headers["Location"].startswith(receiver.redirect_uri + "?")
    returned = query(answer.headers["Location"])
    assert returned["error"] == error and returned["error_description"], returned
    assert (returned["state"], returned["iss"]) == (state, public_url) and "code" not in returned


def test_the_sms_code_page_names_the_number_once(public, public_url, admin, tenant, app, receiver, smsbox):
    email = new_user(admin, tenant, "sms-text")
    number = enrol_sms(public, smsbox, email, tenant)
    auth = authorization(public_url, app, receiver.redirect_uri)
    with requests.Session() as http:
        http.headers["X-Forwarded-For"] = new_client_ip()
        page = http.get(auth.url, timeout=TIMEOUT)
        page = post_form(http, page, "password-form", email=email, password=PASSWORD)
    instructions = re.search(r'<p id="instructions">(.*?)</p>', page.text)
    assert instructions and f"+*******{number[-4:]}" in instructions.group(1), page.text
    assert instructions.group(1).count("SMS") == 1, instructions.group(1)
