"""Marking a cluster pure on the session page, in real headless Chromium at 1280 and 420 px (issue 39, point 3): a
refusal shows every item in the mark's way at once, in a grid, each with its cluster, why, and its move list, so
that one round of moves clears it; the confirmation's least typical items wrap in a grid above the "Yes" button; a
mark undone is not confirmed twice."""

import sqlite3

import numpy as np
import pytest

import linkwise as lw
from linkwise.session import HumanSession
from linkwise.session.core._feedback import CONFIRM_SEEN, CONFIRM_SIZE
from tests.e2e.helpers import LiveServer
from tests.e2e.test_page_layout import boxes, inside
from tests.e2e.test_session_browser import browser, open_page, page, position, wait_moved  # noqa: F401

pytestmark = pytest.mark.browser
WIDTHS = (1280, 420)


def kinds(path):
    with sqlite3.connect(path) as db:
        found = [kind for (kind,) in db.execute("SELECT kind FROM answers ORDER BY seq")]
    db.close()
    return found


def named_rows(page):  # noqa: F811
    return [int(r) for r in page.locator("#named .rep").evaluate_all("(ts) => ts.map((t) => t.dataset.row)")]


def strips_now(page, server):  # noqa: F811
    """Wait until the strips show the session's state; the cluster numbers shown."""
    revision = server.client().get("/api/state").json()["revision"]
    page.wait_for_selector(f'body[data-clusters="{revision}"]', state="attached")
    return [int(s) for s in page.locator(".strip").evaluate_all("(ss) => ss.map((s) => s.dataset.cluster)")]


def check_grid(page, below=None):  # noqa: F811
    """At each width the named items wrap in a grid inside the viewport, several to a row at 1280 px, the box
    scrolling nowhere sideways; ``below``: a selector that lies under every item (the buttons)."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        tiles = boxes(page, "#named .rep")
        (box,) = boxes(page, "#named")
        assert tiles and all(inside(t, width) for t in tiles) and box["scroll"] <= box["client"], width
        rows = sorted({round(t["top"]) for t in tiles})
        if width == 1280:
            assert len(tiles) < 4 or len(rows) <= -(-len(tiles) // 4)  # at least four to a row
        if below is not None:
            (under,) = boxes(page, below)
            assert under["top"] >= max(t["bottom"] for t in tiles), width  # not beside the items: under them all
    page.set_viewport_size({"width": 1280, "height": 800})


@pytest.fixture
def served(tmp_path, iris_data):
    """``served(known)``: a COBRAS session (seed 0) on iris knowing the pairs ``known``, after 8 "don't know"
    (three clusters), served live; ``(server, session)``."""
    started = []

    def start(known=None):
        session = HumanSession(tmp_path / "s.db", iris_data[0], lw.COBRAS(random_state=0), known=known)
        for _ in range(8):
            session.answer(session.position, None)
        started.append((LiveServer(session, tmp_path / "labels.csv"), session))
        return started[-1]

    yield start
    for server, session in started:
        server.stop()
        session.close()


@pytest.mark.parametrize(("seed", "n_pairs"), [(0, 4), (1, 7)])
def test_a_refused_mark_shows_every_item_in_its_way_and_one_round_of_moves_clears_it(page, tmp_path, served,  # noqa: F811
                                                                                   iris_data, seed, n_pairs):
    ids = iris_data[0].ids.to_numpy()
    setosa = np.flatnonzero(iris_data[1] == 0)  # one cluster after 8 "don't know": pairs in it are in the way
    drawn = np.random.default_rng(seed).choice(setosa, (n_pairs, 2), replace=False)
    known = [(int(a), int(b), False) for a, b in drawn]
    server, session = served(known)
    open_page(page, server)
    clusters = strips_now(page, server)
    (cluster,) = set(session.numbers()[drawn.ravel()].tolist())
    page.locator(f'.strip[data-cluster="{cluster}"] button.mark-pure').click()
    page.wait_for_selector('#named[data-confirm="no"]:not([hidden])')
    # every item at once, each naming its cluster and the item it is kept apart from, with its move list
    assert sorted(named_rows(page)) == sorted(drawn.ravel().tolist())
    assert page.text_content("#message").startswith(
        f"Cluster {cluster} is not one group by your answers: {2 * n_pairs} of its items belong to different groups")
    partner = {a: b for a, b, _ in known} | {b: a for a, b, _ in known}
    others = [str(c) for c in clusters if c != cluster]
    for row in named_rows(page):
        tile = page.locator(f'#named .rep[data-row="{row}"]')
        assert tile.locator(".note").text_content() == f"Cluster {cluster} · apart from {ids[partner[row]]}"
        assert tile.locator("select.move-to option").evaluate_all("(os) => os.map((o) => o.value)")[1:] == others
    check_grid(page)
    assert kinds(tmp_path / "s.db")[-1] == "question"  # nothing stored

    # one of each pair moved out from the grid: the others stay in view, then the mark is taken
    for k, (_, b, _) in enumerate(known):
        old = position(page)
        page.select_option(f'#named .rep[data-row="{b}"] select.move-to', others[k % len(others)])
        wait_moved(page, old)
        assert b not in named_rows(page) and len(named_rows(page)) == 2 * n_pairs - k - 1
    assert kinds(tmp_path / "s.db")[-2 * n_pairs:] == ["move"] * (2 * n_pairs)
    strips_now(page, server)
    page.locator(f'.strip[data-cluster="{cluster}"] button.mark-pure').click()
    page.wait_for_selector('#named[data-confirm="yes"]:not([hidden])')  # large: its least typical, then "Yes"
    page.click("#named button.confirm-mark")
    page.wait_for_selector(f'.strip[data-cluster="{cluster}"] .badge.pure')
    assert kinds(tmp_path / "s.db")[-1] == "pure"


def test_the_confirmation_wraps_above_yes_and_an_undone_mark_is_not_confirmed_twice(page, tmp_path,  # noqa: F811
                                                                                   served):
    server, session = served()
    open_page(page, server)
    order = strips_now(page, server)
    large = next(c for c in order if int(page.get_attribute(f'.strip[data-cluster="{c}"]', "data-size"))
                 > CONFIRM_SIZE)
    page.locator(f'.strip[data-cluster="{large}"] button.mark-pure').click()
    page.wait_for_selector('#named[data-confirm="yes"]:not([hidden])')
    assert len(named_rows(page)) == CONFIRM_SEEN and all(
        t == f"Cluster {large}" for t in page.locator("#named .rep .note").all_text_contents())
    check_grid(page, below="#named .actions")
    page.click("#named button.confirm-mark")
    page.wait_for_selector(f'.strip[data-cluster="{large}"] .badge.pure')
    old = position(page)
    page.keyboard.press("u")
    wait_moved(page, old)
    strips_now(page, server)
    assert page.locator(".strip .badge").count() == 0 and "pure" not in kinds(tmp_path / "s.db")
    # the same members: marked at once, not asked again
    page.locator(f'.strip[data-cluster="{large}"] button.mark-pure').click()
    page.wait_for_selector(f'.strip[data-cluster="{large}"] .badge.pure')
    assert page.is_hidden("#named") and kinds(tmp_path / "s.db")[-1] == "pure"
    assert page.text_content("#message.done") == f"Marked: Cluster {large} pure"
