"""HumanSession.state() is one declared value (SessionState), and its to_json() is the one form the page and the
notebook widget read."""

import dataclasses
import json

import pandas as pd
import pytest

import linkwise as lw
from linkwise.session import (
    Contradiction,
    ContradictionAnswer,
    HumanSession,
    Question,
    SessionState,
    TeamView,
    load_data,
)
from tests.e2e.helpers import Scripted, answer_from

OPTIONAL = {"team", "undone", "changed", "withdrawn"}  # in the JSON only when set


def _fields(cls):
    return {f.name for f in dataclasses.fields(cls)}


def _round_trip(state):
    """The JSON text the page receives, read back."""
    return json.loads(json.dumps(state.to_json()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_state_is_frozen_and_its_json_holds_every_field(iris_data, tmp_path, seed):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed))
    answer_from(session, y, 4)
    state = session.state()
    assert isinstance(state, SessionState) and isinstance(state.question, Question)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.n_answered = 0
    assert not hasattr(state, "__dict__")  # slotted: a misspelt field cannot be set
    shown = _round_trip(state)
    assert set(shown) == _fields(SessionState) - OPTIONAL
    assert shown["question"] == {"pair": list(state.question.pair), "number": 5,
                                 "items": list(state.question.items), "check": state.question.check}
    assert shown["stability"] == state.stability._asdict() and shown["n_answered"] == state.n_answered == 4
    assert shown["counts"] == {"questions": 4, "moves": 0, "marks": 0, "imports": 0,
                               "text": "4 questions answered", "statements": ""}
    undone = session.undo(state.position)
    assert undone.undone and _round_trip(undone)["undone"] == undone.undone
    assert undone.n_answered == 3 and set(_round_trip(undone)) == _fields(SessionState) - OPTIONAL | {"undone"}
    session.close()


def test_a_change_and_a_withdrawal_say_what_they_did(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    answer_from(session, y, 3)
    first, last = session.store.answers()[0], session.store.answers()[-1]
    changed = session.change(first.seq, not first.answer)
    assert changed.changed.endswith(f" -> {'different' if first.answer else 'same'}")
    assert changed.undone is None and changed.withdrawn is None
    withdrawn = session.withdraw(last.seq)
    assert withdrawn.withdrawn and withdrawn.changed is None
    assert _round_trip(withdrawn)["withdrawn"] == withdrawn.withdrawn and "changed" not in _round_trip(withdrawn)
    session.close()


def test_a_contradiction_is_declared_and_serialised_as_the_page_reads_it(tmp_path):
    pd.DataFrame({"x": [0.0, 0.1, 0.2, 5.0, 5.1], "label": list("abcde")}).to_csv(tmp_path / "p.csv", index=False)
    data = load_data(tmp_path / "p.csv", id_column="label")
    session = HumanSession(tmp_path / "s.db", data, Scripted(script=[[0, 1], [1, 3], [0, 1, "recheck"]],
                                                             random_state=0))
    for answer in (True, False, False):
        state = session.answer(session.position, answer)
    conflict = state.conflict
    assert isinstance(conflict, Contradiction) and state.question is None
    assert all(isinstance(a, ContradictionAnswer) for a in conflict.answers)
    assert [(a.ids, a.answer, a.new) for a in conflict.answers] == [(("a", "b"), "same", False),
                                                                   (("a", "b"), "different", True)]
    shown = _round_trip(state)["conflict"]
    assert set(shown) == _fields(Contradiction) and all(set(a) == _fields(ContradictionAnswer)
                                                        for a in shown["answers"])
    assert shown["pair"] == [0, 1] and shown["answers"][1] == {**dataclasses.asdict(conflict.answers[1]),
                                                              "rows": [0, 1], "ids": ["a", "b"]}
    session.close()


@pytest.mark.parametrize("who", ["alice", "bob"])
def test_a_team_members_state_carries_their_view_of_the_team(iris_data, tmp_path, who):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0), annotators=["alice", "bob"])
    state = session.state(who)
    i, j = state.question.pair
    state = session.answer(state.position, bool(y[i] == y[j]), who)
    assert isinstance(state.team, TeamView) and (state.team.annotator, state.team.n_mine) == (who, 1)
    shown = _round_trip(state)
    assert set(shown) == _fields(SessionState) - OPTIONAL | {"team"}
    assert shown["team"] == {**dataclasses.asdict(state.team), "annotators": ["alice", "bob"]}
    assert session.state().team.annotator is None and session.state().question is None  # nobody's
    session.close()


def test_the_page_reads_the_states_json_and_its_own_fields(live, iris_data):
    data, y = iris_data
    server, session = live(data)
    answer_from(session, y, 2)
    page = server.client().get("/api/state").json()
    state = session.state()
    assert set(page) == set(state.to_json()) | {"labels", "dropped_columns", "about"}
    expected = _round_trip(state)
    # the page's items carry their point on the map and their cluster's number beside the state's
    assert [{k: item[k] for k in ("row", "id")} for item in page["question"].pop("items")] == [
        {k: item[k] for k in ("row", "id")} for item in expected["question"].pop("items")]
    assert {k: page[k] for k in expected} == expected
