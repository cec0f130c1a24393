"""The bad-input catalogue: hostile and careless inputs, each refused with one clear line, nothing changed.

One row per input: ``(id, build, expected)``. ``build(folder)`` prepares the
input inside ``folder`` (a copy of a template holding ``iris.csv``, a live
session ``s.db`` made from it, and ``other.csv``) and returns the ``linkwise``
arguments; ``expected`` is a regular expression found in the one-line error
(case-insensitive; ``a|b`` where two wordings are both right).
Every row must exit non-zero through click (no traceback), print exactly one
``Error:`` line holding the fragment, and leave every file in ``folder``
byte-for-byte as it was, with no file added or removed (an imported module
leaving a marker file counts as a change). Add rows to ``CASES``.
"""

import gzip
import hashlib
import pickle
import re
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise._validation import InvalidParameterError, minmax
from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from linkwise.session.core._store import APPLICATION_ID
from tests.e2e.helpers import BAD_REQUESTS, PNG, answer_from, iris_csv

EVIL = "linkwise_catalogue_evil"  # a module whose import leaves a marker file: importing it is the failure


# -- building inputs -----------------------------------------------------------
def write(folder, name, content):
    path = Path(folder) / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def sql(path, *statements):
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def foreign_db(folder, name="precious.sqlite"):
    """Another program's database, in WAL mode as many are."""
    return sql(Path(folder) / name, "PRAGMA journal_mode=WAL", "CREATE TABLE notes (body TEXT)",
               "INSERT INTO notes VALUES ('keep me')")


def set_meta(folder, key, text):
    """Overwrite one meta entry of the session with raw text (``None``: delete it)."""
    path = Path(folder) / "s.db"
    if text is None:
        return sql(path, f"DELETE FROM meta WHERE key = '{key}'")
    return sql(path, f"UPDATE meta SET value = '{text}' WHERE key = '{key}'")


def corrupt_answers(folder):
    """Overwrite the page of the session's answers table with garbage."""
    path = Path(folder) / "s.db"
    db = sqlite3.connect(path)
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'answers'").fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * size)
        f.write(b"\xa5" * size)
    return path


def iris_frame(folder):
    return pd.read_csv(Path(folder) / "iris.csv")


def session_args(folder, *extra):
    return ["cluster", Path(folder) / "iris.csv", "--session", Path(folder) / "s.db", "--ui", "terminal", *extra]


def new_args(folder, data, *extra):
    """A new session on ``data`` (a file name in ``folder`` or a path)."""
    return ["cluster", Path(folder) / data, "--session", Path(folder) / "new.db", "--ui", "terminal", *extra]


def csv_rows(folder, name, text):
    return new_args(folder, write(folder, name, text))


def parquet(folder, columns):
    """A Parquet data file ``d.parquet`` of ``columns`` (name -> cells)."""
    path = Path(folder) / "d.parquet"
    pd.DataFrame(columns).to_parquet(path)
    return path


