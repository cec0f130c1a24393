"""`linkwise cluster` and `linkwise export` through click's CliRunner."""

import hashlib
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from linkwise.session.core._controller import read_meta
from tests.e2e.helpers import Server, answer_from, truth_answer


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.slow
def test_terminal_session_resumes_with_the_stored_options(tmp_path, iris_file):
    data_path, y = iris_file
    first = run("cluster", data_path, "--id-column", "name", "--ui", "terminal", "--param", "max_queries=30",
                input="s\nd\nq\n")
    assert first.exit_code == 0, first.output
    session_file = tmp_path / "iris.linkwise.db"
    assert f"Session file: {session_file} (0 questions answered so far)" in first.output
    assert "Saved 147 labels" in first.output and (tmp_path / "iris.labels.csv").is_file()
    # no options: the id column, method and parameters come from the session file
    again = run("cluster", data_path, "--ui", "terminal", input="q")
    assert again.exit_code == 0, again.output
    assert "(2 questions answered so far)" in again.output and "flower-" in again.output
    changed = run("cluster", data_path, "--ui", "terminal", "--param", "window=0.2", input="q")
    assert changed.exit_code == 1
    assert "window=0.1 (asked: 0.2)" in changed.output
    budget = run("cluster", data_path, "--ui", "terminal", "--param", "max_queries=10", input="q")
    assert budget.exit_code == 1 and "max_queries=30 (asked: 10)" in budget.output  # the budget is the session's:
    assert "raise the budget on the page or with b in the terminal" in budget.output  # said how to change it
    kept = run("cluster", data_path, "--ui", "terminal", "--method", "auto", input="q")
    assert kept.exit_code == 0 and "2 of 30 answered" in kept.output, kept.output  # a method given: the stored budget
    other = run("cluster", data_path, "--ui", "terminal", "--id-column", "species", input="q")
    assert other.exit_code == 1 and "'species' is not unique" in other.output
    frame = pd.read_csv(data_path)
    frame.loc[0, "sepal_length"] = 99
    frame.to_csv(data_path, index=False)
    edited = run("cluster", data_path, "--ui", "terminal", input="q")
    assert edited.exit_code == 1 and "was made for other data" in edited.output


def test_export_writes_labels_and_every_answer(tmp_path, iris_file):
    data_path, y = iris_file
    data = load_data(data_path, id_column="name")
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    asked = answer_from(session, y, 4)
    session.undo(session.state().position)
    expected = session.labels_frame()
    session.close()

    printed = run("export", tmp_path / "s.db")
    assert printed.exit_code == 0, printed.output
    assert printed.output == expected.to_csv(index=False)

    out = run("export", tmp_path / "s.db", "-o", tmp_path / "labels.csv", "--answers", tmp_path / "answers.csv")
    assert out.exit_code == 0, out.output
    assert (tmp_path / "labels.csv").read_text() == expected.to_csv(index=False)
    answers = pd.read_csv(tmp_path / "answers.csv")
    assert list(answers.columns) == ["seq", "id_a", "id_b", "answer", "answered_at", "annotator", "kind", "members",
                                     "action", "status", "retracted_at"]
    assert answers["status"].tolist() == ["live", "live", "live", "undone"]

    # a mark is written as a mark: its kind, no answer
    session = HumanSession(tmp_path / "s.db", data)
    session.mark(session.position, session.clusters()["strips"][0]["cluster"], confirmed=True)
    session.close()
    out = run("export", tmp_path / "s.db", "-o", tmp_path / "labels.csv", "--answers", tmp_path / "answers.csv")
    answers = pd.read_csv(tmp_path / "answers.csv", keep_default_na=False)
    assert answers["kind"].tolist() == ["question"] * 4 + ["pure"]
    assert answers["answer"].tolist()[:4] == [truth_answer(y, pair) for pair in asked] and answers["answer"].iat[4] == ""

    # the data moved: --data points to it; other data is refused
    moved = tmp_path / "moved.csv"
    data_path.rename(moved)
    missing = run("export", tmp_path / "s.db")
    assert missing.exit_code == 1 and "does not exist" in missing.output
    assert run("export", tmp_path / "s.db", "--data", moved).output == expected.to_csv(index=False)
    frame = pd.read_csv(moved)
    frame.loc[0, "petal_width"] = 5
    frame.to_csv(moved, index=False)
    refused = run("export", tmp_path / "s.db", "--data", moved)
    assert refused.exit_code == 1 and "was made for other data" in refused.output


