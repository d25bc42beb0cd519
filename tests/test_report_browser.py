"""report.html for two runs (plus a desiq-eval run and arena ratings) in a real headless Chromium: no console
errors, nothing wider than a 1400-pixel window, a figure before the first table, every picture decoded,
sticky table headers, and contents links that scroll their section into view. A screenshot of the top of the
page and of a task section is saved in the test's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import browser, needs_browser
from report_data import write_desiq_run, write_ratings, write_run

from mmsoc.report import ReportSettings, write_report

pytestmark = needs_browser
WIDTH = 1400


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    runs = [
        write_run(root / "a", "model-a", [0, 1], 0.85, {}),
        write_run(root / "b", "model-b", [0], 0.5, {"ocr": 5}),
        write_desiq_run(root / "desiq-a", "model-a"),
        write_desiq_run(root / "desiq-b", "model-b", shift=-0.2),
        write_ratings(root / "arena"),
    ]
    out = tmp_path_factory.mktemp("report")
    write_report(runs, out, ReportSettings(n_boot=100, seed=0, fast=True))
    return out / "report.html"


def test_report_page_in_a_real_browser(page, tmp_path):
    from selenium.webdriver.common.by import By

    driver = browser(tmp_path / "profile", WIDTH, 1000, console=True)
    try:
        driver.get(page.as_uri())
        js = driver.execute_script
        assert driver.title == "Evaluation report"
        assert js("return window.innerWidth") == WIDTH
        assert js("return document.documentElement.scrollWidth <= window.innerWidth"), js(
            "return [document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert js(
            "const f = document.querySelector('figure'), t = document.querySelector('table');"
            "return !!(f && t && (f.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING))"
        )
        images = driver.find_elements(By.CSS_SELECTOR, "figure img")
        assert len(images) >= 10
        assert all(js("return arguments[0].complete && arguments[0].naturalWidth > 0", img) for img in images)
        assert js(
            "return [...document.querySelectorAll('img')].every(i => i.getBoundingClientRect().right <= "
            "window.innerWidth)"
        )
        driver.save_screenshot(str(tmp_path / "report_top.png"))
        links = driver.find_elements(By.CSS_SELECTOR, "nav.toc a")
        targets = [link.get_attribute("href").split("#", 1)[1] for link in links]
        assert "task-image_description" in targets and "arena-ratings" in targets
        assert all(js("return document.getElementById(arguments[0]) !== null", t) for t in targets)
        for target in ("task-image_description", "social-iq-runs-desiq-eval", "task-hate"):
            js("window.scrollTo(0, 0)")
            driver.find_element(By.CSS_SELECTOR, f'nav.toc a[href="#{target}"]').click()
            top = js("return document.getElementById(arguments[0]).getBoundingClientRect().top", target)
            assert js("return window.scrollY") > 0 and -2 <= top <= 40, (target, top)
            assert js("return location.hash") == f"#{target}"
        driver.save_screenshot(str(tmp_path / "report_hate.png"))
        table = driver.find_element(By.XPATH, "//caption[text()='Methods']/..")
        js("arguments[0].scrollIntoView(); window.scrollBy(0, 200)", table)
        header = table.find_element(By.CSS_SELECTOR, "thead th")
        assert abs(js("return arguments[0].getBoundingClientRect().top", header)) <= 1  # the header sticks
        errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
        assert errors == []
    finally:
        driver.quit()
    assert (tmp_path / "report_top.png").stat().st_size > 10_000