# -- the catalogue -----------------------------------------------------------------
CASES = [
    # data files
    ("data-latin1", lambda f: new_args(f, write(f, "d.csv", "name,x\ncaf\xe9,1\nb,2\n".encode("latin-1"))),
     "encoding"),
    ("data-image-as-csv", lambda f: new_args(f, write(f, "d.csv", PNG * 20)), "binary|not utf-8"),
    ("data-gzip-named-csv", lambda f: new_args(f, write(f, "d.csv", gzip.compress(b"x,y\n1,2\n" * 50))),
     "binary|not utf-8"),
    ("data-parquet-not-parquet", lambda f: new_args(f, write(f, "d.parquet", "x,y\n1,2\n")), "parquet"),
    ("data-empty-file", lambda f: new_args(f, write(f, "d.csv", b"")), "is empty|no columns"),
    ("data-header-only", lambda f: csv_rows(f, "d.csv", "x,y\n"), "at least 2"),
    ("data-one-row", lambda f: csv_rows(f, "d.csv", "x,y\n1,2\n"), "at least 2"),
    ("data-ragged-rows", lambda f: csv_rows(f, "d.csv", "x,y\n1,2\n3,4,5,6\n"), r"line 3\b"),
    ("data-unknown-suffix", lambda f: new_args(f, write(f, "d.xlsx", "x,y\n1,2\n")), r"must be a csv \(\.csv"),
    ("data-no-numeric-column", lambda f: csv_rows(f, "d.csv", "a,b\nx,y\nz,w\n"), "no numeric feature"),
    ("data-missing-value", lambda f: csv_rows(f, "d.csv", "x,y\n1,2\n,4\n5,6\n"), "missing or infinite"),
    ("data-duplicate-ids", lambda f: new_args(f, "iris.csv", "--id-column", "species"), "not unique"),
    ("data-is-a-folder", lambda f: ["cluster", f], "holds no image files"),
    ("data-blank-id", lambda f: new_args(f, write(f, "d.csv", "name,x\na,1\n ,2\nc,3\n"), "--id-column", "name"),
     r"id column 'name' of .*d\.csv is empty at line 3"),
    ("data-ids-repeated-as-written", lambda f: new_args(f, write(f, "d.csv", "name,x\n007,1\n7,2\n007,3\n"),
                                                         "--id-column", "name"),
     r"'007' appears twice \(line 2 and line 4\)"),
    ("data-lines-longer-than-header", lambda f: csv_rows(f, "d.csv", "x,y\n1,2,3\n4,5,6\n"),
     "more fields on its lines than its header has names"),
    ("data-rows-all-the-same", lambda f: csv_rows(f, "d.csv", "x;y;note\n1,5;2;a\n1,5;2;b\n1,5;2;c\n"),
     r"all 3 rows .* are the same in what is clustered \(the columns x, y; read as semicolon-separated with "
     r"decimal commas\).* --features"),
    ("data-parquet-lists-of-several-lengths", lambda f: new_args(f, parquet(f, {"emb": [[1.0], [2.0, 3.0], [4.0]]})),
     "emb: it holds lists and its lists hold 1 to 2 values"),
    ("features-parquet-list-of-text",
     lambda f: new_args(f, parquet(f, {"x": [1, 2, 3], "tags": [["a"], ["b"], ["c"]]}), "--features", "x,tags"),
     "'tags' is not numeric: it holds lists and its lists hold other things than numbers"),
    ("data-missing", lambda f: ["cluster", Path(f) / "nope.csv"], "does not exist"),
    # an integer beyond 64 bits (pandas keeps it as a Python int; to_numeric overflowed on it): the column is text
    ("data-integer-of-400-digits", lambda f: csv_rows(f, "d.csv", f"name,x\na,1\nb,{'9' * 400}\nc,4\n"),
     r"no numeric feature columns; x: 1 of 3 cells are integers too large for 64 bits, so the column is read as "
     r"text \(first: '9{39}…' at line 3\)"),
    ("features-integer-of-400-digits",
     lambda f: new_args(f, write(f, "d.csv", f"x,y\n1,2\n-{'9' * 400},3\n4,5\n"), "--features", "x,y"),
     r"feature column 'x' is not numeric: 1 of 3 cells are integers too large for 64 bits.*at line 3"),
    # command-line arguments of cluster
    ("param-unknown", lambda f: new_args(f, "iris.csv", "--param", "bogus=1"), "has no parameter 'bogus'"),
    ("param-out-of-range", lambda f: new_args(f, "iris.csv", "--param", "max_queries=-1"), "max_queries"),
    ("param-not-name-value", lambda f: new_args(f, "iris.csv", "--param", "max_queries"), "not NAME=VALUE"),
    ("param-unstorable", lambda f: new_args(f, "iris.csv", "--param", "random_state=1.5"), "random_state"),
    ("method-unknown-name", lambda f: new_args(f, "iris.csv", "--method", "kmeans"), "neither a known name"),
    ("method-not-active", lambda f: new_args(f, "iris.csv", "--method", "linkwise.cluster:PCKMeans"),
     "not a subclass of ActiveEstimator"),
    ("method-not-importable", lambda f: new_args(f, "iris.csv", "--method", "no_such_module_xyz:X"),
     "cannot be imported"),
    ("features-unknown-column", lambda f: new_args(f, "iris.csv", "--features", "nope"), "'nope' is not a column"),
    ("features-text-column", lambda f: new_args(f, "iris.csv", "--features", "species"), "not numeric"),
    ("id-column-unknown", lambda f: new_args(f, "iris.csv", "--id-column", "nope"), "'nope' is not a column"),
    ("encoding-unknown", lambda f: new_args(f, "iris.csv", "--encoding", "klingon"), "not a known text encoding"),
    ("out-is-the-data", lambda f: new_args(f, "iris.csv", "--out", Path(f) / "iris.csv"), "is the data file"),
    ("out-is-the-data-by-another-name",
     lambda f: new_args(f, "iris.csv", "--out", Path(f) / ".." / Path(f).name / "iris.csv"), "is the data file"),
    ("out-is-the-session", lambda f: session_args(f, "--out", Path(f) / "s.db"), "is the session file"),
    ("out-in-missing-folder", lambda f: new_args(f, "iris.csv", "--out", Path(f) / "nodir" / "x.csv"),
     "does not exist"),
    ("session-is-the-data", lambda f: ["cluster", Path(f) / "iris.csv", "--session", Path(f) / "iris.csv"],
     "is the data file"),
    ("port-out-of-range", lambda f: new_args(f, "iris.csv", "--port", "70000"), "70000 is not in the range"),
    ("ui-unknown", lambda f: ["cluster", Path(f) / "iris.csv", "--ui", "gui"], "'gui' is not one of"),
    ("image-root-missing", lambda f: new_args(f, "iris.csv", "--image-root", Path(f) / "nodir"), "does not exist"),
    ("verb-unknown", lambda f: ["frobnicate"], "No such command"),
    # datasets
    ("datasets-dir-missing", lambda f: ["datasets", "--data-dir", Path(f) / "nodir"], "does not exist"),
    ("datasets-no-label-column", lambda f: ["datasets", "--data-dir", write(f, "x.csv.gz", gzip.compress(
        b"a,b\n1,2\n3,4\n")).parent], "no 'label' column"),
    ("datasets-not-gzip", lambda f: ["datasets", "--data-dir", write(f, "x.csv.gz", "a,label\n1,0\n").parent],
     "not a gzipped file"),
    # session files given to cluster
    ("session-foreign-sqlite-bad-param",
     lambda f: new_args(f, "iris.csv", "--session", foreign_db(f), "--param", "max_queries=-1"), "did not make"),
    ("session-foreign-sqlite", lambda f: new_args(f, "iris.csv", "--session", foreign_db(f)), "did not make"),
    ("session-empty-file", lambda f: new_args(f, "iris.csv", "--session", write(f, "e.db", b"")), "empty file"),
    ("session-text-file", lambda f: new_args(f, "iris.csv", "--session", write(f, "t.db", "hello")),
     "not an SQLite database"),
    ("session-meta-not-json", lambda f: set_meta(f, "params", "{oops") and session_args(f), "not JSON"),
    ("session-meta-key-missing", lambda f: set_meta(f, "data_fingerprint", None) and session_args(f),
     "no 'data_fingerprint'"),
    ("session-meta-wrong-type", lambda f: set_meta(f, "params", "[1, 2]") and session_args(f), "not a dict"),
    ("session-data-option-wrong-type",
     lambda f: set_meta(f, "data_options", '{"id_column": 5}') and session_args(f), "data option 'id_column'"),
    ("session-format-from-the-future", lambda f: set_meta(f, "format", "99") and session_args(f), "format 99"),
    ("session-corrupt-page", lambda f: corrupt_answers(f) and session_args(f), "malformed"),
    ("session-method-outside-linkwise",
     lambda f: set_meta(f, "method", f'"{EVIL}:Thing"') and session_args(f), "not one of linkwise's"),
    ("session-method-outside-linkwise-with-params",
     lambda f: set_meta(f, "method", f'"{EVIL}:Thing"') and session_args(f, "--param", "max_queries=20"),
     "not one of linkwise's"),
    ("session-nested-estimator-outside-linkwise",
     lambda f: set_meta(f, "params", f'{{"max_queries": {{"__estimator__": "{EVIL}:Thing", "params": {{}}}}}}')
     and session_args(f), "imports only estimators of linkwise and sklearn"),
    ("session-nested-estimator-via-top-level-linkwise-spec",
     lambda f: set_meta(f, "method", '"linkwise:ActiveClustering"') and set_meta(
         f, "params", f'{{"clusterer": {{"__estimator__": "{EVIL}:Thing", "params": {{}}}}}}') and session_args(f),
     "imports only estimators of linkwise and sklearn"),
    ("session-stored-param-unknown",
     lambda f: set_meta(f, "params", '{"bogus": 1}') and session_args(f), "has no parameter 'bogus'"),
    ("session-for-other-data", lambda f: ["cluster", Path(f) / "other.csv", "--session", Path(f) / "s.db",
                                          "--ui", "terminal"], "made for other data"),
    ("session-other-method-params", lambda f: session_args(f, "--param", "max_queries=5"), "max_queries=20"),
    # session files given to export
    ("export-empty-file", lambda f: ["export", write(f, "e.db", b"")], "empty file"),
    ("export-text-file", lambda f: ["export", write(f, "t.db", "hello")], "not an SQLite database"),
    ("export-foreign-sqlite", lambda f: ["export", foreign_db(f)], "did not make"),
    ("export-no-session-yet",
     lambda f: ["export", sql(Path(f) / "n.db", f"PRAGMA application_id = {APPLICATION_ID}",
                              "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")], "no session yet"),
    ("export-meta-not-json", lambda f: ["export", set_meta(f, "data_options", "{oops")], "not JSON"),
    ("export-meta-key-missing", lambda f: ["export", set_meta(f, "data_path", None)], "no 'data_path'"),
    ("export-corrupt-page", lambda f: ["export", corrupt_answers(f)], "malformed"),
    ("export-method-outside-linkwise", lambda f: ["export", set_meta(f, "method", f'"{EVIL}:Thing"')],
     "not one of linkwise's"),
    ("annotators-named-all", lambda f: team_args(f, "alice,all"), r"not 'open' or 'all'.*got 'all'"),
    ("annotators-name-a-dot", lambda f: team_args(f, ".,bob"), "start with a letter or digit"),
    # files of known answers given to cluster
    ("labels-blank-id", lambda f: new_args(f, "iris.csv", "--id-column", "name", "--labels",
                                           write(f, "l.csv", "id,cluster\nflower-0,a\n ,a\n")), "line 3: no id"),
    ("labels-id-not-as-written",  # ids that are numbers: matched as written ('1.0' is not '1')
     lambda f: new_args(f, write(f, "d.csv", "name,x\n1,1\n2,5\n3,9\n"), "--id-column", "name", "--labels",
                        write(f, "l.csv", "id,cluster\n2,a\n1.0,a\n")),
     "line 3: id '1.0' is not an id of the data"),
    ("constraints-id-not-as-written",
     lambda f: new_args(f, write(f, "d.csv", "name,x\n1,1\n2,5\n3,9\n"), "--id-column", "name", "--constraints",
                        write(f, "k.csv", "id_a,id_b,answer\n2,3,same\n1.0,2,same\n")),
     "line 3: id_a '1.0' is not an id of the data"),
    ("export-out-missing-folder", lambda f: ["export", Path(f) / "s.db", "-o", "/nodir/x.csv"], "does not exist"),
    ("export-out-is-the-session", lambda f: ["export", Path(f) / "s.db", "-o", Path(f) / "s.db"],
     "is the session file"),
    ("export-answers-is-the-data", lambda f: ["export", Path(f) / "s.db", "--data", Path(f) / "iris.csv",
                                              "--answers", Path(f) / "iris.csv"], "is the data file"),
    ("export-data-moved-to-other-data", lambda f: ["export", Path(f) / "s.db", "--data", Path(f) / "other.csv"],
     "made for other data"),
    # bench and demo: never mix, resume what is not there, or replace someone's results
    ("bench-resume-nothing", lambda f: bench_args(f, "--resume"), "nothing to resume"),
    ("bench-resume-damaged-run-json", lambda f: write(f, "run.json", "{oops") and bench_args(f, "--resume"),
     "damaged"),
    ("bench-folds-beyond-a-class", lambda f: bench_args(f, "--folds", "1000"), "largest class of 'iris'"),
    ("bench-data-dir-missing", lambda f: bench_args(f, "--data-dir", Path(f) / "nodir"), "does not exist"),
    ("bench-method-unknown", lambda f: ["bench", "--methods", "nope", "--out", Path(f) / "o"], "unknown method"),
    ("demo-over-a-benchmark", lambda f: write(f, "results.csv", "method\n") and ["demo", "--benchmark", "--out", f],
     "did not write"),
]


