"""The "All items" view of a cluster on the session page, in real headless Chromium at 1280 x 800 (issue 39, point 12):
a table under the data's column names, a line per item, 30 and more on one screen (images: a grid of small ones,
several to a row), and a search's matches marked where they were found."""

import pytest

from tests.e2e.test_cluster_feedback import strips_shown
from tests.e2e.test_cluster_view import members
from tests.e2e.test_page_layout import boxes, inside
from tests.e2e.test_session_browser import browser, page, served_page  # noqa: F401
from tests.products import products_csv

pytestmark = pytest.mark.browser
SCREEN = {"width": 1280, "height": 800}


def open_largest(page, server):  # noqa: F811
    """The member view of the largest cluster, scrolled to its top; the cluster's number."""
    cluster = strips_shown(page, server)[0]
    page.locator(f'.strip[data-cluster="{cluster}"] button.view-all').click()
    page.wait_for_selector('#members[data-page="0"]')
    return cluster


def on_screen(page, selector):  # noqa: F811
    return [box for box in boxes(page, selector) if inside(box, SCREEN["width"], SCREEN["height"])]


def test_a_tables_cluster_is_a_table_of_its_columns_a_screenful_at_a_time(page, tmp_path):  # noqa: F811
    data_path, _ = products_csv(tmp_path)
    page.set_viewport_size(SCREEN)
    with served_page(page, data_path, "--session", tmp_path / "s.db", "--param", "random_state=0") as server:
        cluster = open_largest(page, server)
        view = members(server, cluster, size=50)
        assert view["size"] > 30
        assert page.locator("#members-grid th").all_text_contents() == ["id", "description", "price", "weight",
                                                                       "Move to"]
        lines = page.locator("#members-grid tr.rep")
        assert [int(r) for r in lines.evaluate_all("(rs) => rs.map((r) => r.dataset.row)")] == [
            it["row"] for it in view["items"]]
        assert len(on_screen(page, "#members-grid tr.rep")) >= 30  # not nine: a screenful of lines
        first = view["items"][0]
        assert lines.first.locator("td").all_text_contents()[:4] == [first["id"], first["text"], *[
            value for _, value in first["fields"]]]
        assert lines.first.locator("select.move-to").count() == 1

        # a search: the matches marked, in view even far into a long text
        word = first["text"].split()[-2]
        page.fill("#members-q", word)
        expected = members(server, cluster, size=50, q=word)
        page.wait_for_selector(f'#members-page >> text=· {expected["n_matching"]} matching')
        assert [int(r) for r in lines.evaluate_all("(rs) => rs.map((r) => r.dataset.row)")] == [
            it["row"] for it in expected["items"]]
        marks = page.locator("#members-grid mark")
        assert marks.count() >= len(expected["items"]) and {m.lower() for m in marks.all_text_contents()} == {
            word.lower()}
        # each line shows a match, not cut away by its column's width
        assert all(lines.evaluate_all("""(rows) => rows.map((r) => Array.from(r.querySelectorAll("mark")).some(
          (m) => m.getBoundingClientRect().right <= m.closest("td").getBoundingClientRect().right + 0.5))"""))
        # one column searched: matches marked there only
        page.select_option("#members-column", "id")
        page.fill("#members-q", "SKU-1")
        page.wait_for_selector("#members-page >> text=matching")
        page.wait_for_selector("#members-grid mark")
        assert page.locator("#members-grid mark").count() == page.locator("#members-grid .item-id mark").count()


def test_an_image_clusters_items_are_a_grid_several_to_a_row(page, tmp_path):  # noqa: F811
    from tests.core.test_images import gallery

    gallery(tmp_path / "photos", n=35)
    page.set_viewport_size(SCREEN)
    with served_page(page, tmp_path / "photos", "--session", tmp_path / "s.db", "--method", "cobras",
                     "--param", "random_state=0") as server:
        cluster = open_largest(page, server)
        assert members(server, cluster, size=50)["size"] >= 30
        tiles = on_screen(page, "#members-grid .rep")
        assert len(tiles) >= 30 and page.locator("#members-grid .rep img").count() >= 30
        first_row = [t for t in tiles if round(t["top"]) == round(tiles[0]["top"])]
        assert len(first_row) >= 6
        page.fill("#members-q", "img1")
        page.wait_for_selector("#members-page >> text=matching")
        assert {m.lower() for m in page.locator("#members-grid .rep .item-id mark").all_text_contents()} == {"img1"}
