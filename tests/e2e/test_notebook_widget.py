"""The notebook widget in a real JupyterLab, driven in headless Chromium: answers clicked and keyed in a notebook
land in the session file.

The test starts ``jupyter lab`` on 127.0.0.1 with a token in a temporary folder (tests/e2e/jupyter.py), writes a
notebook that opens a session on iris and displays its widget, runs its cell by keyboard, answers five questions
(buttons and keys), and reads the answers back from the SQLite file. Nothing may reach the network: the browser's
requests to other hosts are refused and recorded, and the server's log must show no attempt.
"""

import json
import re
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import linkwise as lw
from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} ('make test' installs it with apt)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package (dev extra) is not installed")
pytest.importorskip("jupyterlab", reason="jupyterlab (dev extra) is not installed")
pytest.importorskip("anywidget", reason="the notebook extra (anywidget) is not installed")

from tests.e2e.jupyter import NETWORK_TRIED, JupyterLab, notebook, open_notebook  # noqa: E402

CELL = """import linkwise as lw
X, y = lw.datasets.load("iris")
session = lw.session.open_session("iris.db", X, lw.COBRAS(random_state=0))
session.widget(y=y)"""


def test_five_answers_given_in_jupyterlab_are_in_the_session_file(tmp_path):
    X, y = lw.datasets.load("iris")
    (tmp_path / "answer.ipynb").write_text(json.dumps(notebook([CELL])))
    lab = JupyterLab(tmp_path)
    outside = []  # requests the page made to anywhere but the server

    def local_only(route):
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost") or route.request.url.startswith("data:"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.route("**/*", local_only)
                open_notebook(page, lab, "answer.ipynb")
                widget = page.locator(".linkwise-widget")
                clicked, cells = [], page.locator(".jp-Notebook .jp-Cell").count()  # Shift+Enter added one
                for k in range(5):
                    i, j = (int(t) for t in widget.locator(".pair .item-id").all_text_contents())
                    same = bool(y[i] == y[j])
                    clicked.append((min(i, j), max(i, j), same))
                    if k % 2:  # keys, with the widget focused: D must not reach JupyterLab (D D deletes a cell)
                        widget.focus()
                        page.keyboard.press("s" if same else "d")
                    else:
                        widget.locator("button.same" if same else "button.different").click()
                    page.wait_for_selector(f".linkwise-widget[data-answered='{k + 1}']", timeout=30_000)
                assert page.locator(".jp-Notebook .jp-Cell").count() == cells  # the keys deleted no cell
                assert widget.locator(".curve polyline.ari").get_attribute("points").count(",") == 6
                assert widget.locator(".strip").count() >= 2
                assert not widget.locator(".message").count()
                # each strip shows least typical members too; "Pure" on a large cluster first shows its least
                # typical members and is stored only once confirmed
                largest = widget.locator(".strip").first
                assert largest.locator(".rep.doubtful").count() == 3
                largest.locator("button.mark-pure").click()
                widget.locator(".refusal button.confirm-mark").wait_for(timeout=30_000)
                assert widget.locator(".refusal .rep").count() > 3 and "confirm" in widget.locator(".message").inner_text()
                widget.locator(".refusal button.confirm-mark").click()
                page.wait_for_selector(".linkwise-widget .strip .badge.pure", timeout=30_000)
                assert not widget.locator(".refusal").count()
            finally:
                browser.close()
        with sqlite3.connect(f"file:{tmp_path / 'iris.db'}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT i, j, answer, kind FROM answers ORDER BY seq").fetchall()
        questions = [row for row in rows if row[3] == "question"]
        assert [(i, j, bool(a)) for i, j, a, _ in questions] == clicked
        assert [kind for *_, kind in rows[len(questions):]] and {kind for *_, kind in rows[len(questions):]} == {"pure"}
    finally:
        lab.stop()
    log = lab.log()
    assert outside == [] and not NETWORK_TRIED.search(log), log


COUNTED = ['''import linkwise as lw
X, y = lw.datasets.load("iris")
w = lw.session.open_session("iris.db", X, lw.COBRAS(max_queries=20, random_state=0)).widget(y=y)
w''', "w.close()"]

OUTSIDE = """(widget) => {
  const box = widget.getBoundingClientRect();
  return [...widget.querySelectorAll('.strip .rep')].filter((rep) => rep.getBoundingClientRect().right > box.right + 0.5
    || rep.getBoundingClientRect().right > window.innerWidth).length
    + [...widget.querySelectorAll('.reps')].filter((reps) => reps.scrollWidth > reps.clientWidth + 1).length;
}"""


def test_the_widget_counts_as_the_page_keeps_every_card_in_reach_and_says_how_to_resume(tmp_path):
    X, y = lw.datasets.load("iris")
    (tmp_path / "counted.ipynb").write_text(json.dumps(notebook(COUNTED)))
    lab = JupyterLab(tmp_path)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                open_notebook(page, lab, "counted.ipynb")
                widget = page.locator(".linkwise-widget")
                shown = []
                for k in range(3):
                    shown.append((widget.locator(".stats .answered").inner_text(),
                                  widget.locator(".curve text").last.text_content()))
                    if k < 2:
                        i, j = (int(t) for t in widget.locator(".pair .item-id").all_text_contents())
                        widget.locator("button.same" if y[i] == y[j] else "button.different").click()
                        page.wait_for_selector(f".linkwise-widget[data-answered='{k + 1}']", timeout=30_000)
                assert shown == [("0 of 20 answered", "0 answers"), ("1 of 20 answered", "1 answer"),
                                 ("2 of 20 answered", "2 answers")]
                assert widget.locator("button.unknown kbd").inner_text() == "?"
                largest = widget.locator(".strip").first
                assert largest.locator(".rep").count() >= 6  # typical members, then the least typical
                for width in (1280, 700, 480):  # every card of every strip inside the widget and the window
                    page.set_viewport_size({"width": width, "height": 900})
                    page.wait_for_function(f"window.innerWidth === {width}")
                    assert widget.evaluate(OUTSIDE) == 0, width
                page.set_viewport_size({"width": 1280, "height": 900})
                page.locator(".jp-Cell .jp-InputArea-editor").nth(1).click()
                page.keyboard.press("Shift+Enter")  # w.close()
                said = page.locator(".jp-Cell").nth(1).locator(".jp-OutputArea-output")
                said.get_by_text("To resume here:").wait_for(timeout=30_000)
                text = said.inner_text()
            finally:
                browser.close()
    finally:
        lab.stop()
    assert "Saved in " in text and "iris.db: 2 questions answered." in text
    resume = re.search(r"To resume here: (lw\.session\.open_session\('([^']+)'\)\.widget\(\))", text)
    assert resume and (tmp_path / resume.group(2)).resolve() == (tmp_path / "iris.db").resolve()  # notebook's folder
    assert re.search(r"To resume: linkwise cluster \S*iris\.parquet --session \S*iris\.db", text)
    again = lw.session.open_session(tmp_path / "iris.db")  # closed: the file opens elsewhere, both answers in it
    try:
        assert again.state().n_answered == 2
    finally:
        again.close()
