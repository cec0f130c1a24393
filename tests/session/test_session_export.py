"""`linkwise export --format csv|json|jsonl` and the page's downloads, checked against the session file."""

import io
import json
import sqlite3

import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, load_data
from tests.e2e.helpers import LiveServer, answer_from


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def session_file(tmp_path, iris_file):
    """A session with answers, a mark, a move, an undone answer and a named cluster; closed."""
    data_path, y = iris_file
    file = tmp_path / "s.db"
    session = HumanSession(file, load_data(data_path, id_column="name"), lw.COBRAS(random_state=0))
    answer_from(session, y, 6)
    session.undo(session.state().position)
    answer_from(session, y, 2)
    labels = session.numbers()
    big = int(pd.Series(labels).value_counts().index[0])
    session.name(big, "Große Blüten")
    state = session.state()
    session.mark(state.position, big, confirmed=True)
    other = int(next(c for c in labels if c != big))
    session.move(session.state().position, int((labels == other).nonzero()[0][0]), big)
    session.close()
    return file


def stored(file):
    """The live statements of the session file, read with SQLite directly, as dicts of its columns."""
    with sqlite3.connect(file) as db:
        columns = [r[1] for r in db.execute("PRAGMA table_info(answers)")]
        return [dict(zip(columns, row)) for row in db.execute("SELECT * FROM answers ORDER BY seq")]


def read(path, fmt):
    text = path.read_text(encoding="utf-8")
    if fmt == "csv":
        return pd.read_csv(io.StringIO(text), keep_default_na=False, dtype=str).to_dict("records")
    if fmt == "json":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_export_json_formats_hold_what_the_session_file_holds(tmp_path, session_file, iris_file, fmt):
    out = {t: tmp_path / f"{t}.{fmt}" for t in ("labels", "answers", "constraints")}
    # the format given once applies to every file; the suffixes would say the same
    result = run("export", session_file, "--format", fmt, "-o", out["labels"], "--answers", out["answers"],
                 "--constraints", out["constraints"])
    assert result.exit_code == 0, result.output + result.stderr
    session = HumanSession(session_file, load_data(iris_file[0], id_column="name"), read_only=True)
    try:
        labels = read(out["labels"], fmt)
        expected = session.labels_frame()
        assert [r["id"] for r in labels] == expected["id"].tolist()
        assert [r["cluster"] for r in labels] == expected["cluster"].tolist()  # numbers, not text
        assert {r["name"] for r in labels} >= {"Große Blüten"}  # the name, written as UTF-8
        answers = read(out["answers"], fmt)
        assert len(answers) == len(session.answers_frame())
        marks = [a for a in answers if a["kind"] == "pure"]
        assert len(marks) == 1 and marks[0]["answer"] is None  # a mark is a mark, not "don't know"
        ids = session.data.ids.to_numpy()
        (row,) = [r for r in stored(session_file) if r["kind"] == "pure"]
        assert marks[0]["members"] == ids[json.loads(row["members"])].tolist()  # the marked cluster's ids
        assert {a["kind"] for a in answers} >= {"question", "pure", "move"}
        assert sum(a["status"] == "undone" for a in answers) == 1
        constraints = read(out["constraints"], fmt)
        held = session.statements()
        assert [(c["id_a"], c["id_b"], c["answer"]) for c in constraints] == [
            (ids[i], ids[j], "same" if a else "different") for i, j, a, _ in held]
    finally:
        session.close()
    assert len(stored(session_file)) == sum(a["status"] == "live" for a in answers)


def test_the_suffix_chooses_the_format_and_csv_stays_the_default(tmp_path, session_file):
    assert run("export", session_file, "-o", tmp_path / "l.jsonl").exit_code == 0
    lines = (tmp_path / "l.jsonl").read_text().splitlines()
    assert len(lines) == 147 and json.loads(lines[0])["id"] == "flower-0"
    printed = run("export", session_file)
    assert printed.stdout.startswith("id,cluster,name\n")
    as_json = run("export", session_file, "--format", "json")
    assert [r["id"] for r in json.loads(as_json.stdout)] == pd.read_csv(io.StringIO(printed.stdout))["id"].tolist()
    bad = run("export", session_file, "--format", "xml")
    assert bad.exit_code == 2 and "'xml' is not one of 'csv', 'json', 'jsonl'" in bad.stderr


def test_the_page_downloads_each_table_as_a_file(tmp_path, session_file, iris_file):
    session = HumanSession(session_file, load_data(iris_file[0], id_column="name"))
    server = LiveServer(session, tmp_path / "iris.labels.csv")
    try:
        client = server.client()
        for table in ("labels", "answers", "constraints"):
            for fmt in ("csv", "json", "jsonl"):
                reply = client.get(f"/download/{table}.{fmt}")
                assert reply.status_code == 200
                assert reply.headers["content-disposition"].startswith(f'attachment; filename="iris.{table}.{fmt}"')
                written = tmp_path / f"export.{fmt}"
                args = {"labels": ["-o", written], "answers": ["-o", "-", "--answers", written],
                        "constraints": ["-o", "-", "--constraints", written]}[table]
                assert run("export", session_file, *args).exit_code == 0
                assert reply.text == written.read_text(encoding="utf-8")  # the same file as linkwise export
        assert client.get("/download/labels.xml").status_code == 404
        assert client.get("/download/secrets.json").status_code == 404
        assert server.client(token=False).get("/download/labels.json").status_code == 403
    finally:
        server.stop()
        session.close()
