"""Bring your own answers: `linkwise cluster --constraints/--labels`, `linkwise export --constraints`, and
HumanSession(known=...): stored once as imported, never asked, kept on resume, refused when wrong."""

import re
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.exceptions import InvalidParameterError
from linkwise.graph import relabel
from linkwise.session import HumanSession, constraints_frame, load_data, read_known
from tests.e2e.helpers import Scripted, answer_from


@contextmanager
def opened(*args, **kwargs):
    session = HumanSession(*args, **kwargs)
    try:
        yield session
    finally:
        session.close()


def run(*args, input="q"):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def write(path, text):
    path.write_text(text)
    return path


def cluster(data_path, *options):
    return run("cluster", data_path, "--id-column", "name", "--ui", "terminal", "--param", "max_queries=40",
               "--param", "random_state=0", *options)


def imported(session_file):
    with opened(session_file, load_data(session_file.parent / "iris.csv", id_column="name"), read_only=True) as s:
        return [(a.i, a.j, a.answer) for a in s.store.answers() if a.kind == "imported"]


def first_question(tmp_path, data):
    with opened(tmp_path / "plain.db", data, lw.COBRAS(max_queries=40, random_state=0)) as plain:
        return tuple(plain.state().question.pair)


@pytest.mark.slow
def test_imported_constraints_are_never_asked_and_survive_resume(tmp_path, iris_file):
    data_path, y = iris_file
    data = load_data(data_path, id_column="name")
    i, j = first_question(tmp_path, data)
    name = lambda r: f"flower-{r}"  # noqa: E731
    truth = lambda a, b: "same" if y[a] == y[b] else "different"  # noqa: E731
    pairs = [(i, j), (0, 50), (50, 100), (0, 1), (51, 52)]
    known = write(tmp_path / "known.csv", "id_a,id_b,answer\n" + "".join(
        f"{name(a)},{name(b)},{truth(a, b)}\n" for a, b in pairs))
    first = cluster(data_path, "--constraints", known)
    assert first.exit_code == 0, first.output
    assert "(0 questions answered; 5 imported relations so far)" in first.output
    session_file = tmp_path / "iris.linkwise.db"
    assert sorted(imported(session_file)) == sorted((min(a, b), max(a, b), bool(y[a] == y[b])) for a, b in pairs)

    with opened(session_file, data) as session:
        assert tuple(session.state().question.pair) != (i, j)  # the plain session's first question is known
        assert session.state().n_answered == 0
        told = lw.ConstraintStore(data.n_rows)
        for a, b in pairs:
            told.add(a, b, bool(y[a] == y[b]))
        asked = answer_from(session, y, 25)
        assert all(told.relation(a, b) is None for a, b in asked)  # nothing they imply is asked
    # again with the same file (its rows in another order, one twice): nothing added; another file is refused
    write(known, "i,j,answer\n" + "".join(f"{b},{a},{truth(a, b)}\n" for a, b in [*pairs[::-1], pairs[0]]))
    again = cluster(data_path, "--constraints", known)
    assert again.exit_code == 0, again.output
    assert "(25 questions answered; 5 imported relations so far)" in again.output
    assert len(imported(session_file)) == 5
    assert cluster(data_path).exit_code == 0  # left out: the stored ones stay
    write(known, f"id_a,id_b,answer\n{name(0)},{name(2)},same\n")
    other = cluster(data_path, "--constraints", known)
    assert other.exit_code == 1
    assert "began with other imported answers: the pair 'flower-0', 'flower-2' (same) is given now" in other.output
    assert "start a new session file" in other.output
    with opened(session_file, data, read_only=True) as session:
        assert session.state().n_answered == 25 and len(session.store.answers()) == 30


