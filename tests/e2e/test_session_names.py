"""Naming a cluster on the session page, in real headless Chromium against a real server and session file."""

import pytest

from tests.e2e.test_cluster_feedback import labels, strips_shown
from tests.e2e.test_session_browser import browser, page, press, served_page  # noqa: F401
from tests.session.test_session_durable import answer

pytestmark = pytest.mark.browser


def test_rename_a_strip_then_answer_and_reload_keeps_the_name(page, tmp_path, iris_file):  # noqa: F811
    data_path, _ = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        press(page, "k" * 4)  # don't know: the clusters stay the method's
        order = strips_shown(page, server)
        strip = page.locator(f'.strip[data-cluster="{order[0]}"]')
        field = strip.locator("input.cluster-name")
        field.fill("Garden")
        field.press("Enter")
        page.wait_for_selector(f'.strip[data-cluster="{order[0]}"] h3:has-text("Garden")')
        assert page.locator(".strip h3", has_text="Garden").count() == 1
        assert f"Cluster {order[0]} Garden" in page.text_content("#message")
        assert (labels(server) == order[0]).sum() == int(strip.get_attribute("data-size"))
        page.reload()
        page.wait_for_selector("body[data-position]", state="attached")
        strips_shown(page, server)
        named = page.locator(f'.strip[data-cluster="{order[0]}"]')
        assert "Garden" in named.locator("h3").text_content()
        assert named.locator("input.cluster-name").input_value() == "Garden"
        # removed: the field emptied
        field = named.locator("input.cluster-name")
        field.fill("")
        field.press("Enter")
        page.wait_for_selector(f'.strip[data-cluster="{order[0]}"] h3:not(:has-text("Garden"))')
        assert "Garden" not in server.client.get("/labels.csv").text


@pytest.mark.parametrize("seed", [0, 1])
def test_a_name_being_typed_survives_an_answer_from_elsewhere(page, tmp_path, iris_file, seed):  # noqa: F811
    data_path, y = iris_file
    with served_page(page, data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", f"random_state={seed}") as server:
        answer(server.client, y, 3)  # another tab answers: the page catches up, then shows strips
        order = strips_shown(page, server)
        field = page.locator(f'.strip[data-cluster="{order[0]}"] input.cluster-name')
        field.click()
        page.keyboard.type("Gar")
        drawn = page.get_attribute("body", "data-clusters")
        answer(server.client, y, 1)  # arrives while the name is half typed: the strips are drawn again
        page.wait_for_selector(f'body:not([data-clusters="{drawn}"])', state="attached")
        page.keyboard.type("den")
        page.keyboard.press("Enter")
        page.wait_for_selector('.strip h3:has-text("Garden")')
        named = page.locator(".strip", has=page.locator('h3:has-text("Garden")'))
        assert named.locator("input.cluster-name").input_value() == "Garden"
        assert "Garden" in server.client.get("/labels.csv").text