def test_command_line_mistakes_get_one_clear_line(tmp_path, iris_file):
    data_path, _ = iris_file
    bad_param = run("cluster", data_path, "--param", "max_queries")
    assert bad_param.exit_code == 2 and "'max_queries' is not NAME=VALUE" in bad_param.output
    unknown = run("cluster", data_path, "--method", "kmeans", "--ui", "terminal")
    assert unknown.exit_code == 1 and "neither a known name (auto, bayes, cobra, cobras, cobras-dtw, cobras-kshape, cobs, robust-cobras)" in unknown.output
    not_active = run("cluster", data_path, "--method", "linkwise.cluster:PCKMeans", "--ui", "terminal")
    assert not_active.exit_code == 1 and "is not a subclass of ActiveEstimator" in not_active.output
    bad_value = run("cluster", data_path, "--param", "max_queries=-3", "--ui", "terminal")
    assert bad_value.exit_code == 1 and "max_queries" in bad_value.output
    column = run("cluster", data_path, "--features", "petal_width,nope", "--ui", "terminal")
    assert column.exit_code == 1 and "'nope' is not a column" in column.output
    (tmp_path / "junk.db").write_text("not a database")
    junk = run("export", tmp_path / "junk.db")
    assert junk.exit_code == 1 and "not a linkwise session file" in junk.output
    assert not list(tmp_path.glob("iris.linkwise.db*"))  # failed starts leave no session file


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_a_sqlite_file_linkwise_did_not_make_is_never_touched(tmp_path, iris_file):
    data_path, _ = iris_file
    precious = tmp_path / "precious.sqlite"
    db = sqlite3.connect(precious)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.execute("INSERT INTO notes VALUES ('keep me')")
    db.commit()
    db.close()
    before = digest(precious)
    for params in (["--param", "max_queries=-1"], ["--param", "max_queries=5"], []):
        result = run("cluster", data_path, "--session", precious, "--ui", "terminal", *params, input="q")
        assert result.exit_code == 1 and "linkwise did not make" in result.output, result.output
        assert digest(precious) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iris.csv", "precious.sqlite"]
    db = sqlite3.connect(precious)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_out_may_not_be_the_data_or_the_session(tmp_path, iris_file):
    data_path, _ = iris_file
    (tmp_path / "link.csv").symlink_to(data_path)
    before = digest(data_path)
    for out in (data_path, tmp_path / "link.csv", tmp_path / "sub" / ".." / "iris.csv"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        result = run("cluster", data_path, "--out", out, "--ui", "terminal", input="s\nq\n")
        assert result.exit_code == 2 and "is the data file; writing there would destroy it" in result.output
    result = run("cluster", data_path, "--session", tmp_path / "s.db", "--out", tmp_path / "s.db", "--ui", "terminal")
    assert result.exit_code == 2 and "is the session file" in result.output
    assert digest(data_path) == before and not list(tmp_path.glob("*.db*"))


def test_export_only_reads_even_while_the_session_runs(tmp_path, iris_file):
    data_path, y = iris_file
    empty = tmp_path / "empty.db"
    empty.touch()
    result = run("export", empty)
    assert result.exit_code == 1 and "empty file (0 bytes)" in result.output
    assert empty.stat().st_size == 0

    session = HumanSession(tmp_path / "s.db", load_data(data_path), lw.COBRAS(random_state=0))
    state = session.state()
    i, j = state.question.pair
    session.answer(state.position, bool(y[i] == y[j]))
    # the session is still open here; the -shm file is their shared index, which readers use too
    files = {p.name: digest(p) for p in tmp_path.iterdir() if not p.name.endswith("-shm")}
    printed = run("export", tmp_path / "s.db")
    assert printed.exit_code == 0, printed.output
    assert printed.output == session.labels_frame().to_csv(index=False)
    assert {p.name: digest(p) for p in tmp_path.iterdir() if not p.name.endswith("-shm")} == files
    session.close()
    files = {p.name: digest(p) for p in tmp_path.iterdir()}
    assert run("export", tmp_path / "s.db").exit_code == 0
    assert {p.name: digest(p) for p in tmp_path.iterdir()} == files  # a closed session: no -wal/-shm made either


def test_a_method_outside_linkwise_is_imported_only_when_named_again(tmp_path, iris_file):
    data_path, _ = iris_file
    spec = "tests.e2e.helpers:Scripted"
    first = run("cluster", data_path, "--method", spec, "--param", "script=[[0, 1], [2, 3]]", "--ui", "terminal",
                input="s\nq\n")
    assert first.exit_code == 0, first.output
    session_file = tmp_path / "iris.linkwise.db"
    for args in ((), ("--param", "script=[[0, 1], [2, 3]]")):
        refused = run("cluster", data_path, "--ui", "terminal", *args, input="q")
        assert refused.exit_code == 1
        assert f"names the method '{spec}', which is not one of linkwise's" in refused.output
        assert f"pass --method {spec}" in refused.output
    again = run("cluster", data_path, "--method", spec, "--ui", "terminal", input="q")
    assert again.exit_code == 0 and "(1 question answered so far)" in again.output, again.output
    refused = run("export", session_file)
    assert refused.exit_code == 1 and "not one of linkwise's" in refused.output
    exported = run("export", session_file, "--method", spec)
    assert exported.exit_code == 0 and exported.output.startswith("id,cluster,name\n"), exported.output


def test_unknown_parameter_is_one_line(tmp_path, iris_file):
    data_path, _ = iris_file
    result = run("cluster", data_path, "--param", "bogus=1", "--ui", "terminal")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output == (
        "Error: Auto has no parameter 'bogus'; its parameters are: cache, max_queries, max_samples, metric, "
        "n_clusters, n_jobs, noise, noise_probability, random_state, window.\n")


@pytest.mark.slow
def test_encoding_is_kept_in_the_session(tmp_path, iris_file):
    data_path, _ = iris_file
    frame = pd.read_csv(data_path)
    frame["name"] = [f"fleur-é{k}" for k in range(len(frame))]
    frame.to_csv(data_path, index=False, encoding="latin-1")
    undecodable = run("cluster", data_path, "--id-column", "name", "--ui", "terminal", input="q")
    assert undecodable.exit_code == 1 and "pass its encoding, e.g. --encoding latin-1 " in undecodable.output
    assert "Traceback" not in undecodable.output and not list(tmp_path.glob("*.db"))
    first = run("cluster", data_path, "--id-column", "name", "--encoding", "latin-1", "--ui", "terminal",
                input="s\nq\n")
    assert first.exit_code == 0, first.output
    session_file = tmp_path / "iris.linkwise.db"
    assert read_meta(session_file)["data_options"]["encoding"] == "latin-1"
    again = run("cluster", data_path, "--ui", "terminal", input="q")  # the stored encoding is used
    assert again.exit_code == 0 and "(1 question answered so far)" in again.output, again.output
    exported = run("export", session_file)
    assert exported.exit_code == 0 and "fleur-é0," in exported.output


def test_a_method_name_with_settings_builds_them(tmp_path, iris_file):
    """`--method cobras-dtw` is COBRAS with metric='dtw' (linkwise.methods.PARAMS), --param still overrides."""
    data_path, _ = iris_file
    done = run("cluster", data_path, "--method", "cobras-dtw", "--param", "window=0.2", "--ui", "terminal", input="q")
    assert done.exit_code == 0, done.output
    meta = read_meta(tmp_path / "iris.linkwise.db")
    assert meta["method"] == "cobras" and (meta["params"]["metric"], meta["params"]["window"]) == ("dtw", 0.2)


@pytest.mark.slow
def test_the_page_is_served_first_and_a_session_that_then_cannot_open_is_one_error(tmp_path, iris_file):
    data_path, _ = iris_file
    session_file = tmp_path / "s.db"
    server = Server(data_path, "--id-column", "name", "--session", session_file)
    try:
        assert server.state()["n_answered"] == 0  # the state waits for the session to open
    finally:
        server.stop()
    output = "".join(server.output).splitlines()
    address = next(k for k, line in enumerate(output) if line.startswith("linkwise session at http://127.0.0.1:"))
    assert output[address + 1] == f"Session file: {session_file} (0 questions answered so far)"  # said once it is open
    frame = pd.read_csv(data_path)
    frame.loc[0, "sepal_length"] = 99
    frame.to_csv(data_path, index=False)
    kept = session_file.read_bytes(), (tmp_path / "s.labels.csv").read_bytes()  # (Ctrl+C wrote the labels)
    refused = run("cluster", data_path, "--session", session_file, "--no-browser")  # refused as it opens
    assert refused.exit_code == 1, refused.output
    lines = refused.output.splitlines()
    assert lines[0].startswith("linkwise session at http://127.0.0.1:") and len(lines) == 2, refused.output
    assert lines[1].startswith("Error: ") and "was made for other data" in lines[1]
    assert (session_file.read_bytes(), (tmp_path / "s.labels.csv").read_bytes()) == kept