@pytest.mark.slow
def test_partial_labels_become_a_star_per_cluster_and_cannot_links_between(tmp_path, iris_file):
    data_path, y = iris_file
    rows = [0, 1, 2, 3, 50, 51, 100, 101, 102]
    labels = write(tmp_path / "partial.csv", "id,cluster\n" + "".join(f"flower-{r},{y[r]}\n" for r in rows)
                   + "flower-7,\nflower-0,0\n")  # a blank cluster: unlabelled; an id given again with its cluster
    known = write(tmp_path / "known.csv", "i,j,answer\n60,61,1\n")
    started = cluster(data_path, "--labels", labels, "--constraints", known)
    assert started.exit_code == 0, started.output
    stored = imported(tmp_path / "iris.linkwise.db")
    # 9 rows in 3 clusters: 6 must-links from each cluster's first row, 3 cannot-links, and the constraint
    assert sorted(stored) == sorted([(0, 1, True), (0, 2, True), (0, 3, True), (50, 51, True), (100, 101, True),
                                     (100, 102, True), (0, 50, False), (0, 100, False), (50, 100, False),
                                     (60, 61, True)])
    with opened(tmp_path / "iris.linkwise.db", load_data(data_path, id_column="name")) as session:
        store = session._replay.session.constraints
        assert all(store.relation(a, b) == (y[a] == y[b]) for a in rows for b in rows if a != b)
        assert store.relation(7, 0) is None


def test_answers_are_read_in_every_documented_spelling(iris_data):
    data, _ = iris_data
    words = {"same": True, "Different": False, "TRUE": True, "false": False, "yes": True, "No": False, "1": True,
             "0": False, "must-link": True, "cannot-link": False, "ML": True, "cl": False, " must_link ": True,
             "cannot_link": False}
    path = data.path.parent / "words.csv"
    pd.DataFrame({"i": range(len(words)), "j": range(20, 20 + len(words)), "answer": list(words),
                  "note": "ignored"}).to_csv(path, index=False)
    assert read_known(data, constraints=path) == [(k, 20 + k, a) for k, a in enumerate(words.values())]
    numbers = data.path.parent / "numbers.csv"
    write(numbers, "I,J,Answer\n0,1,1\n1,2,0\n")  # column names in any case; 1/0 read as numbers
    assert read_known(data, constraints=numbers) == [(0, 1, True), (1, 2, False)]
    implied = write(data.path.parent / "implied.csv", "i,j,answer\n0,1,same\n1,2,same\n0,2,same\n2,1,same\n")
    assert read_known(data, constraints=implied) == [(0, 1, True), (1, 2, True)]  # what others imply is not kept


@pytest.mark.slow
def test_export_then_import_round_trips(tmp_path, iris_file):
    data_path, y = iris_file
    data = load_data(data_path, id_column="name")
    with opened(tmp_path / "s.db", data, lw.COBRAS(random_state=0), known=[(3, 4, True)]) as session:
        answer_from(session, y, 6)
        state = session.state()
        session.answer(state.position, None)  # "don't know": no constraint, not exported
        setosa = np.flatnonzero(y == 0)[:5]
        session._applied([session.store.record_mark(setosa, complete=False)])
        expected = {(int(i), int(j), a) for i, j, a, _ in session.statements()}
    out = run("export", tmp_path / "s.db", "-o", tmp_path / "labels.csv", "--constraints", tmp_path / "c.csv")
    assert out.exit_code == 0, out.output
    exported = pd.read_csv(tmp_path / "c.csv")
    assert list(exported.columns) == ["id_a", "id_b", "answer", "kind", "annotator"]
    assert set(exported["kind"]) == {"question", "imported", "pure"} and set(exported["answer"]) <= {"same", "different"}
    assert len(exported) == len(expected)  # the answers, the import, the pure cluster's star
    assert exported.iloc[0].tolist()[:4] == ["flower-3", "flower-4", "same", "imported"]

    started = run("cluster", data_path, "--id-column", "name", "--ui", "terminal", "--session", tmp_path / "t.db", "--method", "cobras",
                  "--constraints", tmp_path / "c.csv")
    assert started.exit_code == 0, started.output
    with opened(tmp_path / "t.db", data, read_only=True) as copy:
        store = copy._replay.session.constraints
        assert all(store.relation(i, j) is a for i, j, a in expected)  # every answer known again
        again = constraints_frame(copy)
    assert set(again["kind"]) == {"imported"}
    # an export of imported pairs imports to the very same pairs
    again.to_csv(tmp_path / "c2.csv", index=False)
    with opened(tmp_path / "u.db", data, known=read_known(data, constraints=tmp_path / "c2.csv")) as third:
        pd.testing.assert_frame_equal(constraints_frame(third), again)
    # the labels an export writes are a labels file: the whole clustering known, nothing left to ask
    full = run("cluster", data_path, "--id-column", "name", "--ui", "terminal", "--session", tmp_path / "v.db", "--method", "cobras",
               "--labels", tmp_path / "labels.csv")
    assert full.exit_code == 0, full.output
    with opened(tmp_path / "v.db", data, read_only=True) as labelled:
        assert labelled.state().done
        assert (labelled.labels() == relabel(pd.read_csv(tmp_path / "labels.csv")["cluster"])).all()


