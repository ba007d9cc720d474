"""Browser fixtures: Debian's Chromium driven by Playwright (never a downloaded browser), a real
`hearth serve` on loopback with SmolLM2, and a page that records every request it makes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.integration.conftest import Server, start_server

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
]
DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str | None:
    """Debian's Chromium (``HEARTH_CHROMIUM`` overrides), or None."""
    for candidate in (
        os.environ.get("HEARTH_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Headless Chromium from /usr/bin/chromium; skips with the reason when it cannot run here.

    Package-scoped: Playwright's sync API keeps an event loop running in the main thread while it
    is open, so it must be closed before the tiers after tests/e2e (whose tests call asyncio.run).
    """
    executable = chromium_path()
    if executable is None:
        pytest.skip("browser tier: no Chromium (apt-get install chromium chromium-driver)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tier: Python Playwright is not installed (pip install '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real `hearth serve` with SmolLM2 on a fresh data directory."""
    srv = start_server(tmp_path_factory.mktemp("e2e") / "data", model="smollm2-135m")
    yield srv
    srv.stop()


@dataclass
class Tab:
    """A page and every URL it asked for, plus what its console said."""

    page: Any
    url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def shot(self, name: str, full_page: bool = True) -> Path:
        """Save a screenshot under tests/e2e/screenshots/ (git-ignored)."""
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def open(self, hash_: str = "#/chat") -> None:
        """Load the UI at a route and wait until it has started."""
        self.page.goto(f"{self.url}/{hash_}")
        self.page.wait_for_selector("body[data-ready='true']")

    def foreign_hosts(self) -> set[str]:
        """Hosts other than loopback that the page tried to reach."""
        hosts = {
            urlsplit(u).hostname for u in self.requests if not u.startswith(("data:", "blob:"))
        }
        return {h for h in hosts if h not in {"127.0.0.1"}}


def new_tab(browser: Any, server: Server, **context: Any) -> Iterator[Tab]:
    """A fresh browser context (own storage) on the server; checks it stayed on loopback."""
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    tab = Tab(page, server.url)
    page.on("request", lambda r: tab.requests.append(r.url))
    page.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: tab.console_errors.append(str(e)))
    yield tab
    # A page still blank never loaded Hearth (its test skipped first, e.g. the real-data tier in
    # a clone without ../shared): it has no requests to check.
    opened = page.url != "about:blank"
    ctx.close()
    assert tab.requests or not opened, "the page made no request at all"
    assert tab.foreign_hosts() == set(), f"requests left the machine: {tab.foreign_hosts()}"


@pytest.fixture
def desktop(browser: Any, server: Server) -> Iterator[Tab]:
    """A desktop-width page in light mode."""
    yield from new_tab(browser, server, viewport=DESKTOP, color_scheme="light")


@pytest.fixture
def phone_dark(browser: Any, server: Server) -> Iterator[Tab]:
    """A phone-width page in dark mode."""
    yield from new_tab(
        browser, server, viewport=PHONE, color_scheme="dark", is_mobile=True, has_touch=True
    )
