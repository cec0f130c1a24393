"""The session page in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright)."""

import json
import os
import sqlite3
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linkwise as lw
from linkwise.session import SessionFileError, load_data
from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS, REPO, LiveServer, Scripted, Server, direct_fit, iris_csv

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} ('make test' installs it with apt)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package (dev extra) is not installed")
VIEWPORT = {"width": 1200, "height": 800}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    yield context.new_page()
    context.close()


def position(page):
    return page.get_attribute("body", "data-position")


def wait_moved(page, old):
    """Wait until the page shows a state other than ``old`` (no eval: the page's CSP forbids it)."""
    page.wait_for_selector(f'body[data-position]:not([data-position="{old}"])', state="attached")


def shown_rows(page, container="#pair"):
    return [int(t.removeprefix("flower-")) for t in page.locator(f"{container} .item-id").all_text_contents()]


def open_page(page, server):
    page.goto(server.url)
    page.wait_for_selector("body[data-position]", state="attached")


@contextmanager
def served_page(page, *args):
    """A session server started with ``args`` (those of ``linkwise cluster``), its page open in ``page``;
    the server is stopped on leaving."""
    server = Server(*args)
    try:
        open_page(page, server)
        yield server
    finally:
        server.stop()


def press(page, keys):
    """Press each key and wait until the page shows the next state."""
    for key in keys:
        old = position(page)
        page.keyboard.press(key)
        wait_moved(page, old)


