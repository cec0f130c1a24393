"""The review list on the session page, in real headless Chromium against a real server and session file: an
answer changed and another withdrawn, the page following without a reload."""

import sqlite3

import pytest

from tests.e2e.test_session_browser import browser, page, position, press, served_page  # noqa: F401

pytestmark = pytest.mark.browser


def reviewed(page, server):  # noqa: F811
    """Wait until the answer list shows the server's current state; the answers' seqs shown, in order."""
    page.wait_for_selector(f'#review[data-revision="{server.state()["revision"]}"]', state="attached")
    return [int(row.get_attribute("data-seq")) for row in page.locator("#review-list tr").all()]


def stored(path):
    with sqlite3.connect(path) as db:
        live = dict(db.execute("SELECT seq, answer FROM answers"))
        gone = db.execute("SELECT seq, reason FROM retracted ORDER BY id").fetchall()
    db.close()
    return live, gone


def test_change_and_withdraw_an_answer_in_the_list(page, tmp_path, iris_file):  # noqa: F811
    data_path, y = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        press(page, "sdss")
        seqs = reviewed(page, server)
        assert seqs == [4, 3, 2, 1]
        oldest = page.locator('#review-list tr[data-seq="1"]')
        assert oldest.locator("td.answer").text_content() == "same"
        assert oldest.locator("button.change-same").is_disabled()
        old = position(page)
        oldest.locator("button.change-different").click()
        page.wait_for_selector('#review-list tr[data-seq="1"] td.answer:text-is("different")')
        assert page.text_content("#message").startswith("Changed: ")  # no reload: the message is still there
        live, gone = stored(tmp_path / "s.db")
        assert live[1] == 0 and gone == [(1, "changed")]
        assert reviewed(page, server) == [4, 3, 2, 1]
        # withdrawn: gone from the list, kept in the file
        page.locator('#review-list tr[data-seq="4"] button.withdraw').click()
        page.wait_for_selector('#review-list tr[data-seq="4"]', state="detached")
        assert reviewed(page, server) == [3, 2, 1] and page.text_content("#message").startswith("Withdrawn: ")
        live, gone = stored(tmp_path / "s.db")
        assert 4 not in live and gone[-1] == (4, "withdrawn")
        assert position(page) != old  # the clustering and the question follow the file
        # searched by an item's id
        first_id = page.locator('#review-list tr[data-seq="2"] .item-id').first.text_content()
        page.fill("#review-q", first_id)
        page.wait_for_selector("#review-page:has-text('matching')")
        shown = [row.locator(".item-id").all_text_contents() for row in page.locator("#review-list tr").all()]
        assert shown and all(first_id in ids for ids in shown)