IRIS_HEAD = "flower-0,flower-1"


@pytest.mark.parametrize("option, text, message", [
    ("--constraints", "a,b,answer\n0,1,same\n", "has no column id_a, id_b; it needs id_a, id_b, answer (the data's "
     "ids), or i, j, answer (row numbers from 0) (it has: a, b, answer)"),
    ("--constraints", "id_a,id_b,label\nflower-0,flower-1,same\n", "has no column answer; it needs id_a, id_b, answer"),
    ("--constraints", "i,j,id_a,id_b,answer\n0,1,flower-0,flower-1,same\n", "has both id_a, id_b and i, j columns"),
    ("--constraints", f"id_a,id_b,answer\n{IRIS_HEAD},same\n{IRIS_HEAD},perhaps\n{IRIS_HEAD},?\n",
     "line 3: the answer 'perhaps' is not one linkwise reads (and 1 more rows). Write same or different (or "
     "true/false, yes/no, 1/0, must-link/cannot-link); leave out pairs you do not know."),
    ("--constraints", "i,j,answer\n0,1,1\n1,2,\n", "line 3: no answer. Write same or different"),
    ("--constraints", "id_a,id_b,answer\nflower-0,flower-999,same\n",
     "line 2: id_b 'flower-999' is not an id of the data. Use the ids of the data's 'name' column; correct"),
    ("--constraints", "id_a,id_b,answer\n,flower-1,same\n", "line 2: no id_a. Fill it in or remove the row."),
    ("--constraints", "i,j,answer\n0,1,same\n0,150,same\n",
     "line 3: j '150' is not a row number of the data. Row numbers run from 0 to 146; correct or remove the row."),
    ("--constraints", "i,j,answer\n0,1,same\n-1,2,same\n", "line 3: i '-1' is not a row number"),
    ("--constraints", "i,j,answer\n2.0,1,same\n", "line 2: i '2.0' is not a row number"),
    ("--constraints", "i,j,answer\n3,3,same\n", "line 2: i and j name the same row. A pair needs two different rows"),
    ("--constraints", "i,j,answer\n0,1,same\n5,6,same\n1,2,same\n0,2,different\n",
     "The answers given contradict each other: --constraints known.csv line 5 ('flower-0', 'flower-2': different) "
     "contradicts --constraints known.csv line 2 ('flower-0', 'flower-1': same); --constraints known.csv line 4 "
     "('flower-1', 'flower-2': same), which together say same. Correct or remove one of these rows."),
    ("--constraints", "", "known.csv is empty."),
    ("--constraints", "seq,id_a,id_b,answer,status\n1,flower-0,flower-1,same,undone\n",
     "is an answer log (`linkwise export --answers`); write the constraints to import with `linkwise export "
     "--constraints` instead."),
    ("--labels", "id,group\nflower-0,a\n", "has no column cluster; it needs id, cluster"),
    ("--labels", "id,cluster\nflower-0,a\nflower-1,a\nflower-0,b\n",
     "line 4: id 'flower-0' is in cluster 'b', but in 'a' on line 2. Give every id one cluster."),
    ("--labels", "id,cluster\nflower-1000,a\n", "line 2: id 'flower-1000' is not an id of the data"),
    ("--labels", "id,cluster\nflower-0,a\n  ,b\nflower-2,a\n", "line 3: no id. Fill it in or remove the row."),
])
def test_every_bad_file_is_one_clear_line_and_stores_nothing(tmp_path, iris_file, option, text, message):
    data_path, _ = iris_file
    path = write(tmp_path / ("known.csv" if option == "--constraints" else "partial.csv"), text)
    result = cluster(data_path, option, path)
    assert result.exit_code == 1, result.output
    assert message in " ".join(result.output.split()), result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.glob("iris.linkwise.db*"))  # a failed start leaves no session file


