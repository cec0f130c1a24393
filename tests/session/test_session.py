"""HumanSession: persistence, replay, undo, one answer per question, contradictions."""

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import linkwise as lw
from linkwise._validation import InvalidParameterError
from linkwise.session import HumanSession, Refused, SessionFileError, load_data
from tests.e2e.helpers import Scripted, answer_from
from tests.reference import ClosestPairsFirst, checked_classes, fast_instance


def test_default_method_is_cobras_with_a_stored_seed(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data)
    assert type(session.estimator) is lw.COBRAS
    seed = session.estimator.random_state
    assert isinstance(seed, int)
    assert session.store.meta["method"] == "cobras"
    assert session.store.meta["params"]["random_state"] == seed
    session.close()


def test_reopening_resumes_exactly_and_never_asks_again(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS())
    asked = answer_from(session, y, 8)
    position, labels = session.state().position, session.labels().copy()
    session.close()

    again = HumanSession(tmp_path / "s.db", data)  # method and seed come from the file
    assert again.state().position == position
    assert again.state().n_answered == 8
    np.testing.assert_array_equal(again.labels(), labels)
    later = answer_from(again, y, 5)
    assert not set(map(frozenset, later)) & set(map(frozenset, asked))
    # the labels are those of the method run directly with the same answers
    direct = lw.COBRAS(random_state=again.estimator.random_state, max_queries=13).fit(data.X, lw.LabelOracle(y))
    assert [(i, j) for i, j, _ in direct.query_log_] == asked + later
    assert lw.metrics.ari(direct.labels_, again.labels()) == 1.0
    again.close()


def active_methods():
    """Every active estimator in the library (discovered: a renamed one cannot drop out), and a test method."""
    return [ClosestPairsFirst()] + [fast_instance(cls) for cls in checked_classes()]


@pytest.mark.slow
@pytest.mark.parametrize("method", active_methods(), ids=lambda m: type(m).__name__)
def test_every_active_method_resumes_to_the_direct_run(tmp_path, method):
    X, y = lw.datasets.load("wine")
    X, y = X[::3], y[::3]  # small: 60 rows
    frame = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    frame.to_csv(tmp_path / "wine.csv", index=False)
    data = load_data(tmp_path / "wine.csv")
    session = HumanSession(tmp_path / "s.db", data, method)
    n = 0
    for _ in range(6):
        state = session.state()
        if state.question is None:
            break
        i, j = state.question.pair
        session.answer(state.position, bool(y[i] == y[j]))
        n += 1
    labels, position = session.labels().copy(), session.state().position
    session.close()
    again = HumanSession(tmp_path / "s.db", data, trusted_method=session.store.meta["method"])  # test methods too
    assert again.state().n_answered == n and again.state().position == position
    np.testing.assert_array_equal(again.labels(), labels)
    if "max_queries" in again.estimator.get_params():
        direct = clone(again.estimator).set_params(max_queries=n).fit(data.X, lw.LabelOracle(y))
        assert lw.metrics.ari(direct.labels_, labels) == 1.0
    again.close()


def test_undo_removes_the_last_answer_and_asks_it_again(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=1))
    asked = answer_from(session, y, 4)
    state = session.undo(session.state().position)
    assert state.n_answered == 3
    assert tuple(state.question.pair) == asked[-1]
    assert [r["reason"] for r in session.store.retracted()] == ["undone"]
    assert len(session.store.answers()) == 3
    with pytest.raises(Refused, match="already been answered"):
        session.undo("4.0-1")  # a stale undo (a second click, another tab) does nothing
    assert session.state().n_answered == 3
    session.close()


