"""A cluster's every member, its least typical ones, the confirmation before "pure", the items a refused mark names,
and a page that follows every action: in real headless Chromium against a real server and session file."""

import pytest

from linkwise.session.core._feedback import CONFIRM_SEEN, CONFIRM_SIZE
from tests.e2e.test_cluster_feedback import kinds, labels, strips_shown
from tests.e2e.test_session_browser import browser, page, position, press, served_page, wait_moved  # noqa: F401

pytestmark = pytest.mark.browser
PAGE = 50  # members a page of the member view shows (app.js's MEMBERS_PAGE)


def start(page, tmp_path, iris_file):  # noqa: F811
    """The page of a COBRAS session (seed 0) on iris, open in ``page`` (a context manager: the server stops after)."""
    data_path, _ = iris_file
    return served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                       "--param", "random_state=0")


def rows(page, selector):  # noqa: F811
    return [int(r) for r in page.locator(selector).evaluate_all("(tiles) => tiles.map((t) => t.dataset.row)")]


def members(server, cluster, **params):
    reply = server.client.get(f"/api/cluster/{cluster}/members", params=params)
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_a_clusters_members_page_search_and_least_typical_first(page, tmp_path, iris_file):  # noqa: F811
    with start(page, tmp_path, iris_file) as server:
        for _ in range(8):
            press(page, "k")
        order = strips_shown(page, server)
        strips = {s["cluster"]: s for s in server.client.get("/api/clusters").json()["strips"]}
        for cluster in order:  # each strip: its typical members, then its least typical ones
            strip = page.locator(f'.strip[data-cluster="{cluster}"]')
            assert rows(page, f'.strip[data-cluster="{cluster}"] .rep:not(.doubtful)') == [
                it["row"] for it in strips[cluster]["items"]]
            assert rows(page, f'.strip[data-cluster="{cluster}"] .rep.doubtful') == [
                it["row"] for it in strips[cluster]["doubtful"]]
            assert strip.locator(".rep.doubtful").count() == min(3, max(strips[cluster]["size"] - 3, 0))
        largest = order[0]
        size = strips[largest]["size"]
        assert size > PAGE  # more than one page

        page.locator(f'.strip[data-cluster="{largest}"] button.view-all').click()
        page.wait_for_selector('#members[data-page="0"]')
        assert rows(page, "#members-grid .rep") == [it["row"] for it in members(server, largest, size=PAGE)["items"]]
        assert page.text_content("#members-title").startswith(f"Cluster {largest} · {size} items")
        page.click("#members-next")
        page.wait_for_selector('#members[data-page="1"]')
        assert rows(page, "#members-grid .rep") == [it["row"] for it in members(server, largest, page=1,
                                                                                  size=PAGE)["items"]]
        assert page.is_disabled("#members-prev") is False

        # search one column: the page's matches are the server's
        page.select_option("#members-column", "species")
        page.fill("#members-q", "VERSI")
        expected = members(server, largest, size=PAGE, q="VERSI", column="species")
        page.wait_for_selector(f'#members-page >> text=· {expected["n_matching"]} matching')
        assert rows(page, "#members-grid .rep") == [it["row"] for it in expected["items"]]
        assert all("versicolor" in t for t in page.locator("#members-grid tr.rep").all_text_contents())
        # the match marked, in the column searched only: one per member
        assert page.locator("#members-grid mark").all_text_contents() == ["versi"] * len(expected["items"])

        # least typical first, one choice away
        page.fill("#members-q", "")
        page.select_option("#members-sort", "atypical")
        page.wait_for_selector("#members-page >> text=least typical first")
        page.wait_for_selector(f'#members-page >> text=· {size} members')
        assert rows(page, "#members-grid .rep") == [it["row"] for it in members(server, largest, size=PAGE,
                                                                                  sort="atypical")["items"]]
        page.locator("#members").screenshot(path=tmp_path / "members.png")  # renders (the docs' one: screenshots.py)


