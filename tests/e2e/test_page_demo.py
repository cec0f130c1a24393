"""A demo's page in real headless Chromium (issue 39, point 11): it says first what a group is, and shows each item's
own label under the pair only when the person asks (a hint), for that pair only."""

import numpy as np
import pytest

import linkwise as lw
from linkwise.session import HumanSession
from tests.e2e.helpers import SPECIES, LiveServer
from tests.e2e.test_session_browser import browser, open_page, page, position, press  # noqa: F401

pytestmark = pytest.mark.browser

INTRO = "The demo: a group is a species of iris. You decide."


def pair_of(page):  # noqa: F811
    i, j = position(page).split(".", 1)[1].split("-")
    return int(i), int(j)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_demo_says_what_a_group_is_and_hints_only_when_asked(iris_data, tmp_path, page, seed):  # noqa: F811
    data, y = iris_data
    hints = [f"iris {s}" for s in SPECIES[y]]
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed))
    server = LiveServer(session, tmp_path / "labels.csv", intro=INTRO, hints=hints)
    try:
        open_page(page, server)
        assert page.is_visible("#intro") and page.text_content("#intro") == INTRO
        assert page.is_visible("#hint") and page.text_content("#hint-text") == ""  # off until asked
        for _ in range(2):
            i, j = pair_of(page)
            page.click("#hint")
            assert page.text_content("#hint-text") == f"A: {hints[i]} · B: {hints[j]}"
            press(page, "s" if y[i] == y[j] else "d")  # the next pair: its hint is not shown
            assert page.text_content("#hint-text") == "" and page.get_attribute("#hint", "aria-pressed") == "false"
    finally:
        server.stop()
        session.close()


def test_a_session_that_is_no_demo_shows_neither(iris_data, live, page):  # noqa: F811
    data, _ = iris_data
    server, _ = live(data)
    open_page(page, server)
    assert page.is_hidden("#intro") and page.is_hidden("#hint-line")
    assert np.all([page.is_visible(f'[data-answer="{a}"]') for a in ("same", "different")])