def test_an_answer_is_taken_once(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    shown = session.state()  # two windows show this question
    session.answer(shown.position, True)
    with pytest.raises(Refused, match="already been answered"):
        session.answer(shown.position, False)
    assert [a.answer for a in session.store.answers()] == [True]
    refused = (r"^The 'answer' argument of HumanSession.answer must be an instance of 'bool' or an instance of "
               r"'numpy.bool' or None\. Got 'yes' instead\.$")
    with pytest.raises(InvalidParameterError, match=refused):
        session.answer(session.state().position, "yes")
    session.close()


def test_dont_know_is_stored_replayed_and_not_asked_again(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    first = session.state()
    session.answer(first.position, None)
    asked = answer_from(session, y, 3)
    assert tuple(first.question.pair) not in asked
    session.close()
    again = HumanSession(tmp_path / "s.db", data)
    assert again.state().n_answered == 4
    assert again.store.answers()[0].answer is None
    again.close()


def test_refuses_other_data_options_or_method(iris_data, tmp_path):
    data, y = iris_data
    path = tmp_path / "s.db"
    session = HumanSession(path, data, lw.COBRAS(max_queries=20))
    answer_from(session, y, 2)
    session.close()

    frame = pd.read_csv(data.path)
    frame.loc[0, "petal_width"] = 9.0
    changed = tmp_path / "changed.csv"
    frame.to_csv(changed, index=False)
    with pytest.raises(SessionFileError, match="was made for other data: .*iris.csv"):
        HumanSession(path, load_data(changed, id_column="name"))
    with pytest.raises(SessionFileError, match=r"other feature options \(features: None -> \['petal_width'\]\)"):
        HumanSession(path, load_data(data.path, id_column="name", features=["petal_width"]))
    with pytest.raises(SessionFileError, match=r"window=0.1 \(asked: 0.2\)"):
        HumanSession(path, data, lw.COBRAS(max_queries=20, window=0.2))
    with pytest.raises(SessionFileError, match=r"max_queries=20 \(asked: 50\).*raise the budget on the page"):
        HumanSession(path, data, lw.COBRAS(max_queries=50))  # the budget is the session's (raise_budget)
    budgeted = HumanSession(path, data, lw.COBRAS())  # a method given without a budget continues with the stored one
    assert budgeted.budget == 20 and budgeted.state().n_answered == 2
    budgeted.close()
    with pytest.raises(SessionFileError, match="made with method 'cobras', not 'tests.reference:ClosestPairsFirst'"):
        HumanSession(path, data, ClosestPairsFirst())
    # the same method with random_state=None adopts the stored seed
    same = HumanSession(path, data, lw.COBRAS(max_queries=20))
    assert same.state().n_answered == 2
    same.close()
    assert len(sqlite3.connect(path).execute("SELECT * FROM answers").fetchall()) == 2


def test_a_file_from_before_a_parameter_existed_resumes_with_its_default(iris_data, tmp_path):
    data, y = iris_data
    path = tmp_path / "s.db"
    session = HumanSession(path, data, lw.COBRAS(max_queries=20, random_state=0))
    answer_from(session, y, 2)
    session.close()
    with sqlite3.connect(path) as db:  # as an older linkwise wrote it: COBRAS had no metric, window, cache
        db.execute("UPDATE meta SET value = ? WHERE key = 'params'", (json.dumps({"max_queries": 20, "random_state": 0}),))
    with pytest.raises(SessionFileError, match=r"metric='euclidean' \(asked: 'dtw'\)"):
        HumanSession(path, data, lw.COBRAS(max_queries=20, metric="dtw"))
    same = HumanSession(path, data, lw.COBRAS(max_queries=20))
    assert same.state().n_answered == 2
    same.close()


def test_a_failed_start_leaves_no_session_file(iris_data, tmp_path):
    data, _ = iris_data
    with pytest.raises(InvalidParameterError, match="max_queries"):
        HumanSession(tmp_path / "s.db", data, lw.COBRAS(max_queries=-1))
    with pytest.raises(InvalidParameterError, match="random_state.*a session file stores only"):
        HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=np.random.RandomState(0)))
    with pytest.raises(InvalidParameterError, match=r"^The 'estimator' argument of HumanSession must be an instance of 'linkwise.loop.ActiveEstimator'\. "
                       r"Got PCKMeans\(n_clusters=3\) instead\.$"):
        HumanSession(tmp_path / "s.db", data, lw.PCKMeans(n_clusters=3))
    assert list(tmp_path.glob("s.db*")) == []


def test_budget_end_and_exports(iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(max_queries=3, random_state=0))
    answer_from(session, y, 3)
    state = session.state()
    assert state.done and state.question is None
    with pytest.raises(Refused, match="no question left"):
        session.answer(state.position, True)
    k = session.write_labels(tmp_path / "labels.csv")
    labels = pd.read_csv(tmp_path / "labels.csv")
    assert list(labels.columns) == ["id", "cluster", "name"] and labels["id"].tolist() == data.ids.tolist()
    assert labels["cluster"].nunique() == k == state.n_clusters
    assert (labels["cluster"].to_numpy() == session.numbers()).all() and labels["cluster"].min() >= 1  # stable numbers
    session.undo(state.position)
    answers = session.answers_frame()
    assert answers["status"].tolist() == ["live", "live", "undone"]
    assert answers["answer"].isin(["same", "different"]).all()
    assert answers["id_a"].str.startswith("flower-").all()
    session.close()


# -- contradictions (a method re-asks a pair: linkwise.loop.Recheck) ------------------------


def points_csv(tmp_path):
    frame = pd.DataFrame({"x": [0.0, 0.1, 0.2, 5.0, 5.1], "label": ["a", "b", "c", "d", "e"]})
    frame.to_csv(tmp_path / "p.csv", index=False)
    return load_data(tmp_path / "p.csv", id_column="label")


