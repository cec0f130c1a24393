"""Cluster feedback on the session page in real headless Chromium against a real server and session file."""

import io
import sqlite3

import pandas as pd
import pytest

from linkwise.session.core._feedback import CONFIRM_SIZE
from tests.e2e.test_session_browser import browser, page, position, press, served_page, wait_moved  # noqa: F401

pytestmark = pytest.mark.browser


def strips_shown(page, server):  # noqa: F811
    """Wait until the strips show the server's current state; the cluster numbers shown, in order."""
    page.wait_for_selector(f'body[data-clusters="{server.state()["revision"]}"]', state="attached")
    return [int(strip.get_attribute("data-cluster")) for strip in page.locator(".strip").all()]


def labels(server):
    return pd.read_csv(io.StringIO(server.client.get("/labels.csv").text))["cluster"].to_numpy()


def kinds(path):
    with sqlite3.connect(path) as db:
        return [kind for (kind,) in db.execute("SELECT kind FROM answers ORDER BY seq")]


def test_mark_a_cluster_pure_move_items_by_list_and_drag_then_reload(page, tmp_path, iris_file):  # noqa: F811
    data_path, y = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        # COBRAS shows its super-instances; "don't know" to each: no answer can contradict the feedback below, whichever clusters the method shows
        # (a mark or move the answers contradict is refused or opens a contradiction: tests/session/test_session_feedback.py)
        press(page, "k" * 8)
        order = strips_shown(page, server)
        assert len(order) >= 3 and page.locator(".strip .rep").count() >= 3

        first = page.locator(f'.strip[data-cluster="{order[0]}"]')
        first.locator("button.mark-pure").click()
        if int(first.get_attribute("data-size")) > CONFIRM_SIZE:
            page.click("#named button.confirm-mark")  # a large cluster: confirmed once its least typical are shown
        order = strips_shown(page, server)
        assert page.locator(".strip .badge.pure").count() == 1
        assert kinds(tmp_path / "s.db")[-1] == "pure" and page.text_content("#n-answered") == "8"
        page.wait_for_selector("#n-statements >> text='; 1 mark'")  # counted beside the questions, as everywhere

        # keyboard: a key typed in an item's list chooses there and answers nothing; an arrow picks a cluster
        second = page.locator(".strip").nth(1)
        row = int(second.locator(".rep").first.get_attribute("data-row"))
        target = int(second.locator(".rep").first.locator("option").nth(1).get_attribute("value"))
        partner = int(page.locator(f'.strip[data-cluster="{target}"] .rep').first.get_attribute("data-row"))
        second.locator(".rep select").first.focus()
        old = position(page)
        page.keyboard.press("s")
        page.keyboard.press("ArrowDown")
        wait_moved(page, old)
        assert page.text_content("#n-answered") == "8" and kinds(tmp_path / "s.db")[-2:] == ["move", "move"]
        page.wait_for_selector("#n-statements >> text='; 1 move, 1 mark'")  # a move is one, not its two relations
        shown = labels(server)
        assert shown[row] == shown[partner]

        order = strips_shown(page, server)
        assert page.locator(".strip").count() >= 2
        source, goal = page.locator(".strip").last, page.locator(".strip").first
        dragged = int(source.locator(".rep").first.get_attribute("data-row"))
        anchor = int(goal.locator(".rep").first.get_attribute("data-row"))
        old = position(page)
        source.locator(".rep").first.drag_to(goal)
        wait_moved(page, old)
        shown = labels(server)
        assert shown[dragged] == shown[anchor] and kinds(tmp_path / "s.db")[-4:] == ["move"] * 4

        strips_shown(page, server)
        before, badges = page.inner_text("#strips"), page.locator(".strip .badge").count()
        page.reload()
        strips_shown(page, server)
        assert page.inner_text("#strips") == before and page.locator(".strip .badge").count() == badges
        assert (labels(server) == shown).all()
        page.set_viewport_size({"width": 400, "height": 800})  # a phone: the items scroll within their strip
        box = page.locator(".strip").first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 400


@pytest.mark.parametrize("kind", ["series", "images"])
def test_strips_show_each_items_series_or_image(page, tmp_path, kind):  # noqa: F811
    if kind == "series":
        from tests.session.test_session_series import shapes, wide_csv

        X, y = shapes(n=20, length=40)
        args = [wide_csv(tmp_path, X, y), "--series-columns", "t0:t39", "--id-column", "name"]
        shown = ".strip .rep svg.chart path.line"
    else:
        from tests.core.test_images import gallery

        gallery(tmp_path / "photos", n=4)
        args, shown = [tmp_path / "photos", "--method", "cobras"], ".strip .rep img"
    with served_page(page, *args, "--session", tmp_path / "s.db", "--param", "random_state=0") as server:
        strips_shown(page, server)
        reps = page.locator(".strip .rep")
        assert reps.count() >= 4 and page.locator(shown).count() == reps.count()
        if kind == "images":
            first = page.locator(shown).first
            assert first.get_attribute("src").startswith("/item/") and first.bounding_box()["height"] > 20
