"""The question changing under the person, and the page after Finish, in real headless Chromium (issue 39, point 6):
a move or a mark that changes the pending question is said next to it, with why; after Finish the page shows what is
saved and the commands that go on from there, and nothing left on it talks to the stopped server."""

import re

import pytest

from tests.e2e.helpers import Server
from tests.e2e.test_cluster_feedback import strips_shown
from tests.e2e.test_session_browser import browser, open_page, page, position, press, served_page, wait_moved  # noqa: F401

pytestmark = pytest.mark.browser


def asked(page):  # noqa: F811
    return page.locator("#pair .item-id").all_text_contents()


def act(page, action, strip):  # noqa: F811
    """Move the first item of ``strip`` to the next cluster in its list, or mark ``strip`` pure; what the notice
    then says the action was."""
    cluster = int(strip.get_attribute("data-cluster"))
    if action == "move":
        tile = strip.locator(".rep").first
        name = tile.locator(".item-id").text_content()
        target = tile.locator("select.move-to option").nth(1)
        what = f"your move of {name} to {target.text_content()}"
        tile.locator("select.move-to").select_option(target.get_attribute("value"))
    else:
        what = f"your mark (Cluster {cluster} pure)"
        old = position(page)
        strip.locator("button.mark-pure").click()
        # taken at once, or a large cluster's confirmation first
        page.wait_for_selector(f'#named[data-confirm="yes"]:not([hidden]), body:not([data-position="{old}"])',
                               state="attached")
        if page.locator('#named[data-confirm="yes"]:not([hidden])').count():
            page.click("#named button.confirm-mark")
    return what


def notice_says(page, number, before, what, why):  # noqa: F811
    assert page.is_visible("#changed")
    assert page.text_content("#changed") == f"{number} changed (it was {before[0]} and {before[1]}): {what} {why}."


def test_a_move_that_changes_the_question_says_so_and_why(page, tmp_path, iris_file):  # noqa: F811
    data_path, _ = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        press(page, "k" * 8)
        for k in range(6):  # moves until one changes the question (those that do not say nothing)
            order = strips_shown(page, server)
            before, number = asked(page), page.text_content("#prompt").split(":")[0]
            old = position(page)
            what = act(page, "move", page.locator(f'.strip[data-cluster="{order[k % len(order)]}"]'))
            wait_moved(page, old)
            assert page.text_content("#prompt").startswith(number + ":")  # no question answered: the same number
            if asked(page) != before:
                break
            assert page.is_hidden("#changed")
        else:
            pytest.fail("no move changed the question")
        moved = what.split(" ")[3]
        why = (f"says where {moved}, one of the two, belongs" if moved in before else "changed what the method knows")
        notice_says(page, number, before, what, why + ", so it asks another pair")
        press(page, "k")  # another question: the notice goes
        assert page.is_hidden("#changed")


def test_a_mark_that_settles_the_question_says_so(page, tmp_path, iris_file):  # noqa: F811
    data_path, _ = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        press(page, "k" * 4)  # COBRAS (seed 0) now asks about two items of one cluster
        order = strips_shown(page, server)
        (cluster,) = {item["cluster"] for item in server.state()["question"]["items"]}
        other = next(c for c in order if c != cluster)
        before, number = asked(page), page.text_content("#prompt").split(":")[0]
        old = position(page)
        act(page, "mark", page.locator(f'.strip[data-cluster="{other}"]'))  # elsewhere: the question stays
        wait_moved(page, old)
        assert asked(page) == before and page.is_hidden("#changed")
        strips_shown(page, server)
        old = position(page)
        what = act(page, "mark", page.locator(f'.strip[data-cluster="{cluster}"]'))
        wait_moved(page, old)
        assert asked(page) != before and page.text_content("#prompt").startswith(number + ":")
        notice_says(page, number, before, what, "says that they belong together: that pair is settled")


def test_after_finish_the_page_shows_the_summary_and_asks_the_server_nothing(page, tmp_path, iris_file):  # noqa: F811
    data_path, _ = iris_file
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--out", tmp_path / "l.csv",
                    "--method", "cobras")
    try:
        open_page(page, server)
        press(page, "sd?")
        strips_shown(page, server)
        page.click("#finish")
        page.wait_for_selector("#finished:not([hidden])")
        assert server.process.wait(30) == 0
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        for key in "sd?ukpcyr[]am":  # every shortcut: none asks the stopped server
            page.keyboard.press(key)
        for control in page.locator("button, input, select").all():
            assert control.is_disabled() or control.is_hidden()
        assert page.locator("details.downloads").is_hidden()
        page.wait_for_timeout(3500)  # more than two of the page's polling periods
        assert requests == [] and page.is_hidden("#message")
        assert "does not answer" not in page.text_content("body")
    finally:
        server.stop()
    lines = page.text_content("#finished-lines").splitlines()
    printed = "".join(server.output)
    assert len(lines) == 3 and all(line in printed for line in lines)  # what the command line prints, alike
    assert lines[0] == f"Saved in {tmp_path / 's.db'}: 3 questions answered."
    assert lines[1].startswith("To resume: linkwise cluster ") and lines[2].startswith("To export them: linkwise export ")
    assert re.fullmatch(r"Saved the clustering of \d+ items \(\d+ clusters\) to .*l\.csv\. The linkwise server has "
                        r"stopped, and this page with it; your answers are kept in the session file\.",
                        page.text_content("#finished-text"))
