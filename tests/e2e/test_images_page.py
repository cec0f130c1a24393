"""Image sessions in a real headless Chromium: a folder of images and the digits demo show their images."""

from pathlib import Path

import pytest

from tests.core.test_images import gallery
from tests.e2e.helpers import CHROMIUM, CHROMIUM_ARGS, Server

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} ('make test' installs it with apt)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package (dev extra) is not installed")


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser.new_page(viewport={"width": 1200, "height": 800})
        browser.close()


def shown_images(page, server):
    """Open the session's page; the (naturalWidth, class) of the question's two images once both loaded."""
    page.goto(server.url)
    page.wait_for_selector("body[data-position]", state="attached")
    images = page.locator("#pair img")
    images.first.wait_for()
    page.wait_for_function("() => [...document.querySelectorAll('#pair img')].every(img => img.complete)")
    return images.evaluate_all("imgs => imgs.map(img => [img.naturalWidth, img.className])")


def test_a_folder_of_images_is_answered_in_the_page(page, tmp_path):
    gallery(tmp_path / "photos", n=4)
    server = Server(tmp_path / "photos", "--method", "cobras", "--param", "random_state=0")
    try:
        assert shown_images(page, server) == [[32, "pixels"], [32, "pixels"]]  # the PNGs themselves, loaded
        ids = page.locator("#pair .item-id").all_text_contents()
        assert all(name.startswith("img") and name.endswith(".png") for name in ids)
        old = page.get_attribute("body", "data-position")
        page.click("button.same")
        page.wait_for_selector(f'body:not([data-position="{old}"])', state="attached")
        assert server.state()["n_answered"] == 1
    finally:
        server.stop()
    from linkwise.session.core._controller import read_meta

    assert read_meta(tmp_path / "photos.linkwise.db")["data_path"] == str(tmp_path / "photos")


def test_the_digits_demo_shows_8x8_images(page, tmp_path):
    server = Server("--demo", "digits", "--method", "cobras", "--param", "random_state=0", cwd=tmp_path)
    try:
        assert shown_images(page, server) == [[8, "pixels"], [8, "pixels"]]
        assert "1797 items" in page.text_content("#about")
    finally:
        server.stop()
    assert (tmp_path / "linkwise-digits.linkwise.db").is_file()
