"""The session page at a desktop's, a tablet's and a phone's width, in real headless Chromium (issue 39, points 4
and 9): the header keeps its height when the stability line fills, the Download menu opens inside the viewport and
Escape closes it, the budget says what it is and stays in view with Raise, every strip's last card is in full view,
and "don't know" has the terminal's key."""

import re
import sqlite3

import pytest

from linkwise.session.front._terminal import _KEYS
from tests.e2e.helpers import truth_answer
from tests.e2e.test_cluster_feedback import strips_shown
from tests.e2e.test_session_browser import browser, page, position, press, served_page, wait_moved  # noqa: F401
from tests.products import products_csv

pytestmark = pytest.mark.browser
WIDTHS = (1280, 760, 420)
HEIGHT = 800
# every visible element of ``selector``: its box, and how wide its content is against its own width
BOXES = """(selector) => Array.from(document.querySelectorAll(selector)).filter((e) => e.checkVisibility())
  .map((e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, scroll: e.scrollWidth, client: e.clientWidth,
            what: e.tagName + "#" + e.id + "." + e.className}; })"""


def boxes(page, selector):  # noqa: F811
    return page.evaluate(BOXES, selector)


def inside(box, width, height=None):
    """Whether ``box`` lies within the viewport's width (and height); half a pixel of rounding allowed."""
    fits = box["left"] >= -0.5 and box["right"] <= width + 0.5
    return fits and (height is None or (box["top"] >= -0.5 and box["bottom"] <= height + 0.5))


def header_height(page):  # noqa: F811
    (header,) = boxes(page, "body > header")
    return header["bottom"] - header["top"]


def check_downloads(page, width):  # noqa: F811
    """The Download menu opens inside the viewport, each link in it too; Escape closes it, its button focused."""
    page.click("details.downloads > summary")
    page.wait_for_selector("details.downloads .menu", state="visible")
    for box in boxes(page, "details.downloads .menu, details.downloads .menu a"):
        assert inside(box, width, HEIGHT), (width, box)
    assert page.locator("details.downloads .menu a").count() == 9
    page.keyboard.press("Escape")
    assert page.locator("details.downloads .menu").is_hidden()
    assert page.evaluate("() => document.activeElement.matches('details.downloads > summary')")


def check_in_view(page, width):  # noqa: F811
    """No sideways scroll: the header's parts, the budget's field and button, and every strip's cards in view."""
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    parts = boxes(page, "body > header > *, .tools > *, .stats > *, #budget > *, #budget-value")
    assert len(parts) >= 10 and all(inside(box, width) for box in parts), (width, parts)
    for strip in page.locator(".strip").all():
        (frame,) = strip.evaluate_all("(s) => s.map((e) => e.getBoundingClientRect().toJSON())")
        cards = strip.locator(".rep").evaluate_all("(cs) => cs.map((c) => c.getBoundingClientRect().toJSON())")
        assert cards and all(frame["left"] <= c["left"] and c["right"] <= frame["right"] for c in cards), width
        assert all(inside(c, width) for c in cards)
        (reps,) = boxes(page, f'.strip[data-cluster="{strip.get_attribute("data-cluster")}"] .reps')
        assert reps["scroll"] <= reps["client"]  # the last card is not hidden off to the side


def test_header_menu_budget_and_strips_stay_in_view_at_every_width(page, tmp_path):  # noqa: F811
    data_path, y = products_csv(tmp_path)
    with served_page(page, data_path, "--session", tmp_path / "s.db", "--param", "random_state=0") as server:
        assert page.text_content("#stability") == "No answers yet."
        before = {}
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            before[width] = header_height(page)
            check_downloads(page, width)
        for _ in range(6):
            state = server.state()
            press(page, truth_answer(y, state["question"]["pair"])[0])
        strips_shown(page, server)
        stability, outlook = page.text_content("#stability"), page.text_content("#outlook")
        assert len(stability) > 60 and outlook  # a long line now: it must not push the question down
        assert page.get_attribute("#status", "title") == f"{stability} {outlook}"  # all of it, however it is cut
        # the budget reads as a budget, beside the count it limits
        assert page.text_content("#progress") == "6 of 100 answered"
        assert " ".join(page.text_content("#budget").split()) == "· budget 100 · raise to Raise"
        assert page.input_value("#budget-value") == "125"
        assert page.get_attribute("#budget-value", "aria-label").startswith("Raise the budget to")
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            assert header_height(page) == before[width], width
            (status,) = boxes(page, "#status")
            assert status["client"] > 0 and inside(status, width)
            check_in_view(page, width)
            check_downloads(page, width)
        (status,) = boxes(page, "#status")
        assert status["scroll"] > status["client"]  # at 420 px the line is cut (its title holds it all)


def test_dont_know_is_the_terminals_key_and_k_too(page, tmp_path, iris_file):  # noqa: F811
    (key,) = [k for k, answer in _KEYS.items() if answer is None]
    data_path, _ = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0"):
        for pressed in (key, "K"):
            a, b = page.locator("#pair .item-id").all_text_contents()
            press(page, pressed)
            assert page.text_content("#message.done") == f"Answered: {a} and {b} don't know"
        with sqlite3.connect(tmp_path / "s.db") as db:
            assert [answer for (answer,) in db.execute("SELECT answer FROM answers ORDER BY seq")] == [None, None]
        db.close()
        assert page.text_content("button.unknown kbd") == key
        page.keyboard.press("h")  # the shortcuts: don't know listed with both keys, as the terminal says it
        row = page.locator("#keys-help tr", has_text="Don't know")
        assert page.locator("#keys-help").is_visible() and row.locator("kbd").all_text_contents() == [key, "K"]
        old = position(page)
        page.keyboard.press(key)  # swallowed while the list is open
        page.keyboard.press("Escape")
        assert page.locator("#keys-help").is_hidden() and position(page) == old
        assert re.fullmatch(r"2( of \d+)? answered", page.text_content("#progress"))
