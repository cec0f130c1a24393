"""The Answers list on the session page, in real headless Chromium (issue 39, point 8): each answer shows its two
items as the question did (text, image, series), and the "Who" column only in a team's session."""

import pytest

from tests.e2e.test_cluster_view import members
from tests.e2e.test_session_browser import browser, open_page, page, position, press, served_page  # noqa: F401
from tests.e2e.test_session_review import reviewed
from tests.products import products_csv

pytestmark = pytest.mark.browser


def data_args(kind, folder):
    """``linkwise cluster`` arguments of a small data set of ``kind``, and the selector of what a tile must show."""
    if kind == "text":
        return [products_csv(folder, n=60)[0]], ".text"
    if kind == "images":
        from tests.core.test_images import gallery

        gallery(folder / "photos", n=4)
        return [folder / "photos", "--method", "cobras"], "img"
    from tests.session.test_session_series import shapes, wide_csv

    X, y = shapes(n=20, length=40)
    return [wide_csv(folder, X, y), "--series-columns", "t0:t39", "--id-column", "name"], "svg.chart"


@pytest.mark.parametrize("kind", ["text", "images", "series"])
def test_each_answer_shows_its_two_items_as_the_question_did(page, tmp_path, kind):  # noqa: F811
    args, shows = data_args(kind, tmp_path)
    with served_page(page, *args, "--session", tmp_path / "s.db", "--param", "random_state=0") as server:
        questions = []
        for key in "???":  # "don't know": no answer a mark below could contradict
            questions.append(server.state()["question"]["items"])
            press(page, key)
        assert reviewed(page, server) == [3, 2, 1]
        for seq, items in zip((1, 2, 3), questions):
            items = sorted(items, key=lambda it: it["row"])  # the file keeps a pair in row order
            tiles = page.locator(f'#review-list tr[data-seq="{seq}"] .rep')
            assert tiles.locator(".item-id").all_text_contents() == [it["id"] for it in items]
            assert tiles.locator(shows).count() == 2, kind
            if kind == "text":
                assert tiles.locator(".text").all_text_contents() == [it["text"] for it in items]
            if kind == "images":
                assert tiles.locator("img").evaluate_all("(is) => is.map((i) => i.getAttribute('src'))") == [
                    f"/item/{it['row']}/image" for it in items]
        # one person: no "Who" column
        assert page.locator("#review th.who").is_hidden()
        assert all(cell.is_hidden() for cell in page.locator("#review td.who").all())
        # a mark: its first member, and how many more
        strip = server.client.get("/api/clusters").json()["strips"][-1]
        page.locator(f'.strip[data-cluster="{strip["cluster"]}"] button.mark-pure').click()
        page.wait_for_selector('#named[data-confirm="yes"]:not([hidden]), #review-list tr[data-seq="4"]')
        if page.locator('#named[data-confirm="yes"]:not([hidden])').count():
            page.click("#named button.confirm-mark")
        page.wait_for_selector('#review-list tr[data-seq="4"]')
        listed = members(server, strip["cluster"], size=200)["items"]
        first = min(listed, key=lambda it: it["row"])
        mark = page.locator('#review-list tr[data-seq="4"]')
        assert mark.locator(".rep .item-id").all_text_contents() == [first["id"]]
        assert mark.locator(".more-members").text_content() == f"and {len(listed) - 1} more"


def test_a_teams_answers_name_who_gave_them(page, tmp_path, iris_file):  # noqa: F811
    from tests.e2e.helpers import Server

    data_path, _ = iris_file
    server = Server(data_path, "--id-column", "name", "--session", tmp_path / "s.db", "--method", "cobras",
                    "--annotators", "open")
    try:
        page.goto(server.url)
        page.wait_for_selector("#join:not([hidden])")
        page.fill("#join-name", "dana")
        page.click("#join button")
        page.wait_for_selector("#ask:not([hidden])")
        press(page, "s")
        page.wait_for_selector('#review-list tr[data-seq="1"]')
        assert page.locator("#review th.who").is_visible()
        assert page.locator('#review-list tr[data-seq="1"] td.who').text_content() == "dana"
    finally:
        server.stop()
