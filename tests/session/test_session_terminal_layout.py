"""The terminal's pair table and cluster list at many screen sizes: every value wrapped whole under its column's
name when the pair fits the screen, the longest cut to fit when it does not, nothing wider than the screen."""

from io import StringIO

import numpy as np
import pytest
from rich.console import Console

from linkwise.session import HumanSession, load_data
from linkwise.session.front._terminal import _AROUND, _LEAST, _entry, _pair_table


@pytest.fixture(scope="module")
def texts():
    rng = np.random.default_rng(0)
    words = "lantern battery rechargeable dimmable knife blade steel folding garden rake lamp desk".split()
    return [" ".join(rng.choice(words, 700)) for _ in range(2)]


def session_of(folder, texts, length):
    rows = [f"SKU-{k},{text[:length].strip()},{k}.5" for k, text in enumerate(texts)]
    (folder / "shop.csv").write_text("sku,description,price\n" + "\n".join(rows) + "\n")
    return HumanSession(folder / "s.db", load_data(folder / "shop.csv", id_column="sku", text_column="description"))


def column(lines, k):
    """The text of table column ``k`` (0: the names) in the rows of the table body, by row name."""
    rows, name = {}, None
    for line in lines:
        if line.startswith("│"):
            cells = [c.strip() for c in line.split("│")[1:-1]]
            name = cells[0] or name
            rows.setdefault(name, []).append(cells[k])
    return {name: " ".join(parts) for name, parts in rows.items()}


@pytest.mark.parametrize("length", [12, 300, 4000])
@pytest.mark.parametrize("width, height", [(60, 15), (80, 24), (80, 50), (140, 24), (200, 60)])
def test_a_pair_fills_the_screen_whole_or_cut_to_fit(tmp_path, texts, length, width, height):
    session = session_of(tmp_path, texts, length)
    try:
        console = Console(file=StringIO(), width=width, height=height)
        table, cut = _pair_table(console, session, [session.data.item(0), session.data.item(1)])
        console.print(table)
        lines = console.file.getvalue().splitlines()
    finally:
        session.close()
    assert max(map(len, lines)) <= width
    a, b = column(lines, 1), column(lines, 2)
    assert list(a) == ["sku", "description", "price"]  # the file's own column names, the text right after the ids
    assert (a["sku"], b["sku"], a["price"]) == ("SKU-0", "SKU-1", "0.5")
    whole = [" ".join(text[:length].split()) for text in texts]
    if cut:
        assert len(lines) - 4 <= max(height - _AROUND, 3 * _LEAST)  # the body, without the frame's four lines
        for shown, text in zip((a["description"], b["description"]), whole):
            assert shown.endswith("…") and text.startswith(shown[:-1].rstrip()) and len(shown) < len(text)
    else:
        assert (a["description"], b["description"]) == tuple(whole)
    assert cut == (length == 4000 or length == 300 and (width, height) in ((60, 15), (80, 24)))  # 300: 14 lines


@pytest.mark.parametrize("width", [60, 80, 140])
def test_a_cluster_list_entry_wraps_to_the_screen_and_stops_at_two_lines(tmp_path, texts, width):
    session = session_of(tmp_path, texts, 300)
    try:
        console = Console(file=StringIO(), width=width)
        _entry(console, session.data.item(1), "  [2] cluster 2 · 1 item · ")
    finally:
        session.close()
    lines = console.file.getvalue().splitlines()
    assert len(lines) == 2 and max(map(len, lines)) <= width and lines[1].endswith("…")
    assert lines[0].startswith("  [2] cluster 2 · 1 item · SKU-1  ")
    shown = " ".join(" ".join(lines)[:-1].split()[8:])  # the text after the id
    assert " ".join(texts[1][:300].split()).startswith(shown) and len(shown) > width
