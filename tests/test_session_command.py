"""`linkwise cluster` and `linkwise export` through click's CliRunner."""

import pandas as pd
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from tests.e2e.helpers import iris_csv


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_terminal_session_resumes_with_the_stored_options(tmp_path):
    data_path, y = iris_csv(tmp_path)
    first = run("cluster", data_path, "--id-column", "name", "--ui", "terminal", "--param", "max_queries=30",
                input="sdq")
    assert first.exit_code == 0, first.output
    session_file = tmp_path / "iris.linkwise.db"
    assert f"Session file: {session_file} (0 answers so far)" in first.output
    assert "Saved 147 labels" in first.output and (tmp_path / "iris.labels.csv").is_file()
    # no options: the id column, method and parameters come from the session file
    again = run("cluster", data_path, "--ui", "terminal", input="q")
    assert again.exit_code == 0, again.output
    assert "(2 answers so far)" in again.output and "flower-" in again.output
    changed = run("cluster", data_path, "--ui", "terminal", "--param", "max_queries=10", input="q")
    assert changed.exit_code == 1
    assert "max_queries=30 (asked: 10)" in changed.output
    other = run("cluster", data_path, "--ui", "terminal", "--id-column", "species", input="q")
    assert other.exit_code == 1 and "'species' is not unique" in other.output
    frame = pd.read_csv(data_path)
    frame.loc[0, "sepal_length"] = 99
    frame.to_csv(data_path, index=False)
    edited = run("cluster", data_path, "--ui", "terminal", input="q")
    assert edited.exit_code == 1 and "was made for other data" in edited.output


def test_export_writes_labels_and_every_answer(tmp_path):
    data_path, y = iris_csv(tmp_path)
    data = load_data(data_path, id_column="name")
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    for _ in range(4):
        state = session.state()
        i, j = state["question"]["pair"]
        session.answer(state["position"], bool(y[i] == y[j]))
    session.undo(session.state()["position"])
    expected = session.labels_frame()
    session.close()

    printed = run("export", tmp_path / "s.db")
    assert printed.exit_code == 0, printed.output
    assert printed.output == expected.to_csv(index=False)

    out = run("export", tmp_path / "s.db", "-o", tmp_path / "labels.csv", "--answers", tmp_path / "answers.csv")
    assert out.exit_code == 0, out.output
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "labels.csv"), expected)
    answers = pd.read_csv(tmp_path / "answers.csv")
    assert list(answers.columns) == ["seq", "id_a", "id_b", "answer", "answered_at", "status", "retracted_at"]
    assert answers["status"].tolist() == ["live", "live", "live", "undone"]

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


def test_command_line_mistakes_get_one_clear_line(tmp_path):
    data_path, _ = iris_csv(tmp_path)
    bad_param = run("cluster", data_path, "--param", "max_queries")
    assert bad_param.exit_code == 2 and "'max_queries' is not NAME=VALUE" in bad_param.output
    unknown = run("cluster", data_path, "--method", "kmeans", "--ui", "terminal")
    assert unknown.exit_code == 1 and "neither a known name (bayes, cobra, cobras, cobs, robust-cobras)" in unknown.output
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