def team_args(folder, annotators):
    """A team session in the browser on rows that are all the same: should the names pass, the session still stops
    (on those rows) instead of serving the page until the test run times out."""
    data = write(folder, "same.csv", "x,y\n1,2\n1,2\n")
    return new_args(folder, data, "--annotators", annotators, "--ui", "web", "--no-browser")


def bench_args(folder, *extra):
    """A small bench run writing into ``folder`` itself (so any file it wrote would show)."""
    return ["bench", "--datasets", "iris", "--methods", "kmeans", "--budgets", "0", "--folds", "2", "--out", folder,
            *extra]


# -- running them ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """iris.csv, a session s.db of COBRAS on it with 3 answers, other.csv (iris with one value changed)."""
    folder = tmp_path_factory.mktemp("template")
    path, y = iris_csv(folder)
    session = HumanSession(folder / "s.db", load_data(path, id_column="name"), lw.COBRAS(max_queries=20,
                                                                                         random_state=0))
    answer_from(session, y, 3)
    session.close()
    other = pd.read_csv(path)
    other.loc[0, "petal_width"] = 9.0
    other.to_csv(folder / "other.csv", index=False)
    return folder


def snapshot(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


@pytest.mark.parametrize("build, expected", [pytest.param(b, e, id=i) for i, b, e in CASES])
def test_bad_input_gets_one_line_and_changes_nothing(template, tmp_path, monkeypatch, build, expected):
    folder = tmp_path / "f"
    shutil.copytree(template, folder)
    (folder / f"{EVIL}.py").write_text(
        "from pathlib import Path\n(Path(__file__).parent / 'IMPORTED').write_text('linkwise ran me')\n"
        "class Thing:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    args = [str(a) for a in build(folder)]
    before = snapshot(folder)
    result = CliRunner().invoke(main, args, input="q\n")
    assert isinstance(result.exception, SystemExit) and result.exit_code != 0, (result.output, result.exception)
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and re.search(expected, errors[0], re.IGNORECASE), result.output
    assert snapshot(folder) == before


def test_the_catalogue_is_large_and_named_uniquely():
    ids = [case[0] for case in CASES]
    assert len(ids) == len(set(ids)) >= 40


# -- estimator arguments: a ValueError/TypeError naming the argument, in one line, the user's arrays untouched ----
def _nan(X):
    X = X.copy()
    X[3, 1] = np.nan
    return X


ESTIMATOR_CASES = [
    ("pckmeans-n-clusters-zero", lambda X, y: lw.PCKMeans(n_clusters=0).fit(X), "'n_clusters'"),
    ("pckmeans-more-clusters-than-rows", lambda X, y: lw.PCKMeans(n_clusters=500).fit(X), "n_clusters"),
    ("pckmeans-nan", lambda X, y: lw.PCKMeans(n_clusters=3).fit(_nan(X)), "NaN"),
    ("pckmeans-pair-with-itself", lambda X, y: lw.PCKMeans(n_clusters=3).fit(X, ml=[(4, 4)]), r"\(4, 4\)"),
    ("pckmeans-pair-out-of-range", lambda X, y: lw.PCKMeans(n_clusters=3).fit(X, cl=[(0, 10_000)]), "10000"),
    ("pckmeans-pairs-not-pairs", lambda X, y: lw.PCKMeans(n_clusters=3).fit(X, ml=[(0, 1, 2)]), "ml"),
    ("copkmeans-infeasible", lambda X, y: lw.COPKMeans(n_clusters=2).fit(X, cl=[(0, 1), (1, 2), (0, 2)]),
     "proved"),
    ("copkmeans-contradiction", lambda X, y: lw.COPKMeans(n_clusters=3).fit(X, ml=[(0, 1)], cl=[(0, 1)]),
     "contradict|inconsistent"),
    ("mpckmeans-metric-unknown", lambda X, y: lw.MPCKMeans(n_clusters=3, metric="cosine").fit(X), "'metric'"),
    ("seeded-labels-too-long", lambda X, y: lw.SeededKMeans(n_clusters=3).fit(X, np.zeros(len(y) + 1, int)),
     "y|length|samples"),
    ("cobras-budget-negative", lambda X, y: lw.COBRAS(max_queries=-1).fit(X, lw.LabelOracle(y)), "'max_queries'"),
    ("cobras-oracle-not-an-oracle", lambda X, y: lw.COBRAS(max_queries=5).fit(X, y), "oracle"),
    ("cobras-queryable-out-of-range",
     lambda X, y: lw.COBRAS(max_queries=5).fit(X, lw.LabelOracle(y), queryable=[0, 10_000]), "queryable"),
    ("cobra-super-instances-zero", lambda X, y: lw.COBRA(n_super_instances=0).fit(X, lw.LabelOracle(y)),
     "'n_super_instances'"),
    ("oracle-labels-not-1d", lambda X, y: lw.LabelOracle(np.c_[y, y]), "labels|1d|one-dimensional"),
    ("oracle-noise-above-one", lambda X, y: lw.LabelOracle(y, noise=1.5), "'noise'"),
    ("store-index-out-of-range", lambda X, y: lw.ConstraintStore(5).add(0, 5, True), "5"),
    ("store-contradiction", lambda X, y: _contradict(), "contradict|inconsistent"),
    ("session-pickled", lambda X, y: pickle.dumps(_asked(X, y)), "replay"),
    ("datasets-name-a-path", lambda X, y: lw.datasets.load("../iris"), "'name'"),
    ("cobras-nan", lambda X, y: lw.COBRAS(max_queries=5).fit(_nan(X), lw.LabelOracle(y)), "COBRAS contains NaN"),
    ("cobs-nan", lambda X, y: lw.COBS().fit(_nan(X), ml=[(0, 1)]), "COBS contains NaN"),
    ("cobs-generate-infinity", lambda X, y: lw.cobs.generate(_nan(X) * 0 + np.inf), "generate contains infinity"),
    ("bayes-nan", lambda X, y: lw.BayesianClustering(n_clusters=3).fit(_nan(X)), "BayesianClustering contains NaN"),
    ("metrics-lengths-differ", lambda X, y: lw.metrics.ari(y, y[:-1]), "length|samples|inconsistent"),
]


# -- row indices that are not integers: refused naming the argument, never truncated (99.4 is no row 99) -------
ESTIMATOR_CASES += [
    ("session-tell-pair-of-floats", lambda X, y: _asked(X, y).tell((99.4, 115.4), True), "'pair'"),
    ("session-tell-pair-of-bools", lambda X, y: _asked(X, y).tell((True, False), True), "'pair'"),
    ("session-tell-pair-of-strings", lambda X, y: _asked(X, y).tell(("1", "2"), True), "'pair'"),
    ("session-inform-float-row", lambda X, y: _asked(X, y).inform(99.4, 3, True), "'i'"),
    ("session-mark-bool-among-rows", lambda X, y: _asked(X, y).mark([True, 3, 4]), "'rows'"),
    ("pckmeans-ml-fractional-rows", lambda X, y: lw.PCKMeans(n_clusters=3).fit(X, ml=[(99.4, 115.4)]), "'ml'"),
    ("copkmeans-cl-bool-row", lambda X, y: lw.COPKMeans(n_clusters=3).fit(X, cl=[(True, 3)]), "'cl'"),
    ("cobs-ml-string-rows", lambda X, y: lw.COBS().fit(X, ml=[("0", "3")]), "'ml'"),
    ("bayes-cl-fractional-row", lambda X, y: lw.BayesianClustering(n_clusters=3).fit(X, cl=[(0, 2.5)]), "'cl'"),
]
# -- end of the row-index rows ------------------------------------------------------------------------------

# -- data that is no table of real numbers: refused in one line naming the fix (scikit-learn's message held the
# whole array, over several lines) ---------------------------------------------------------------------------
ESTIMATOR_CASES += [
    ("pckmeans-1d-x", lambda X, y: lw.PCKMeans(n_clusters=3).fit(X[:, 0]),
     r"Expected 2D array as X given to PCKMeans \(a row per item.*shape \(147,\)\. Reshape your data: "
     r"X\.reshape\(-1, 1\)"),
    ("session-1d-x", lambda X, y: lw.ActiveSession(lw.COBRAS(max_queries=5), X[:, 0].tolist()),
     r"Expected 2D array as X given to COBRAS.*reshape\(-1, 1\)"),
    ("predict-one-row-as-1d", lambda X, y: lw.PCKMeans(n_clusters=3).fit(X).predict(X[0]),
     r"Expected 2D array.*X\.reshape\(1, -1\) for a single item"),
    ("cobras-complex-x", lambda X, y: lw.COBRAS(max_queries=5).fit(X + 1j, lw.LabelOracle(y)),
     r"Complex data not supported: X given to COBRAS holds complex128; give the real parts \(X\.real\)"),
    ("session-complex-x", lambda X, y: lw.ActiveSession(lw.COBRAS(max_queries=5), X * 1j),
     "Complex data not supported"),
    ("session-complex-dataframe",  # loaded as a table: its complex column is no feature (its imaginary parts lost)
     lambda X, y: lw.ActiveSession(lw.COBRAS(max_queries=5), pd.DataFrame({"z": X[:, 0] + 1j})),
     "z: its cells are complex128, not numbers"),
]


def _contradict():
    store = lw.ConstraintStore(5)
    store.add(0, 1, True)
    store.add(1, 2, True)
    store.add(0, 2, False)


def _asked(X, y):
    session = lw.ActiveSession(lw.COBRAS(max_queries=5, random_state=0), X)
    session.ask()
    return session


@pytest.mark.parametrize("call, expected", [pytest.param(c, e, id=i) for i, c, e in ESTIMATOR_CASES])
def test_bad_estimator_argument_is_named_in_one_line(iris, call, expected):
    with pytest.raises((ValueError, TypeError)) as caught:
        call(*iris)  # read-only arrays: any write into the user's data fails loudly
    message = str(caught.value)
    assert "\n" not in message.strip() and re.search(expected, message, re.IGNORECASE), message


# -- messages a notebook widget's front end could send: refused in one line, nothing stored -----------------------
WIDGET_MESSAGES = [
    ("widget-action-a-list", {"action": ["answer"]}),  # a list is no key: the handler raised TypeError
    ("widget-action-a-dict", {"action": {"answer": True}}),
    ("widget-action-a-list-with-the-answers-fields", {"action": ["answer"], "position": "0.", "answer": True}),
]


@pytest.mark.parametrize("content", [pytest.param(c, id=i) for i, c in WIDGET_MESSAGES])
def test_bad_widget_message_is_refused_in_one_line_and_stores_nothing(tmp_path, iris, content):
    pytest.importorskip("anywidget", reason="the notebook extra (anywidget) is not installed")
    from linkwise.session import open_session

    w = open_session(tmp_path / "s.db", iris[0], lw.COBRAS(random_state=0)).widget()
    position = w.state["position"]
    w._on_message(w, content, [])  # what the front end's model.send delivers
    assert w.message.startswith("A widget message must name an action among answer, ") and "\n" not in w.message
    assert w.state["position"] == position
    w.close()
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone() == (0,)


# -- hostile files that are tables all the same: read as their plain twin is --------------------------------------
@pytest.mark.parametrize("text, kwargs", [
    ("name,x,y\na,1,2\nb,3,4\nc,5,0\n", {"id_column": "name"}),
    ("x;y;note\n1,5;2;red\n3,5;4;blue\n5;6;\"x, y\"\n", {}),  # semicolons and decimal commas, a quoted comma
])
def test_old_mac_line_endings_read_as_the_same_table(tmp_path, text, kwargs):
    """A CSV whose lines end at a lone CR (classic Mac OS, some exports) was a _csv.Error traceback."""
    twin = load_data(write(tmp_path, "lf.csv", text), **kwargs)
    data = load_data(write(tmp_path, "cr.csv", text.replace("\n", "\r")), **kwargs)
    np.testing.assert_array_equal(data.X, twin.X)
    assert data.ids.tolist() == twin.ids.tolist() and data.clustered_on == twin.clustered_on
    assert data.fingerprint == twin.fingerprint and data.item(2) == twin.item(2)


@pytest.mark.parametrize("content, expected", [
    ("a,b\r1,2\r3,\r5,6\r", "The feature column 'b' has a missing or infinite value at line 3;"),
    ("name,x\ra,1\rb,2\r\xe9t\xe9,3\r".encode("latin-1"), r"is not UTF-8 text \(bytes e9 on line 4\)"),
])
def test_old_mac_line_endings_are_placed_at_their_line(tmp_path, content, expected):
    with pytest.raises(InvalidParameterError) as caught:
        load_data(write(tmp_path, "cr.csv", content))
    assert re.search(expected, str(caught.value)) and "\n" not in str(caught.value)


@pytest.mark.slow
def test_a_table_of_100000_columns_loads():
    """3 rows x 100,000 numeric columns (1.2 MB): load_data did not finish in 400 s (the fingerprint, the default
    features, the cells shown each went column by column). Given as a DataFrame: the same table as the CSV's after
    pandas' read_csv (8 s of it here, not linkwise's)."""
    from linkwise.session import load_frame

    values = np.arange(300_000).reshape(3, -1) % 997
    data = load_frame(pd.DataFrame(values, columns=[f"c{k}" for k in range(values.shape[1])]))
    np.testing.assert_array_equal(data.X, minmax(values.astype(float)))
    fields = data.item(2)["fields"]
    assert len(fields) == 100_000 and fields[0] == ["c0", str(values[2, 0])] and fields[-1] == ["c99999", "899"]
    assert data.matches([0, 1, 2], "996").tolist() == [True, True, True]
    assert data.matches([0, 1, 2], "x").tolist() == [False, False, False]


def test_the_catalogue_covers_every_kind_of_input():
    """Files, CLI arguments, session files, estimator arguments, widget messages and readable hostile files here;
    HTTP bodies in test_session_web.py."""
    assert len(CASES) + len(ESTIMATOR_CASES) + len(WIDGET_MESSAGES) + len(BAD_REQUESTS) >= 100