def test_contradiction_across_the_two_files_names_both(tmp_path, iris_file):
    data_path, _ = iris_file
    labels = write(tmp_path / "partial.csv", "id,cluster\nflower-0,a\nflower-1,b\n")
    known = write(tmp_path / "known.csv", "id_a,id_b,answer\nflower-1,flower-2,same\nflower-2,flower-0,same\n")
    result = cluster(data_path, "--constraints", known, "--labels", labels)
    assert result.exit_code == 1
    assert ("--labels partial.csv line 2 and line 3 ('flower-0' in cluster 'a', 'flower-1' in 'b') contradicts "
            "--constraints known.csv line 3 ('flower-2', 'flower-0': same); --constraints known.csv line 2 "
            "('flower-1', 'flower-2': same), which together say same") in " ".join(result.output.split())
    missing = cluster(data_path, "--labels", tmp_path / "nope.csv")
    assert missing.exit_code == 2 and "'--labels'" in missing.output and "does not exist" in missing.output


@pytest.mark.slow
def test_a_bad_file_on_resume_changes_nothing(tmp_path, iris_file):
    data_path, y = iris_file
    assert cluster(data_path).exit_code == 0
    session_file = tmp_path / "iris.linkwise.db"
    data = load_data(data_path, id_column="name")
    with opened(session_file, data) as session:
        answer_from(session, y, 3)
    before = session_file.read_bytes()
    known = write(tmp_path / "known.csv", "i,j,answer\n0,1,maybe\n")
    assert cluster(data_path, "--constraints", known).exit_code == 1
    write(known, "i,j,answer\n0,1,same\n")  # a good file, but the session began without one
    late = cluster(data_path, "--constraints", known)
    assert late.exit_code == 1 and "began with no imported answers" in late.output
    assert session_file.read_bytes() == before


def test_known_in_python_checks_its_rows_and_the_stored_start(tmp_path, iris_data):
    data, y = iris_data
    path = tmp_path / "s.db"
    for known, message in (([(0, 1)], "known[0] is (0, 1)"), ([(0, 1, "same")], "must be True (same) or False"),
                           ([(0, 150, True)], "'j' argument of HumanSession (known[0]) is 150"),
                           ([(0, 1, True), (1, 2, True), (0, 2, False)], "known[2] = (0, 2, False) contradicts")):
        with pytest.raises(InvalidParameterError, match=re.escape(message)):
            HumanSession(path, data, lw.COBRAS(random_state=0), known=known)
        assert not path.exists()
    with opened(path, data, lw.COBRAS(random_state=0)):  # nothing stated yet: as good as the start
        pass
    with opened(path, data, known=[(0, 1, True), (1, 2, True)]) as session:
        seqs = [a.seq for a in session.store.answers()]
        assert len(seqs) == 2 and session.state().can_undo
        session.store.correct(seqs[0])  # as resolving a contradiction against it would
        session.undo(session.state().position)  # the person undid the import
    # what the session began with, also as it was before the correction and the undo: accepted, nothing added
    with opened(path, data, known=[(0, 2, True), (1, 2, True)]) as again:
        assert again.store.answers() == [] and len(again.store.retracted()) == 3
    with pytest.raises(InvalidParameterError, match="the pair 'flower-0', 'flower-1' .same. is not given now"):
        HumanSession(path, data, known=[(1, 2, True)])


