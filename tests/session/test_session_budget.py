"""A human session's budget (issue 28): "N of M", raising it, what more answers may change, why a check is asked."""

import pytest

import linkwise as lw
from linkwise._validation import InvalidParameterError
from linkwise.session import HumanSession
from linkwise.session.core._controller import DEFAULT_BUDGET
from linkwise.session.core._store import Refused, SessionFileError
from tests.e2e.helpers import answer_from


def test_a_new_session_has_a_budget_and_says_what_more_answers_may_change(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    state = session.state()
    assert (state.budget, state.n_asked, state.done_reason, state.outlook) == (DEFAULT_BUDGET, 0, None, "")
    answer_from(session, y, 12)
    state = session.state()
    estimate = state.stability
    assert state.n_asked == state.n_answered == 12
    assert state.outlook == estimate.outlook(DEFAULT_BUDGET - 12) and f"of the {DEFAULT_BUDGET - 12} left" in \
        state.outlook
    session.close()
    with pytest.raises(SessionFileError, match=r"max_queries=100 \(asked: 30\).*raise the budget"):
        HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0, max_queries=30))  # another budget: refused
    kept = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    assert kept.budget == DEFAULT_BUDGET  # stored with the session: an existing one keeps it
    kept.close()


@pytest.mark.parametrize("seed", [0, 1])
def test_a_spent_budget_ends_the_questions_and_raising_it_brings_them_back(iris_data, tmp_path, seed):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed, max_queries=8))
    asked = answer_from(session, y, 8)
    spent = session.state()
    assert spent.done and spent.question is None and spent.done_reason == "budget"
    assert (spent.n_asked, spent.budget) == (8, 8)
    raised = session.raise_budget(12)
    assert not raised.done and raised.done_reason is None and raised.budget == 12
    assert raised.n_asked == 8 and raised.question.number == 9
    asked += answer_from(session, y, 4)
    assert session.state().done_reason == "budget"
    session.close()
    again = HumanSession(tmp_path / "s.db", data)  # the raised budget is in the file
    assert again.budget == 12 and again.state().n_asked == 12 and again.state().done
    # the same questions as a session given the larger budget from the start
    direct = lw.ActiveSession(lw.COBRAS(random_state=seed, max_queries=12), data.X)
    for pair in asked:
        assert direct.ask() == pair
        direct.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    assert direct.ask() is None
    again.close()


@pytest.mark.parametrize("bad", [8, 5, 8.5, "20", True, None])
def test_a_bad_budget_names_the_argument_and_changes_nothing(iris_data, tmp_path, bad):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0, max_queries=8))
    answer_from(session, y, 3)
    before = session.state()
    with pytest.raises(InvalidParameterError, match="'budget'.*above the current budget \\(8\\)"):
        session.raise_budget(bad)
    assert session.state() == before and session.store.meta["params"]["max_queries"] == 8
    session.close()


def test_a_read_only_session_refuses_to_raise_its_budget(iris_data, tmp_path):
    data, y = iris_data
    HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0, max_queries=8)).close()
    viewer = HumanSession(tmp_path / "s.db", data, read_only=True)
    with pytest.raises(Refused, match="read-only"):
        viewer.raise_budget(20)
    viewer.close()


@pytest.mark.slow
def test_a_check_question_says_what_the_earlier_answers_imply(iris_data, tmp_path):
    data, y = iris_data
    checks = []
    for seed in range(4):
        session = HumanSession(tmp_path / f"{seed}.db", data, lw.NoiseRobustCOBRAS(random_state=seed, max_queries=40))
        given = lw.ConstraintStore(len(y))
        while (state := session.state()).question is not None:
            i, j = state.question.pair
            implied = given.relation(i, j)
            if implied is None:
                assert state.question.check is None
            else:
                words = "same group" if implied else "different groups"
                assert state.question.check == f"A check: your earlier answers imply {words}."
                checks.append(seed)
            given.add(i, j, bool(y[i] == y[j]))
            session.answer(state.position, bool(y[i] == y[j]))
        session.close()
    assert checks  # the method did check some answers


@pytest.mark.parametrize("body, status, message", [({"budget": 12.5}, 400, "must be a"),
                                                   ({"budget": "20"}, 400, "must be a"),
                                                   ({"budget": True}, 400, "must be a"), ({}, 400, "lacks the field"),
                                                   ({"budget": 4}, 400, "above the current budget (6)")])
def test_the_budget_route_refuses_bad_values_with_a_reason(live, iris_data, body, status, message):
    data, y = iris_data
    server, session = live(data, lw.COBRAS(random_state=0, max_queries=6))
    client = server.client()
    response = client.post("/api/budget", json=body)
    assert response.status_code == status and message in response.json()["error"]
    assert session.budget == 6 and session.store.meta["params"]["max_queries"] == 6


def test_the_budget_is_raised_over_http(live, iris_data):
    data, y = iris_data
    server, session = live(data, lw.COBRAS(random_state=0, max_queries=2))
    client = server.client()
    answer_from(session, y, 2)
    assert client.get("/api/state").json()["done_reason"] == "budget"
    state = client.post("/api/budget", json={"budget": 4}).json()["state"]
    assert (state["budget"], state["n_asked"], state["done"]) == (4, 2, False) and state["question"]["number"] == 3
