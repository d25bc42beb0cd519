"""A real headless Chromium driven by Selenium with the system's chromedriver (nothing downloaded), for the
tests of our web pages; ``needs_browser`` skips a test cleanly where Chromium, chromedriver or selenium is missing."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
_MISSING = (
    "the browser tests need the selenium package"
    if importlib.util.find_spec("selenium") is None
    else "Chromium and chromedriver are not installed (e.g. apt-get install chromium chromium-driver)"
    if not (CHROMIUM and CHROMEDRIVER)
    else None
)
needs_browser = pytest.mark.skipif(_MISSING is not None, reason=_MISSING or "")


def browser(profile: Path, width: int = 1100, height: int = 1000, console: bool = False):
    """A headless Chromium window of ``width`` x ``height`` with its own profile folder; ``console`` keeps the
    page's console messages for ``driver.get_log("browser")``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        opts.add_argument(flag)
    if console:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))
