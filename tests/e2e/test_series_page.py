"""A time-series session's page in real headless Chromium: each question shows the two series as charts."""

import re

import pytest

from tests.e2e.helpers import Server
from tests.e2e.test_session_browser import browser, open_page, page, position, wait_moved  # noqa: F401
from tests.session.test_session_series import shapes, wide_csv

pytestmark = pytest.mark.browser


def points(d):
    return len(re.findall(r"[ML][\d.]+,[\d.]+", d))


def test_each_question_shows_the_two_series_over_their_cluster(page, tmp_path):  # noqa: F811
    X, y = shapes(n=30, length=40)
    server = Server(wide_csv(tmp_path, X, y), "--series-columns", "t0:t39", "--id-column", "name",
                    "--session", tmp_path / "s.db")
    try:
        open_page(page, server)
        for _ in range(3):
            charts = page.locator("#pair svg.chart")
            assert charts.count() == 2
            lines = page.locator("#pair svg.chart path.line")
            assert lines.count() == 2 and [points(d) for d in (lines.nth(0).get_attribute("d"),
                                                                lines.nth(1).get_attribute("d"))] == [40, 40]
            shown = [len(item["context"]) for item in server.state()["question"]["items"]]
            assert [charts.nth(k).locator("path.context").count() for k in (0, 1)] == shown and max(shown) <= 20
            assert charts.nth(0).bounding_box()["height"] > 50
            old = position(page)
            page.keyboard.press("d")
            wait_moved(page, old)
    finally:
        server.stop()
