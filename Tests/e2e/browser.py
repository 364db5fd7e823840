"""Headless Chromium driven by Selenium, for the tests that walk the login pages as a user would.

One `Browser` serves a whole test module. It saves a screenshot of every page a test names under
test-output/oauth-browser/ (numbered in the order taken), and keeps the browser console so a test can check that
no Content Security Policy was violated.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from support import TIMEOUT

CHROMIUM = os.environ.get("TESSERA_E2E_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("TESSERA_E2E_CHROMEDRIVER", "/usr/bin/chromedriver")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "oauth-browser"
# A page load and the submissions after it: three times one answer's time, since Chromium on a busy shared machine
# can take several seconds to render, and a submission may follow redirects.
BROWSER_TIMEOUT = 3 * TIMEOUT


class Browser:
    """A headless Chromium with its console log kept (`goog:loggingPrefs`)."""

    def __init__(self, screenshots: Path = SCREENSHOTS):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=800,1000",
                         "--no-first-run", "--disable-extensions"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        self.driver.set_page_load_timeout(BROWSER_TIMEOUT)
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.console: list[dict] = []
        self.screenshots = screenshots
        shutil.rmtree(screenshots, ignore_errors=True)
        screenshots.mkdir(parents=True)
        self.taken: list[Path] = []

    def quit(self):
        self.driver.quit()

    # Navigation.

    @property
    def url(self) -> str:
        return self.driver.current_url

    def open(self, url: str):
        self.driver.get(url)

    def element(self, element_id: str) -> WebElement:
        return self.driver.find_element(By.ID, element_id)

    def has(self, element_id: str) -> bool:
        return bool(self.driver.find_elements(By.ID, element_id))

    def text(self, element_id: str) -> str:
        return self.element(element_id).text

    @property
    def title(self) -> str:
        """The page's `<h1>`."""
        headings = self.driver.find_elements(By.TAG_NAME, "h1")
        return headings[0].text if headings else ""

    def fill(self, field_id: str, value: str):
        field = self.element(field_id)
        field.clear()
        field.send_keys(value)

    def submit(self, button_id: str):
        """Clicks the button and waits until the next document has loaded (the form's POST, and any redirects)."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        self.element(button_id).click()
        wait = WebDriverWait(self.driver, BROWSER_TIMEOUT)
        wait.until(lambda _: self._gone(page))
        wait.until(lambda driver: driver.execute_script("return document.readyState") == "complete")

    @staticmethod
    def _gone(element: WebElement) -> bool:
        """Whether `element`'s document was replaced. While Chromium tears a document down, asking about one of its
        nodes may fail with another error than a stale reference ("Node with given id does not belong to the
        document"), so any failure counts."""
        try:
            element.is_enabled()
        except WebDriverException:
            return True
        return False

    # The network.

    def clear_cookies(self):
        """Forgets every cookie of every site: the next authorization starts without a session."""
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})

    def cookies(self) -> dict[str, dict]:
        """The browser's cookies for the current page, by name."""
        return {cookie["name"]: cookie for cookie in self.driver.get_cookies()}

    def present_client_ip(self, address: str):
        """Sends `X-Forwarded-For: address` with every request (the e2e server trusts 127.0.0.1 as a proxy), so the
        SMS send limits per client IP of one test never carry over to another."""
        self.driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Forwarded-For": address}})

    # Evidence.

    def screenshot(self, name: str) -> Path:
        """Saves the page as test-output/oauth-browser/NN-NAME.png."""
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        path = self.screenshots / f"{len(self.taken) + 1:02d}-{slug}.png"
        assert self.driver.save_screenshot(str(path)), f"no screenshot at {path}"
        self.taken.append(path)
        return path

    def console_entries(self) -> list[dict]:
        """Every console entry so far (the driver hands each out once, so they are kept here)."""
        try:
            self.console.extend(self.driver.get_log("browser"))
        except WebDriverException:
            pass
        return self.console

    def csp_violations(self) -> list[str]:
        """The console messages that report a Content Security Policy violation."""
        return [entry["message"] for entry in self.console_entries()
                if "Content Security Policy" in entry["message"] or "Content-Security-Policy" in entry["message"]]

    def forget_console(self):
        """Drops the console entries kept so far."""
        self.console_entries()
        self.console.clear()
