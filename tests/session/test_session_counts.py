"""One count of what a person said, the same in the state every view reads, the summary and the resume message."""

import numpy as np
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession
from linkwise.session.core._counts import Counts, count_statements, describe
from linkwise.session.core._summary import summary
from linkwise.session.front._terminal import _progress
from tests.e2e.helpers import answer_from


@pytest.mark.parametrize("seed", [0, 1])
def test_questions_moves_marks_and_imports_are_counted_alike_everywhere(iris_data, tmp_path, seed):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed, max_queries=40))
    answer_from(session, y, 6)
    session._applied(session.store.record_many([(0, 60, False), (60, 120, bool(y[60] == y[120]))], kind="imported"))
    strips = session.clusters()["strips"]
    session.move(session.position, strips[1]["items"][0]["row"], strips[0]["cluster"])  # stored as two relations
    session.mark(session.position, np.flatnonzero(y == 0)[:10], confirmed=True)
    answer_from(session, y, 2)
    rows = session.store.answers()
    assert sum(r.kind == "move" for r in rows) == 2
    expected = Counts(questions=8, moves=1, marks=1, imports=2)
    assert count_statements(rows) == expected
    text = "8 questions answered; 1 move, 1 mark, 2 imported relations"
    assert describe(expected) == text
    state = session.state()
    assert state.counts == expected
    assert state.to_json()["counts"] == {**expected._asdict(), "text": text, "statements": text.split("; ")[1]}
    assert _progress(state).startswith(f"8 of 40 answered; {text.split('; ')[1]} · ")  # the terminal
    assert state.n_answered == expected.questions  # the header's count is the questions'
    assert summary(session)[0] == f"Saved in {tmp_path / 's.db'}: {text}."
    session.close()


def test_the_resume_message_says_the_same_count(iris_file, tmp_path):
    data_path, _ = iris_file
    run = CliRunner().invoke
    first = run(main, ["cluster", str(data_path), "--id-column", "name", "--ui", "terminal", "--param",
                       "max_queries=30"], input="s\nd\ns\nq\n")
    assert first.exit_code == 0, first.output
    saved = next(line for line in first.output.splitlines() if line.startswith("Saved in "))
    assert saved.endswith(": 3 questions answered.")
    again = run(main, ["cluster", str(data_path), "--session", str(tmp_path / "iris.linkwise.db"), "--ui",
                       "terminal"], input="q\n")
    assert again.exit_code == 0 and "(3 questions answered so far)" in again.output, again.output
    export = run(main, ["export", str(tmp_path / "iris.linkwise.db"), "-o", str(tmp_path / "l.csv"), "--answers",
                        str(tmp_path / "a.csv")])
    assert export.exit_code == 0 and "Wrote 3 rows to " in export.output, export.output
    assert f"{tmp_path / 'a.csv'} (3 questions answered)" in export.output


@pytest.mark.parametrize("counts, text", [(Counts(), "0 questions answered"), (Counts(1), "1 question answered"),
                                          (Counts(2, 0, 0, 1), "2 questions answered; 1 imported relation"),
                                          (Counts(0, 2, 3, 0), "0 questions answered; 2 moves, 3 marks")])
def test_describe_says_each_kind_with_its_plural(counts, text):
    assert describe(counts) == text


def test_the_review_lists_a_move_once_and_counts_as_the_header(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0, max_queries=40))
    answer_from(session, y, 5)
    strips = session.clusters()["strips"]
    moved = strips[1]["items"][0]["row"]
    session.move(session.position, moved, strips[0]["cluster"])
    view = session.review()
    counts = session.state().counts
    assert view["n_matching"] == counts.questions + counts.moves + counts.marks + counts.imports == 6
    (move,) = [a for a in view["answers"] if a["kind"] == "move"]
    assert moved in move["rows"] and move["answer"] == "same"  # the pair with its new cluster
    session.withdraw(move["seq"])  # the whole move goes
    assert not any(r.kind == "move" for r in session.store.answers())
    session.close()
