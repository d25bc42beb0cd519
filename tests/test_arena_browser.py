"""The vote page in a real headless Chromium (Selenium with the system's chromedriver, nothing downloaded):
two invited annotators vote through their links, the server is killed and restarted mid-way, the database
holds every vote once; requests from outside a session get a 4xx and change nothing."""

from __future__ import annotations

import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from arena_data import Server
from browser import browser, needs_browser
from PIL import Image, ImageDraw
from processes import free_port

from mmsoc.arena.records import Battle, write_battles

pytestmark = needs_browser
LABELS = ("A", "B", "tie", "both_bad")


def _vote_once(driver, name: str, votes: dict, seen: set, shot: Path) -> bool:
    """Vote on the battle shown (a label and critique of its own); False when the page says all are done.
    The first page with a picture is saved to ``shot``."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    if driver.find_elements(By.ID, "done"):
        return False
    battle = driver.find_element(By.ID, "battle").get_attribute("value")
    assert (name, battle) not in seen, f"{name} was shown {battle} twice"
    seen.add((name, battle))
    pictures = driver.find_elements(By.CSS_SELECTOR, ".media img")
    for img in pictures:
        assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) == 240
    if pictures and not shot.exists():
        driver.save_screenshot(str(shot))
    label = LABELS[(len(seen) + len(name)) % 4]
    critique = f"{name} on {battle}: {label}"
    driver.find_element(By.ID, "critique").send_keys(critique)
    old = driver.find_element(By.ID, "battle")
    driver.find_element(By.ID, f"vote-{label}").click()
    # While the old page is unloaded, chromedriver may answer "Node with given id does not belong to the
    # document" (a plain WebDriverException) before it answers "stale": poll again on either
    WebDriverWait(driver, 20, ignored_exceptions=[WebDriverException]).until(expected_conditions.staleness_of(old))
    votes[name, battle] = (label, critique)
    return True


def _post(url: str, headers: dict | None = None, **form) -> int:
    data = urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(url + "/vote", data=data, headers=headers or {}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def _db_votes(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT annotator, battle, label, critique FROM votes ORDER BY id").fetchall()


def test_two_annotators_vote_through_a_killed_and_restarted_server(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    meme = Image.new("RGB", (240, 160), (30, 120, 200))
    ImageDraw.Draw(meme).text((20, 70), "when the test passes first time", fill=(255, 255, 255))
    meme.save(root / "meme.png")
    battles = [
        Battle(
            f"b{k}",
            f"item{k}",
            "model-x",
            "model-y",
            f"answer x{k}",
            f"answer y{k}",
            task="social_context",
            prompt="Describe the cultural and social context of the image.",
            text=f"meme text {k}",
            data=str(root) if k % 2 == 0 else None,
            media=("meme.png",) if k % 2 == 0 else (),
        )
        for k in range(5)
    ]
    write_battles(tmp_path / "battles.jsonl", battles)
    db = tmp_path / "votes.sqlite"
    server = Server(tmp_path / "battles.jsonl", db, free_port())
    try:
        _vote_kill_restart_and_refuse(server, db, tmp_path)
    finally:
        server.kill()


def _vote_kill_restart_and_refuse(server: Server, db: Path, tmp_path: Path) -> None:
    links = server.invite("alice", "bob")
    server.start()
    drivers: dict = {}
    votes: dict = {}
    seen: set = set()
    try:
        for name in ("alice", "bob"):
            drivers[name] = browser(tmp_path / f"profile-{name}")
        for name, driver in drivers.items():
            driver.get(links[name])
        for name, rounds in (("alice", 2), ("bob", 3)):
            for _ in range(rounds):
                assert _vote_once(drivers[name], name, votes, seen, tmp_path / "vote_page.png")
        server.kill()  # mid-way: 5 of 10 votes cast
        assert len(_db_votes(db)) == 5
        server.start()
        for name, driver in drivers.items():
            driver.get(f"{server.url}/vote")  # the session outlives the server
            while _vote_once(driver, name, votes, seen, tmp_path / "vote_page.png"):
                pass
        assert all("voted on 5 of 5 battles" in driver.page_source for driver in drivers.values())
        assert (tmp_path / "vote_page.png").exists()
    finally:
        for driver in drivers.values():
            driver.quit()
    before = _db_votes(db)
    assert sorted(before) == sorted((n, b, label, c) for (n, b), (label, c) in votes.items())
    assert len(before) == 10 and len({(n, b) for n, b, _, _ in before}) == 10
    assert _post(server.url, annotator="alice", battle="b1", label="A") == 403
    assert _post(server.url, {"Origin": server.url}, annotator="carol", battle="b1", label="A") == 403
    assert _db_votes(db) == before
