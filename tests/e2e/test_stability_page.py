"""The stability line next to the counts, in a real headless Chromium."""

from pathlib import Path

import pytest

from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} ('make test' installs it with apt)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package (dev extra) is not installed")


def test_the_page_shows_the_stability_message(live, iris_data):
    data, y = iris_data
    server, session = live(data)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(server.url)
        page.wait_for_selector("#stability >> text=No answers yet.")
        old = page.get_attribute("body", "data-position")
        i, j = session.state().question.pair
        page.click("button.same" if y[i] == y[j] else "button.different")
        page.wait_for_selector(f'body[data-position]:not([data-position="{old}"])', state="attached")
        assert page.text_content("#stability") == session.state().stability.message != "No answers yet."
        browser.close()
