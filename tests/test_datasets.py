import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from linkwise import datasets

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def test_every_shipped_dataset_loads_with_manifest_sizes():
    names = [n for n in datasets.names() if n not in datasets.SERIES]
    assert len(names) == 27 and "bbcsport" not in names and "crabs" not in names
    for name in names:
        meta = datasets.info(name)
        X, y = datasets.load(name)
        assert X.shape == (meta["n"], meta["d"]) and y.shape == (meta["n"],)
        assert np.isfinite(X).all() and set(np.unique(y)) == set(range(meta["k"]))
        assert meta["source"].startswith("github:") and meta["license"]


def test_shipped_arrays_are_those_pandas_reads():
    """The csv-module reader (pandas is not a core dependency) gives pandas' arrays bit for bit."""
    pd = pytest.importorskip("pandas")
    for name in set(datasets.names()) - set(datasets.SERIES):
        X, y = datasets.load(name)
        frame = pd.read_csv(datasets.DATA_DIR / f"{name}.csv.gz")
        expected = frame.drop(columns="label").to_numpy(dtype=np.float64)
        assert X.shape == expected.shape and X.tobytes() == expected.tobytes(), name
        assert np.array_equal(y, frame["label"].to_numpy()) and y.dtype == np.intp and X.dtype == np.float64


def test_digit_subsets_are_distinct():
    sizes = {name: datasets.info(name)["n"] for name in ("optdigits389", "digits389", "pendigits389")}
    assert sizes == {"optdigits389": 1151, "digits389": 537, "pendigits389": 3165}


def test_scaling():
    X, _ = datasets.load("wine", scale="minmax")
    np.testing.assert_allclose(X.min(axis=0), 0)
    np.testing.assert_allclose(X.max(axis=0), 1)
    Z, _ = datasets.load("wine", scale="standard")
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1)
    # the cached raw copy is not altered by scaling or by the caller
    raw, y = datasets.load("wine")
    raw[0, 0] = -1
    assert datasets.load("wine")[0][0, 0] != -1


def test_user_directory_and_environment(tmp_path, monkeypatch):
    src = datasets.DATA_DIR / "iris.csv.gz"
    shutil.copy(src, tmp_path / "mine.csv.gz")
    X, y = datasets.load("mine", data_dir=tmp_path)
    assert X.shape == (147, 4)
    assert datasets.info("mine", data_dir=tmp_path)["source"] is None
    monkeypatch.setenv("LINKWISE_DATA", str(tmp_path))
    assert "mine" in datasets.names()


@pytest.mark.skipif(not (SHARED / "crabs.csv.gz").exists(), reason="shared datasets not beside the repo")
def test_unshipped_datasets_read_from_shared():
    X, y = datasets.load("crabs", data_dir=SHARED)
    assert X.shape == (200, 5)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="Unknown dataset 'nope'.*data_dir"):
        datasets.load("nope")
    with pytest.raises(ValueError, match="'scale' argument of load must be one of"):
        datasets.load("iris", scale="zscore")
    with pytest.raises(ValueError, match="'name'"):
        datasets.load("../iris")
    with gzip.open(tmp_path / "bad.csv.gz", "wt") as f:
        f.write("a,b\n1,2\n")
    with pytest.raises(ValueError, match="no 'label' column"):
        datasets.load("bad", data_dir=tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [  # explicit ids: gzip stamps the time into its bytes, and xdist's workers must collect the same ids
        pytest.param(b"not gzip at all", "cannot be read .*gzip-compressed UTF-8 CSV", id="not-gzip"),
        pytest.param(gzip.compress("a,label\n\xe9,1\n".encode("latin-1")), "cannot be read", id="latin-1"),
        pytest.param(gzip.compress(b"a,label\nx,1\n"), "not a number", id="text-feature"),
        pytest.param(gzip.compress(b"a,label\n1.0,\n"), "not a number", id="missing-label"),
        pytest.param(gzip.compress(b"a,b\n1,2\n"), "no 'label' column", id="no-label-column"),
        pytest.param(gzip.compress(b"a,label\n,1\n"), "not a number", id="missing-feature"),
        pytest.param(gzip.compress(b"a,label\n1,0\n2,1,5\n"), "row 3 has not the 2 fields of its header", id="ragged"),
        pytest.param(gzip.compress(b""), "cannot be read", id="empty"),
    ],
)
def test_unreadable_user_files_are_named(tmp_path, content, message):
    (tmp_path / "bad.csv.gz").write_bytes(content)
    with pytest.raises(ValueError, match=message):
        datasets.info("bad", data_dir=tmp_path)


def test_a_data_dir_that_is_not_a_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="'data_dir' argument names .* not a directory"):
        datasets.names(tmp_path / "nowhere")