@pytest.mark.parametrize("tolerant", [True, False])
@pytest.mark.parametrize("keep", ["first", "second"])
def test_a_contradicting_answer_is_shown_and_the_person_keeps_one(tmp_path, tolerant, keep):
    data = points_csv(tmp_path)
    method = Scripted(script=[[0, 1], [1, 3], [0, 1, "recheck"], [2, 3]], tolerant=tolerant, random_state=0)
    session = HumanSession(tmp_path / "s.db", data, method)
    for answer in (True, False):
        session.answer(session.state().position, answer)
    state = session.answer(session.state().position, False)  # contradicts "same" for (0, 1)
    conflict = state.conflict
    assert state.question is None and not state.done
    assert conflict.pair == (0, 1) and conflict.believed == conflict.clustering == "same"
    assert [(a.ids, a.answer, a.new) for a in conflict.answers] == [
        (("a", "b"), "same", False), (("a", "b"), "different", True)]
    with pytest.raises(Refused, match="Resolve the contradiction first"):
        session.answer(state.position, True)
    # nothing is lost while it is open: a restart shows the same contradiction
    session.close()
    session = HumanSession(tmp_path / "s.db", data, trusted_method="tests.e2e.helpers:Scripted")
    assert session.state().conflict == conflict

    kept = conflict.answers[0] if keep == "first" else conflict.answers[1]
    wrong = conflict.answers[1] if keep == "first" else conflict.answers[0]
    state = session.resolve(conflict.id, wrong.seq)
    assert state.conflict is None
    live = {a.seq: a.answer for a in session.store.answers()}
    kept_answer = kept.answer == "same"
    assert live[kept.seq] == live[wrong.seq] == kept_answer  # the wrong one now agrees
    assert [r["reason"] for r in session.store.retracted()] == ["corrected"]
    assert state.n_answered == 3
    if kept_answer:
        assert state.question.pair == (2, 3)  # the recheck is answered; the script goes on
    else:
        # the method now starts from a-b "different"; the answers it can reuse are replayed
        assert state.question is not None or state.done
    with pytest.raises(Refused, match="already been resolved"):
        session.resolve(conflict.id, wrong.seq)
    session.close()


def test_a_contradiction_through_other_answers_lists_the_whole_cycle(tmp_path):
    data = points_csv(tmp_path)
    method = Scripted(script=[[0, 1], [1, 2], [0, 2, "recheck"], [3, 4]], random_state=0)
    session = HumanSession(tmp_path / "s.db", data, method)
    for answer in (True, True):
        session.answer(session.state().position, answer)
    conflict = session.answer(session.state().position, False).conflict
    assert conflict.believed == "same"
    assert [(a.ids, a.answer) for a in conflict.answers] == [
        (("a", "b"), "same"), (("b", "c"), "same"), (("a", "c"), "different")]
    with pytest.raises(Refused, match="not part of this contradiction"):
        session.resolve(conflict.id, 999)
    state = session.resolve(conflict.id, conflict.answers[1].seq)  # b-c was wrong
    assert state.conflict is None and state.question.pair == (3, 4)
    assert session.labels()[0] == session.labels()[1] != session.labels()[2]
    # undo during a contradiction removes the contradicting answer
    session.close()


def test_undo_during_a_contradiction_drops_the_new_answer(tmp_path):
    data = points_csv(tmp_path)
    session = HumanSession(tmp_path / "s.db", data, Scripted(script=[[0, 1], [0, 1, "recheck"]], random_state=0))
    session.answer(session.state().position, True)
    state = session.answer(session.state().position, False)
    assert state.conflict is not None and state.can_undo
    state = session.undo(state.position)
    assert state.conflict is None and state.question.pair == (0, 1) and state.n_answered == 1
    session.close()


def test_cannot_link_contradiction_is_explained_through_the_cannot_link(tmp_path):
    data = points_csv(tmp_path)
    script = [[0, 1], [3, 4], [1, 3], [0, 4, "recheck"]]
    session = HumanSession(tmp_path / "s.db", data, Scripted(script=script, random_state=0))
    for answer in (True, True, False):
        session.answer(session.state().position, answer)
    conflict = session.answer(session.state().position, True).conflict
    assert conflict.believed == "different"
    assert [a.ids for a in conflict.answers] == [("a", "b"), ("b", "d"), ("d", "e"), ("a", "e")]
    session.close()


@pytest.mark.slow
def test_noise_robust_cobras_contradictions_reach_the_person(iris_data, tmp_path):
    robust = pytest.importorskip("linkwise.cobra")
    data, y = iris_data
    oracle = lw.LabelOracle(y, noise=0.15, random_state=1)  # a person who gets 15% of answers wrong
    session = HumanSession(tmp_path / "s.db", data, robust.NoiseRobustCOBRAS(noise_probability=0.1, random_state=0))
    settled = 0
    for _ in range(60):
        state = session.state()
        conflict = state.conflict
        if conflict is not None:
            # the person looks again and sees which answer was wrong
            wrong = [a for a in conflict.answers if (a.answer == "same") != (y[a.rows[0]] == y[a.rows[1]])]
            session.resolve(conflict.id, wrong[0].seq)
            settled += 1
            continue
        if state.done:
            break
        i, j = state.question.pair
        session.answer(state.position, oracle.query(i, j))
    assert settled >= 1
    assert len(session.store.retracted()) == settled
    assert lw.metrics.ari(y, session.labels()) > 0.6
    position, labels = session.state().position, session.labels().copy()
    session.close()
    again = HumanSession(tmp_path / "s.db", data)
    assert again.state().position == position
    np.testing.assert_array_equal(again.labels(), labels)
    again.close()
