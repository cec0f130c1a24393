"""The page's keyboard shortcuts and its plain-words header, in real headless Chromium against a real server."""

import sqlite3

import pytest

from linkwise.session.core._feedback import CONFIRM_SIZE
from tests.e2e.test_cluster_feedback import strips_shown
from tests.e2e.test_session_browser import browser, page, position, press, served_page  # noqa: F401
from tests.products import products_csv

pytestmark = pytest.mark.browser
JARGON = ("TF-IDF", "SVD", "PCA", "dimensions", "COBRAS")


def kinds(path):
    with sqlite3.connect(path) as db:
        return [kind for (kind,) in db.execute("SELECT kind FROM answers ORDER BY seq")]


def selected(page):  # noqa: F811
    page.wait_for_selector(".strip.selected", state="attached")
    return int(page.get_attribute(".strip.selected", "data-cluster"))


def test_keys_mark_move_review_and_the_overlay_lists_them(page, tmp_path, iris_file):  # noqa: F811
    data_path, y = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        page.keyboard.press("h")  # the overlay ("?" is "don't know", as in the terminal)
        help_box = page.locator("#keys-help")
        assert help_box.is_visible()
        listed = help_box.locator("kbd").all_text_contents()
        assert {"S", "D", "K", "U", "P", "C", "M", "A", "R", "Y", "[", "]", "?", "H", "Esc"} <= set(listed)
        old = position(page)
        page.keyboard.press("s")  # swallowed while the list is open
        page.keyboard.press("Escape")
        assert not help_box.is_visible() and position(page) == old and page.text_content("#n-answered") == "0"

        press(page, "k" * 8)  # K: don't know, until the method shows several clusters
        order = strips_shown(page, server)
        assert len(order) >= 3 and selected(page) == order[0]  # the first strip is selected
        page.keyboard.press("]")
        page.keyboard.press("]")
        page.keyboard.press("[")
        assert selected(page) == order[1]

        page.keyboard.press("p")  # pure: the selected cluster
        if int(page.get_attribute(".strip.selected", "data-size")) > CONFIRM_SIZE:
            page.wait_for_selector("#named .confirm-mark")
            page.keyboard.press("y")
        page.wait_for_selector(f'.strip[data-cluster="{order[1]}"] .badge.pure')
        assert kinds(tmp_path / "s.db")[-1] == "pure"

        order = strips_shown(page, server)
        page.click(f'.strip[data-cluster="{order[2]}"] h3')  # a click selects a strip
        assert selected(page) == order[2]
        tile = page.locator(".strip.selected .rep").first
        row = tile.get_attribute("data-row")
        tile.hover()
        page.keyboard.press("m")  # the list of the tile under the pointer has the focus
        focused = page.locator("select.move-to:focus")
        assert focused.count() == 1 and focused.evaluate("s => s.closest('.rep').dataset.row") == row
        target = focused.locator("option").nth(1).get_attribute("value")
        focused.select_option(target)
        page.wait_for_selector("#message.done >> text=Moved")
        assert kinds(tmp_path / "s.db")[-1] == "move"

        page.keyboard.press("Escape")
        page.locator("body").click(position={"x": 5, "y": 5})  # the list lets go of the focus
        page.keyboard.press("a")
        page.wait_for_selector("#members:not([hidden])")
        page.wait_for_selector("#members-title:has-text('Cluster ')")  # the panel opens first, its page then loads
        assert page.text_content("#members-title").startswith(f"Cluster {selected(page)} ")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("r")
        assert page.locator("#review-q:focus").count() == 1
        page.keyboard.press("s")  # typed into the search, not an answer
        assert page.input_value("#review-q") == "s" and page.text_content("#n-answered") == "8"


def test_the_header_says_in_plain_words_what_is_clustered_details_on_hover(page, tmp_path):  # noqa: F811
    data_path, _ = products_csv(tmp_path)
    with served_page(page, data_path, "--session", tmp_path / "s.db", "--param", "random_state=0") as server:
        about = page.locator("#about")
        assert about.text_content() == "products.csv · 300 items named by sku · grouped by the words of description"
        details = about.get_attribute("title")
        assert "TF-IDF" in details and "sku: 300 different short texts" in details
        caption = page.locator(".map .caption")
        header = page.text_content("header") + caption.text_content()
        assert not [word for word in JARGON if word in header]
        assert "PCA" in caption.get_attribute("title")
    assert "Detected: ids from 'sku'" in "".join(server.output)