def test_answer_reload_undo_finish_gives_the_direct_runs_labels(page, tmp_path, iris_file):
    data_path, y = iris_file
    labels_path = tmp_path / "labels.csv"
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--out", labels_path)
    try:
        open_page(page, server)
        for k in range(10):
            a, b = shown_rows(page)
            old = position(page)
            same = y[a] == y[b]
            if k % 2:  # keyboard shortcuts and buttons both work
                page.keyboard.press("s" if same else "d")
            else:
                page.click("button.same" if same else "button.different")
            wait_moved(page, old)
        assert page.text_content("#n-answered") == "10"
        before = position(page)
        page.reload()
        page.wait_for_selector("body[data-position]", state="attached")
        assert position(page) == before and page.text_content("#n-answered") == "10"
        assert page.locator("#scatter").is_visible()
        page.click("#ask button.undo")
        wait_moved(page, before)
        assert page.text_content("#n-answered") == "9"
        page.click("#finish")
        page.wait_for_selector("#finished-text >> text=Saved the clustering")
        assert "The linkwise server has stopped" in page.text_content("#finished-text")
        assert server.process.wait(30) == 0
    finally:
        server.stop()

    written = pd.read_csv(labels_path)
    direct = direct_fit(tmp_path / "s.db", load_data(data_path, id_column="name").X, y, 9)  # the default method
    assert written["id"].tolist() == [f"flower-{k}" for k in range(len(y))]
    assert lw.metrics.ari(direct.labels_, written["cluster"]) == 1.0
    assert written["cluster"].nunique() == np.unique(direct.labels_).size

    exported = subprocess.run(
        [sys.executable, "-c", "from linkwise.cli import main; main()", "export", str(tmp_path / "s.db")],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    assert exported.stdout == written.to_csv(index=False)


def test_item_text_is_shown_as_text_never_run(browser, tmp_path):
    attacks = ["<script>window.__pwned = 1</script>", '<img src=x onerror="window.__pwned = 2">',
               "<b>bold?</b> & \"quotes\""]
    path, _ = iris_csv(tmp_path, extra={"note": [attacks[k % 3] for k in range(147)]})
    server = Server(path, "--id-column", "name", "--session", tmp_path / "s.db",
                    "--method", "tests.reference:ClosestPairsFirst")
    # without the page's CSP, so that only the escaping stands between the cell and the page
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    try:
        open_page(page, server)
        notes = page.locator("#pair td").all_text_contents()
        assert any(text in notes for text in attacks)
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned === undefined")
        assert page.locator("#pair script, #pair img, #pair b").count() == 0
    finally:
        context.close()
        server.stop()


def test_two_tabs_share_one_question_and_a_late_answer_is_refused(page, tmp_path, iris_file):
    data_path, y = iris_file
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db")
    other = page.context.new_page()
    try:
        open_page(page, server)
        open_page(other, server)
        assert position(page) == position(other) and shown_rows(page) == shown_rows(other)
        # hold the second tab's polling so that it still shows the old question when it answers
        polls = []

        def is_poll(url):
            return "/api/state?revision=" in url

        def hold(route):
            polls.append(route.request.url)
            route.abort()

        other.route(is_poll, hold)
        old = position(page)
        page.click("button.same")
        wait_moved(page, old)
        other.click("button.different")
        other.wait_for_selector("#message >> text=already been answered")
        assert position(other) == position(page)
        assert len(sqlite3.connect(tmp_path / "s.db").execute("SELECT * FROM answers").fetchall()) == 1
        # with polling back, an answer in one tab shows up in the other
        other.wait_for_timeout(1600)  # at least one poll was held back
        assert polls
        other.unroute(is_poll)
        old = position(page)
        page.click("button.different")
        wait_moved(page, old)
        wait_moved(other, old)
        assert position(other) == position(page)
    finally:
        other.close()
        server.stop()


def test_a_contradiction_is_shown_and_the_person_keeps_one_answer(page, tmp_path, iris_file):
    data_path, _ = iris_file
    script = json.dumps([[0, 1], [0, 1, "recheck"], [2, 3]])
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db",
                    "--method", "tests.e2e.helpers:Scripted", "--param", f"script={script}")
    try:
        open_page(page, server)
        old = position(page)
        page.keyboard.press("s")
        wait_moved(page, old)
        old = position(page)
        page.keyboard.press("d")  # contradicts the first answer
        page.wait_for_selector("#conflict:not([hidden])")
        assert shown_rows(page, "#conflict-pair") == [0, 1]
        answers = page.locator("#conflict-answers li").all_text_contents()
        assert len(answers) == 2 and "same" in answers[0] and "different" in answers[1]
        assert "puts them in the same group" in page.text_content("#conflict-text")
        page.keyboard.press("s")  # answering is refused while the contradiction is open
        page.wait_for_selector("#message >> text=Resolve the contradiction first")
        page.click("#conflict-answers button >> text=Keep “same”")
        page.wait_for_selector("#ask:not([hidden])")
        assert page.text_content("#message.done") == "Resolved: flower-0 and flower-1 “same” kept"
        assert shown_rows(page) == [2, 3]
        stored = sqlite3.connect(tmp_path / "s.db").execute("SELECT answer FROM answers ORDER BY seq").fetchall()
        assert stored == [(1,), (1,)]
    finally:
        server.stop()


def in_view(page, selector):
    box = page.locator(selector).bounding_box()
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= VIEWPORT["height"]


def test_the_token_leaves_the_address_for_an_httponly_cookie(page, browser, live, iris_data):
    server, _ = live(iris_data[0])
    open_page(page, server)
    assert page.url == server.origin + "/"
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script on the page can read it
    stranger = browser.new_context()
    try:
        refused = stranger.new_page().goto(server.origin + "/")
        assert refused.status == 403 and "access token" in refused.text()
    finally:
        stranger.close()


@pytest.mark.parametrize("where", ["text", "field"])
def test_a_huge_cell_is_clamped_and_the_answer_buttons_stay_in_view(page, live, tmp_path, where):
    huge = " ".join(f"word{k}" for k in range(16_000))[:100_000]
    if where == "field":
        huge = "x" * 100_000  # one unbroken line
    path, _ = iris_csv(tmp_path, extra={"note": [huge, huge] + ["short"] * 145})
    # features named: no column is left out, so no notice of dropped columns
    data = load_data(path, id_column="name", features=["sepal_length"],
                     **({"text_column": "note"} if where == "text" else {}))
    server, session = live(data, Scripted(script=[[0, 1], [2, 3]]))
    open_page(page, server)
    cell = f"#pair .item:first-child {'.text' if where == 'text' else 'tr:last-child .clamp'}"
    assert in_view(page, "button.same") and in_view(page, "#ask button.undo")
    assert len(page.text_content(cell)) == 100_000  # clamped, not cut
    assert page.locator("#pair .item:first-child button.more").count() == 1
    page.click("#pair .item:first-child button.more")
    page.wait_for_selector(f"{cell}.open")
    assert page.text_content("#pair .item:first-child button.more") == "show less"
    assert in_view(page, "button.same")
    page.mouse.wheel(0, 5000)  # however far the person scrolls, the answers are at hand
    assert in_view(page, "button.same") and page.locator("#dropped").is_hidden()
    old = position(page)
    page.click("button.different")
    wait_moved(page, old)
    assert shown_rows(page) == [2, 3] and page.locator("#pair button.more").count() == 0
    assert len(session.store.answers()) == 1


