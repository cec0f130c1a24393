"""A team's session in real Chromium: two annotators answer at once, the server is SIGKILLed, nothing is lost."""

import json
import re
import sqlite3
from pathlib import Path

import pytest

from linkwise.session.core._team import overlap_drawn
from tests.e2e.helpers import CHROMIUM, Server

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} ('make test' installs it with apt)",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="the playwright package (dev extra) is not installed")
from tests.e2e import test_session_browser  # noqa: E402

browser = test_session_browser.browser  # its module-wide Chromium, as this module's fixture

TEAM = ("alice", "bob")


def start(args):
    """The server and each annotator's link (its first line is alice's, read by :class:`Server`)."""
    server = Server(*args)
    links = {"alice": server.url}
    for line in server.process.stdout:
        found = re.search(r"(\w+): (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", line)
        if found:
            links[found.group(1)] = found.group(2)
        if len(links) == len(TEAM):
            return server, links
    raise RuntimeError("the server printed no link for every annotator")


def shown(page):
    """The pair on the page, from its position (``i-j@who``), or None while it waits or is done."""
    found = re.fullmatch(r"(\d+)-(\d+)@\w+", page.get_attribute("body", "data-position"))
    return None if found is None else (int(found.group(1)), int(found.group(2)))


def click_answers(pages, y):
    """Every annotator with a question clicks the true answer, all before any reply is awaited."""
    clicked = {}
    for who, page in pages.items():
        pair = shown(page)
        if pair is not None:
            clicked[who] = page.get_attribute("body", "data-position")
            page.click("button.same" if y[pair[0]] == y[pair[1]] else "button.different")
    return clicked


def settle(pages, clicked, saved):
    """Wait for each reply; an answer the page shows as taken (no refusal message) counts as saved."""
    for who, old in clicked.items():
        page = pages[who]
        page.wait_for_selector(f'body[data-position]:not([data-position="{old}"])', state="attached")
        saved[who] += page.locator("#message:not(.done)").is_hidden()  # no refusal: hidden, or saying it saved


def open_pages(pages, links):
    for who, page in pages.items():
        page.goto(links[who])
        page.wait_for_selector("body[data-position]", state="attached")


def test_two_annotators_answer_concurrently_through_a_crash(browser, tmp_path, iris_file):
    data_path, y = iris_file
    session_file = tmp_path / "iris.linkwise.db"
    args = [data_path, "--id-column", "name", "--session", session_file, "--method", "cobras",
            "--param", "random_state=0", "--annotators", ",".join(TEAM), "--overlap", "0.3"]
    saved = dict.fromkeys(TEAM, 0)
    contexts = {who: browser.new_context() for who in TEAM}  # two people: two cookie jars
    pages = {who: context.new_page() for who, context in contexts.items()}
    server, links = start(args)
    try:
        open_pages(pages, links)
        assert shown(pages["alice"]) != shown(pages["bob"])  # each has a question of their own
        assert "You answer as bob" in pages["bob"].text_content("#team")
        for _ in range(6):
            settle(pages, click_answers(pages, y), saved)
        in_flight = click_answers(pages, y)  # both answers sent, then the server dies
    finally:
        server.kill()
    assert in_flight

    server, links = start(args[:-4])  # the same session: its team and overlap are stored
    try:
        open_pages(pages, links)
        stored, before = server.state()["n_answered"], sum(saved.values())
        assert before <= stored <= before + len(in_flight)  # what the pages saw saved, at most the in-flight too
        for _ in range(4):
            settle(pages, click_answers(pages, y), saved)
        assert server.state()["n_answered"] == stored + sum(saved.values()) - before
    finally:
        server.stop()
        for context in contexts.values():
            context.close()

    db = sqlite3.connect(session_file)
    rows = db.execute("SELECT i, j, answer, annotator, kind FROM answers ORDER BY seq").fetchall()
    seed = json.loads(db.execute("SELECT value FROM meta WHERE key = 'params'").fetchone()[0])["random_state"]
    db.close()
    for who in TEAM:  # nothing taken was lost, every answer says who gave it
        assert sum(r[3] == who for r in rows) >= saved[who]
    assert {r[3] for r in rows} == set(TEAM) and {r[4] for r in rows} == {"question"}
    assert all(bool(a) == (y[i] == y[j]) for i, j, a, _, _ in rows)
    by_pair = {}
    for i, j, _, who, _ in rows:
        by_pair.setdefault((i, j), []).append(who)
    # no pair answered twice unless drawn for overlap, and then by the two annotators
    twice = {pair: who for pair, who in by_pair.items() if len(who) > 1}
    assert twice and all(overlap_drawn(seed, pair, 0.3) and sorted(who) == sorted(TEAM) for pair, who in twice.items())


def test_an_open_team_joins_on_the_page(browser, tmp_path, iris_file):
    data_path, _ = iris_file
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                    "--annotators", "open")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector("#join:not([hidden])")
        assert page.locator("#ask").is_hidden()
        page.fill("#join-name", "dana")
        page.click("#join button")
        page.wait_for_selector("#ask:not([hidden])")
        assert "You answer as dana" in page.text_content("#team") and shown(page) is not None
        page.reload()  # the name is kept
        page.wait_for_selector("#ask:not([hidden])")
        assert page.locator("#join").is_hidden()
    finally:
        context.close()
        server.stop()
