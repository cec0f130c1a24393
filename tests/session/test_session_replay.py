"""HumanSession replays every kind of stored statement in order: answers, imported pairs, cluster feedback."""

import dataclasses

import numpy as np
import pytest

import linkwise as lw
from linkwise.session import HumanSession
from tests.e2e.helpers import answer_from


def test_every_kind_is_replayed_in_order_and_resumes_identically(iris_data, tmp_path):
    data, y = iris_data
    path = tmp_path / "s.db"
    session = HumanSession(path, data, lw.COBRAS(random_state=0))
    answer_from(session, y, 3)
    setosa = np.flatnonzero(y == 0)
    imported = session.store.record_many([(0, 60, False), (60, 120, bool(y[60] == y[120]))], kind="imported")
    mark = session.store.record_mark(setosa, complete=True, annotator="ann")
    state = session._applied([*imported, mark])
    assert state.n_answered == 3  # statements outside the questions are not questions
    assert session._replay.session.constraints.relation(int(setosa[-1]), 100) is False
    labels = session.labels()
    assert len(set(labels[setosa])) == 1
    more = answer_from(session, y, 5)
    assert all(not (y[i] == 0 and y[j] == 0) for i, j in more)  # the marked cluster is never asked about
    state = session.state()
    session.close()

    again = HumanSession(path, data)  # replayed from the file: the same state
    assert again.state() == dataclasses.replace(state, revision=again.state().revision)
    kinds = [(a.kind, a.annotator) for a in again.store.answers()]
    assert kinds == [("question", None)] * 3 + [("imported", None)] * 2 + [("complete", "ann")] + [("question", None)] * 5
    frame = again.answers_frame()
    assert frame.loc[frame["kind"] == "complete", "members"].item().startswith("[")
    again.close()


@pytest.mark.parametrize("stated", [False, True])
def test_feedback_that_contradicts_an_answer_is_shown_and_can_be_withdrawn(iris_data, tmp_path, stated):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    while True:  # up to the first answer "same" (stated) or "different"
        ((i, j),) = answer_from(session, y, 1)
        if bool(y[i] == y[j]) == stated:
            break
    # "pure" joins a pair answered different; "complete" around one of a pair answered same parts it
    before = session.state()
    mark = session.store.record_mark([i] if stated else [i, j], complete=stated)
    conflict = session._applied([mark]).conflict
    assert conflict is not None and conflict.id == mark.seq
    assert {a.kind for a in conflict.answers} == {"question", mark.kind}
    state = session.resolve(conflict.id, mark.seq)  # the feedback was wrong: it is withdrawn, the answer stays
    assert state.conflict is None and state.position == before.position
    assert {a.kind for a in session.store.answers()} == {"question"}
    assert [r["kind"] for r in session.store.retracted()] == [mark.kind]
    session.close()


def test_a_mark_contradicting_through_its_own_pairs_opens_a_contradiction(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    session.store.record_many([(3, 4, False)], kind="imported")  # 3 and 4 apart: a mark joining them cannot hold
    mark = session.store.record_mark([2, 3, 4], complete=False)  # each of 2-3, 2-4 alone fits; together they join 3-4
    session.close()
    session = HumanSession(tmp_path / "s.db", data)
    conflict = session.state().conflict
    assert conflict.id == mark.seq
    assert [(a.kind, a.rows, a.answer, a.new) for a in conflict.answers] == [
        ("pure", (2, 3), "same", False), ("imported", (3, 4), "different", False), ("pure", (2, 4), "same", True)]
    state = session.resolve(conflict.id, mark.seq)
    assert state.conflict is None and [a.kind for a in session.store.answers()] == ["imported"]
    session.close()