def test_more_than_ten_clusters_get_distinct_markers(page, live, tmp_path):
    rng = np.random.RandomState(0)
    pd.DataFrame(rng.rand(30, 2), columns=["a", "b"]).to_csv(tmp_path / "d.csv", index=False)
    server, session = live(load_data(tmp_path / "d.csv"), Scripted(script=[]))  # 30 clusters of one item
    open_page(page, server)
    assert session.state().n_clusters == 30
    colours_drawn = page.evaluate("""() => {
        const canvas = document.getElementById("scatter");
        const px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        const seen = new Set();
        for (let k = 0; k < px.length; k += 4) {
            if (px[k + 3] === 255) seen.add("#" + [px[k], px[k + 1], px[k + 2]].map(
                (v) => v.toString(16).padStart(2, "0")).join(""));
        }
        return PALETTE.filter((colour) => seen.has(colour)).length;
    }""")
    assert colours_drawn > 15  # 20 colours for 30 clusters, where 10 repeated
    markers = page.evaluate("[...Array(80).keys()].map((k) => JSON.stringify(marker(k)))")
    assert len(set(markers)) == 80  # and 4 shapes


def test_columns_left_out_of_the_features_are_named_on_the_page(page, live, iris_data):
    data, _ = iris_data
    data.dropped_columns = {"species": "non-numeric value 'setosa' at line 2",
                            "<b>odd</b>": "non-numeric value '<i>x</i>' at line 9"}
    server, _ = live(data)
    open_page(page, server)
    notice = page.text_content("#dropped")
    assert page.locator("#dropped").is_visible()
    assert "species (non-numeric value 'setosa' at line 2)" in notice and "<b>odd</b>" in notice
    assert page.locator("#dropped b, #dropped i").count() == 0


def test_the_page_says_it_prepares_the_first_question_until_the_session_is_open(page, iris_data, tmp_path):
    from tests.e2e.helpers import gated_opening

    gate = threading.Event()
    opening = gated_opening(iris_data[0], tmp_path / "s.db", gate)
    server = LiveServer(opening, tmp_path / "labels.csv")
    try:
        opening.start()
        page.goto(server.url)
        page.locator("#preparing-title").get_by_text("Preparing the first question").wait_for()
        assert page.locator("#ask").is_hidden() and position(page) is None  # no state yet: nothing to answer
        gate.set()
        page.wait_for_selector("body[data-position]", state="attached")
        assert page.locator("#preparing").is_hidden() and page.locator("#ask").is_visible()
        assert len(shown_rows(page)) == 2 and page.locator("#n-answered").text_content() == "0"
    finally:
        gate.set()
        server.stop()
        opening.wait().close()


def test_the_page_says_why_a_session_did_not_start(page, iris_data, tmp_path):
    from linkwise.session.front._web import SessionOpening

    def refuse():
        raise SessionFileError("The session s.db was made for other data.")

    opening = SessionOpening(refuse, iris_data[0])
    server = LiveServer(opening, tmp_path / "labels.csv")
    try:
        opening.start()
        page.goto(server.url)
        page.locator("#preparing-title").get_by_text("The session did not start").wait_for()
        assert page.locator("#preparing-text").text_content() == ("The session could not start: The session s.db "
                                                                  "was made for other data.")
        assert page.locator("#ask").is_hidden()
    finally:
        server.stop()