@pytest.mark.parametrize("tolerant", [False, True])
def test_an_open_contradiction_is_not_exported(tmp_path, iris_data, tolerant):
    data, _ = iris_data
    method = Scripted(script=[[0, 1], [1, 2], [3, 4]], tolerant=tolerant, random_state=0)
    with opened(tmp_path / "s.db", data, method, known=[(5, 6, True)]) as session:
        for answer in (True, True):
            session.answer(session.state().position, answer)
        moved = session.store.record_many([(0, 2, False)], kind="move")  # contradicts 0~1~2
        assert session._applied(moved).conflict is not None
        frame = constraints_frame(session)
    assert frame[["id_a", "id_b", "answer", "kind"]].values.tolist() == [
        ["flower-5", "flower-6", "same", "imported"], ["flower-0", "flower-1", "same", "question"],
        ["flower-1", "flower-2", "same", "question"]]


ODD_IDS = ["007", "7", "1", "1.0", "NA", "nan", "True", "-0", "1e3", "None"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ids_are_matched_as_written_in_labels_and_constraints(tmp_path, seed):
    rng = np.random.RandomState(seed)
    ids = list(rng.permutation(ODD_IDS))
    write(tmp_path / "d.csv", "id,x\n" + "".join(f"{i},{rng.rand()}\n" for i in ids))
    data = load_data(tmp_path / "d.csv", id_column="id")
    groups = rng.permutation([0, 0, 0, 1, 1, 1, 2, 2, 2, 3])  # cluster 3: unknown, written as R writes it
    cells = ["NA" if g == 3 else f"c{g}" for g in groups]
    order = rng.permutation(len(ids))
    write(tmp_path / "l.csv", "id,cluster\n" + "".join(f"{ids[k]},{cells[k]}\n" for k in order))
    pairs = read_known(data, labels=tmp_path / "l.csv")
    store = lw.ConstraintStore(len(ids))
    for i, j, answer in pairs:
        store.add(i, j, answer)
    known = [k for k in range(len(ids)) if groups[k] != 3]
    for a in known:
        for b in known:
            if a != b:
                assert store.relation(a, b) is bool(groups[a] == groups[b])  # each id its own row: 1 is not 1.0
    assert all(store.relation(k, m) is None for k in range(len(ids)) if groups[k] == 3 for m in known)
    a, b = rng.choice(len(ids), 2, replace=False)
    write(tmp_path / "k.csv", f"id_a,id_b,answer\n{ids[a]},{ids[b]},same\n")
    assert read_known(data, constraints=tmp_path / "k.csv") == [(a, b, True)]
    pd.DataFrame({"id": pd.array([ids[a], None], dtype="str"), "cluster": pd.array([1, 1], dtype="Int64")}).to_parquet(
        tmp_path / "l.parquet")
    with pytest.raises(InvalidParameterError, match=r"l\.parquet, row 2: no id\."):
        read_known(data, labels=tmp_path / "l.parquet")


def test_without_an_id_column_the_row_numbers_are_the_ids_as_written(tmp_path, iris_file):
    data = load_data(iris_file[0])
    write(tmp_path / "l.csv", "id,cluster\n0,a\n1,a\n2,\n")
    assert read_known(data, labels=tmp_path / "l.csv") == [(0, 1, True)]
    write(tmp_path / "m.csv", "id,cluster\n0.0,a\n1,a\n")
    with pytest.raises(InvalidParameterError, match="line 2: id '0.0' is not an id of the data. Without an id "
                                                    "column the ids are the row numbers from 0"):
        read_known(data, labels=tmp_path / "m.csv")
    pd.DataFrame({"id": pd.array([3, 4, 5], dtype="Int64"), "cluster": pd.array([7, None, 7], dtype="Int64")}
                 ).to_parquet(tmp_path / "l.parquet")
    assert read_known(data, labels=tmp_path / "l.parquet") == [(3, 5, True)]
