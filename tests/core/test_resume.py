"""Resume points: a session resumed from one is, answer by answer, the session replayed from the first question.

Every active estimator runs a script of a person's statements (answers, a "don't know", an imported pair, a
cluster marked pure, an item moved) on data with ties; after each statement the latest resume point is resumed,
the statements after it are replayed onto it, and the result must equal the live session in every respect a
person or a program sees: the pending question, the answers, the stated relations, the clustering, the stability
message, and at the end the labels history. Methods that never rest keep no point (and are always replayed).
"""

import numpy as np
import pytest

import linkwise as lw
from linkwise.resume import ResumePoint
from tests.reference import checked_classes, fast_instance


def _tied_iris():
    X, y = lw.datasets.load("iris", scale="minmax")
    X = np.round(X, 1)  # many rows tie
    return np.vstack([X, X[:10]]), np.concatenate([y, y[:10]])  # and ten are duplicated


def _script(y):
    """The statements, true to ``y``: (kind, argument) applied by :func:`_apply` in order."""
    zero, one, two = (np.flatnonzero(y == c) for c in range(3))
    return ([("tell", True)] * 3 + [("tell", None)] + [("tell", True)] * 2 + [("inform", (int(zero[-1]), int(two[-1])))]
            + [("tell", True)] * 3 + [("mark", zero[:15])] + [("tell", True)] * 2
            + [("move", (int(one[1]), int(one[0]), int(two[0])))] + [("tell", True)] * 4)


def _apply(session, event, y):
    kind, arg = event
    if kind == "tell":
        pair = session.ask()
        if pair is not None:
            session.tell(pair, None if arg is None else bool(y[pair[0]] == y[pair[1]]))
    elif kind == "inform":  # an imported cannot-link
        session.inform(*arg, False)
    elif kind == "mark":
        session.mark(arg)
    else:  # move item x from the cluster of a (cannot-link) to the one of b (must-link)
        x, b, a = arg
        session.inform(x, b, True, move=True)
        session.inform(x, a, False, move=True)


def _assert_same(resumed, live):
    assert resumed.ask() == live.ask()
    assert resumed.query_log == live.query_log and resumed.n_queries == live.n_queries
    assert resumed.informed == live.informed
    np.testing.assert_array_equal(resumed.labels_, live.labels_)
    assert resumed.stability_.message == live.stability_.message
    assert resumed.checking == live.checking


def _run_script(estimator, X, y, script):
    """The live session, and how many of its resume points were checked."""
    live = lw.ActiveSession(estimator, X, resume_points="every")
    checked = 0
    for step, event in enumerate(script):
        _apply(live, event, y)
        point = live.resume_point()
        if point is None:
            continue
        resumed = lw.ActiveSession.resume(point)
        # a point covers the calls up to its own (the first is the session's construction)
        for later in script[: step + 1][_events_before(script, point.calls - 1):]:
            _apply(resumed, later, y)
        _assert_same(resumed, live)
        checked += 1
    return live, checked


def _events_before(script, calls):
    """How many events of ``script`` make ``calls`` calls of the session (a move is two calls)."""
    made = 0
    for k, (kind, _) in enumerate(script):
        if made >= calls:
            return k
        made += 2 if kind == "move" else 1
    return len(script)


def _methods():
    """Every active estimator (fast parameters), Auto told K, and ActiveClustering with each strategy."""
    yield from ((cls.__name__, fast_instance(cls)) for cls in checked_classes())
    yield "Auto(n_clusters=3)", lw.Auto(n_clusters=3)
    for name in ("Random", "ExploreConsolidate", "NPU", "Committee"):
        yield f"ActiveClustering({name})", lw.ActiveClustering(lw.PCKMeans(n_clusters=3), getattr(lw.active, name)())


@pytest.mark.slow
@pytest.mark.parametrize("name, estimator", list(_methods()), ids=[name for name, _ in _methods()])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_session_resumed_from_any_point_is_the_session_replayed(name, estimator, seed):
    X, y = _tied_iris()
    order = np.random.RandomState(seed).permutation(len(y))  # shuffled rows: another order of ties
    X, y = X[order], y[order]
    params = {"random_state": seed}
    if "max_queries" in estimator.get_params():
        params["max_queries"] = 30
    estimator = estimator.set_params(**params)
    script = _script(y)
    live, checked = _run_script(estimator, X, y, script)
    if not _rests(estimator):
        assert checked == 0  # it never rests: every resume is a replay from the start
        return
    assert checked >= len(script) - 2  # a point nearly after every statement
    # the whole history as well: the resumed session finishes with the live one's labels_history_
    resumed = lw.ActiveSession.resume(live.resume_point())
    for later in script[_events_before(script, live.resume_point().calls - 1):]:
        _apply(resumed, later, y)
    a, b = resumed.finish(), live.finish()
    np.testing.assert_array_equal(a.labels_, b.labels_)
    if a.anytime:
        np.testing.assert_array_equal(np.asarray(a.labels_history_), np.asarray(b.labels_history_))


def _rests(estimator):
    """The methods that yield Rest (the others are replayed from the start)."""
    return type(estimator).__name__ in {"Auto", "COBRAS", "NoiseRobustCOBRAS", "ActiveCOBS", "BayesianActiveClustering"}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auto_resumed_after_its_hand_over_is_the_session_replayed(seed):
    # column_2C: the answers reject every clustering and Bayesian active clustering takes over the questions
    X, y = lw.datasets.load("column_2C", scale="minmax")
    order = np.random.RandomState(seed).permutation(len(y))
    X, y = X[order], y[order]
    live, checked = _run_script(lw.Auto(max_queries=40, random_state=seed), X, y, [("tell", True)] * 40)
    assert live.estimator_.bayes_at_ is not None
    state = live.resume_point().state()
    assert state["_ctx"].state["auto"] == "bayes" and checked == 40


def test_a_point_written_for_another_process_needs_the_same_data(iris):
    X, y = iris
    session = lw.ActiveSession(lw.COBRAS(max_queries=10, random_state=0), X, resume_points="every")
    while session.n_queries < 3 or session.resume_point(current=True) is None:  # a point of the state now
        pair = session.ask()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    data = session.resume_point().dumps()
    assert ResumePoint.loads(data, X + 1.0) is None  # other data: no point
    again = lw.ActiveSession.resume(ResumePoint.loads(data, X))
    _assert_same(again, session)


def test_resume_refuses_what_is_not_a_point():
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'point' argument of ActiveSession.resume"):
        lw.ActiveSession.resume("point")
    X, _ = lw.datasets.load("iris", scale="minmax")
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'resume_points' argument of ActiveSession"):
        lw.ActiveSession(lw.COBRAS(), X, resume_points="sometimes")
