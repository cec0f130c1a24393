"""A new session's id and text columns detected from the values (linkwise.session.data._detect), on the command line
and in a real session file; feature options change freely until the first answer."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, SessionFileError, load_data
from linkwise.session.core._controller import read_meta
from linkwise.session.data._detect import describe, detect_columns, detect_options
from tests.products import products_csv


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_products_sku_is_the_id_and_description_the_text_whatever_the_column_order(tmp_path, seed):
    path, _ = products_csv(tmp_path, seed=seed)
    table = pd.read_csv(path)
    order = np.random.default_rng(seed).permutation(table.columns)
    found = detect_columns(table[order])
    assert (found.id_column, found.text_column) == ("sku", "description")
    assert set(found.reasons) == set(table.columns)  # every column says why
    assert found.reasons["sku"] == "300 different short texts"
    assert found.reasons["price"].startswith("numbers, left out beside the text")
    assert found.line.startswith("Detected: ids from 'sku'") and "\n" not in found.line


@pytest.mark.parametrize("seed", [0, 1])
def test_numbers_repeats_and_categories_are_never_ids_nor_text(seed):
    rng = np.random.default_rng(seed)
    n = 120
    table = pd.DataFrame({
        "row": np.arange(n),  # unique, but numbers
        "code": [f"{k:05d}" for k in rng.permutation(n)],  # unique digits read as text: still numbers
        "colour": rng.choice(["red", "green", "blue"], n),  # repeated short text: a category
        "name": [f"item-{k}" for k in range(n - 1)] + ["item-0"],  # one repeat: no id
        "x": rng.normal(size=n),
    })
    found = detect_columns(table)
    assert found.id_column is None and found.text_column is None
    assert found.reasons["colour"] == "3 different values"
    assert found.reasons["code"] == found.reasons["row"] == "numbers"
    assert found.line == ""  # nothing detected: nothing to say


def test_the_wordiest_of_two_text_columns_is_used_and_the_other_named():
    table = pd.DataFrame({"title": [f"a short title number {k}" for k in range(10)],
                          "body": [f"a much longer body of text that goes on for a while, part {k}" for k in range(10)]})
    found = detect_columns(table)
    assert found.text_column == "body"
    assert "name it with --text-column to use it instead" in found.reasons["title"]
    assert detect_columns(table, find_text=False).text_column is None


@pytest.mark.slow
def test_cluster_with_no_options_detects_says_so_and_stores_it(tmp_path):
    path, category = products_csv(tmp_path)
    first = run("cluster", path, "--ui", "terminal", "--param", "max_queries=20", input="q\n")
    assert first.exit_code == 0, first.output
    detected = [line for line in first.output.splitlines() if line.startswith("Detected:")]
    assert len(detected) == 1 and "'sku'" in detected[0] and "'description'" in detected[0]
    meta = read_meta(tmp_path / "products.linkwise.db")
    assert meta["data_options"]["id_column"] == "sku" and meta["data_options"]["text_column"] == "description"
    assert "SKU-" in first.output  # the question shows the ids, not row numbers
    # no answer yet: options given choose the columns anew (not merged with the stored ones)
    numbers = run("cluster", path, "--ui", "terminal", "--features", "price,weight", input="q\n")
    assert numbers.exit_code == 0, numbers.output
    options = read_meta(tmp_path / "products.linkwise.db")["data_options"]
    assert (options["id_column"], options["text_column"], options["features"]) == ("sku", None, ["price", "weight"])
    answered = run("cluster", path, "--ui", "terminal", input="s\nq\n")
    assert answered.exit_code == 0 and "(0 questions answered so far)" in answered.output, answered.output
    kept = run("cluster", path, "--ui", "terminal", "--text-column", "description", input="q\n")
    assert kept.exit_code == 1 and "other feature options" in kept.output
    # an explicit option overrides: no text detected beside --features
    again = run("cluster", path, "--ui", "terminal", "--session", tmp_path / "b.db", "--features", "price,weight",
                input="q\n")
    assert again.exit_code == 0, again.output
    options = read_meta(tmp_path / "b.db")["data_options"]
    assert options["text_column"] is None and options["features"] == ["price", "weight"]
    assert options["id_column"] == "sku"


@pytest.mark.slow
def test_feature_options_change_until_the_first_answer_then_are_kept(tmp_path):
    path, category = products_csv(tmp_path)
    file = tmp_path / "s.db"
    session = HumanSession(file, load_data(path), lw.COBRAS(random_state=0))
    session.close()
    # no answer yet: other options replace the stored ones (the file is real SQLite, read back)
    session = HumanSession(file, load_data(path, id_column="sku", text_column="description"))
    assert session.state().n_answered == 0
    state = session.state()
    i, j = state.question.pair
    session.answer(state.position, bool(category[i] == category[j]))
    session.close()
    assert read_meta(file)["data_options"]["text_column"] == "description"
    with pytest.raises(SessionFileError, match="other feature options"):
        HumanSession(file, load_data(path, id_column="sku"))
    kept = HumanSession(file, load_data(path, id_column="sku", text_column="description"), read_only=True)
    assert len(kept.store.answers()) == 1  # the answer is kept
    kept.close()


def test_the_header_says_in_plain_words_what_is_clustered_and_keeps_details_for_hover(tmp_path):
    path, _ = products_csv(tmp_path)
    about = describe(load_data(path, id_column="sku", text_column="description"), "COBRAS")
    assert about["text"] == "products.csv · 300 items named by sku · grouped by the words of description"
    assert "TF-IDF" not in about["text"] and "TF-IDF" in about["details"] and "COBRAS" in about["details"]
    assert "sku: 300 different short texts" in about["details"]


@pytest.mark.parametrize("given, id_column, text_column, line", [
    ({}, "sku", "description", "not used: price (numbers, left out beside the text"),
    ({"text_column": "description"}, "sku", None, "Detected: ids from 'sku' (300 different short texts). Options"),
    ({"features": ["price"]}, "sku", None, "Detected: ids from 'sku' (300 different short texts). Options"),
    ({"id_column": "sku"}, None, "description", "Detected: clustering on the text of 'description'"),
    ({"id_column": "sku", "text_column": "description"}, None, None, ""),
])
def test_only_what_no_option_names_is_detected_and_said(tmp_path, given, id_column, text_column, line):
    path, _ = products_csv(tmp_path)
    found = detect_options(path, None, **{"id_column": None, "text_column": None, "features": None, **given})
    assert (found.id_column, found.text_column) == (id_column, text_column)
    assert line in found.line and (found.line == "") == (line == "")
    assert "'sku'" not in found.line or id_column == "sku"  # a column an option names is not said to be detected


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_detected_columns_hold_the_grouping_the_numbers_miss(tmp_path, seed):
    from sklearn.cluster import KMeans

    path, category = products_csv(tmp_path, seed=seed)
    found = detect_options(path, None, id_column=None, text_column=None, features=None)
    detected = load_data(path, id_column=found.id_column, text_column=found.text_column)
    numbers = load_data(path, id_column=found.id_column)  # what the first run clustered on
    ari = [lw.metrics.ari(category, KMeans(4, n_init=10, random_state=0).fit_predict(d.X)) for d in (detected, numbers)]
    assert ari[0] > 0.6 > 0.2 > ari[1]
    assert detected.item(0)["id"].startswith("SKU-") and detected.item(0)["text"].endswith(".")