def test_pure_on_a_large_cluster_asks_first_and_undo_shows_the_unmarked_clustering(page, tmp_path,  # noqa: F811
                                                                                  iris_file):
    with start(page, tmp_path, iris_file) as server:
        for _ in range(8):
            pair = page.locator("#pair .item-id").all_text_contents()
            press(page, "k")
            assert page.text_content("#message.done") == f"Answered: {pair[0]} and {pair[1]} don't know"
        order = strips_shown(page, server)
        before = page.inner_text("#strips")
        large = next(c for c in order if int(page.get_attribute(f'.strip[data-cluster="{c}"]', "data-size"))
                     > CONFIRM_SIZE)
        page.locator(f'.strip[data-cluster="{large}"] button.mark-pure').click()
        page.wait_for_selector('#named[data-confirm="yes"]:not([hidden])')
        shown = rows(page, "#named .rep")
        assert len(shown) == CONFIRM_SEEN and "pure" not in kinds(tmp_path / "s.db")  # nothing stored yet
        assert shown == [it["row"] for it in members(server, large, size=CONFIRM_SEEN, sort="atypical")["items"]]
        assert "least typical members" in page.text_content("#named")
        page.click("#named button.confirm-mark")
        page.wait_for_selector(".strip .badge.pure")
        strips_shown(page, server)
        assert kinds(tmp_path / "s.db")[-1] == "pure" and page.is_hidden("#named")
        assert page.text_content("#message.done") == f"Marked: Cluster {large} pure"
        size = int(page.get_attribute(f'.strip[data-cluster="{large}"]', "data-size"))

        # undo: the page shows the clustering before the mark, without a reload
        page.keyboard.press("u")
        page.wait_for_selector(f"#message.done >> text=Undone: {size} items marked pure")
        strips_shown(page, server)
        assert page.locator(".strip .badge").count() == 0 and "pure" not in kinds(tmp_path / "s.db")
        assert page.inner_text("#strips") == before
        page.reload()
        strips_shown(page, server)
        assert page.inner_text("#strips") == before


def test_a_refused_mark_shows_its_two_items_and_moving_one_works(page, tmp_path, iris_file):  # noqa: F811
    with start(page, tmp_path, iris_file) as server:
        press(page, "k")
        pair = [int(t.removeprefix("flower-")) for t in page.locator("#pair .item-id").all_text_contents()]
        press(page, "d")  # COBRAS (seed 0) keeps this pair in one cluster for now
        strips_shown(page, server)
        together = int(labels(server)[pair[0]])
        assert labels(server)[pair[1]] == together
        page.locator(f'.strip[data-cluster="{together}"] button.mark-pure').click()
        page.wait_for_selector('#named[data-confirm="no"]:not([hidden])')
        assert sorted(rows(page, "#named .rep")) == sorted(pair) and page.locator("#named .confirm-mark").count() == 0
        assert "not one group by your answers" in page.text_content("#message")
        assert kinds(tmp_path / "s.db") == ["question", "question"]

        # each named item has a move list; moving one puts it in the chosen cluster
        moved = rows(page, "#named .rep")[0]
        choice = page.locator(f'#named .rep[data-row="{moved}"] select.move-to option').nth(1)
        target, name = int(choice.get_attribute("value")), choice.text_content()
        partner = int(page.locator(f'.strip[data-cluster="{target}"] .rep').first.get_attribute("data-row"))
        old = position(page)
        page.select_option(f'#named .rep[data-row="{moved}"] select.move-to', str(target))
        wait_moved(page, old)
        assert kinds(tmp_path / "s.db")[-2:] == ["move", "move"]
        # the other item stays in view (a mark's way may hold several), the moved one is gone
        assert rows(page, "#named .rep") == [r for r in pair if r != moved] and page.is_visible("#named")
        assert page.text_content("#message.done") == (f"Moved: flower-{moved} to {name} (marking the cluster again "
                                                       "says which items are still in the way)")
        shown = labels(server)
        assert shown[moved] == shown[partner] != shown[pair[1] if moved == pair[0] else pair[0]]


def test_the_member_view_follows_a_move_made_in_it(page, tmp_path, iris_file):  # noqa: F811
    with start(page, tmp_path, iris_file) as server:
        for _ in range(8):
            press(page, "k")
        order = strips_shown(page, server)
        cluster = order[-1]
        page.locator(f'.strip[data-cluster="{cluster}"] button.view-all').click()
        page.wait_for_selector('#members[data-page="0"]')
        size = int(page.get_attribute(f'.strip[data-cluster="{cluster}"]', "data-size"))
        moved = rows(page, "#members-grid .rep")[-1]
        target = int(page.locator(f'#members-grid .rep[data-row="{moved}"] select.move-to option').nth(1)
                     .get_attribute("value"))
        old = position(page)
        page.select_option(f'#members-grid .rep[data-row="{moved}"] select.move-to', str(target))
        wait_moved(page, old)
        revision = server.state()["revision"]
        page.wait_for_selector(f'#members[data-revision="{revision}"]', state="attached")
        now = int(labels(server)[[r for r in rows(page, "#members-grid .rep")][0]])
        assert moved not in rows(page, "#members-grid .rep")
        assert page.text_content("#members-title").startswith(f"Cluster {now} · {size - 1} items")
