import copy
import itertools
import pickle
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

import linkwise as lw
from linkwise.loop import ActiveEstimator, Checkpoint, Recheck
from linkwise.repair import AnswerGraph
from tests.reference import ClosestPairsFirst


@pytest.fixture
def blobs():
    X, y = make_blobs(n_samples=30, centers=3, cluster_std=0.3, random_state=0)
    return X, y


def test_fit_recovers_labels_and_never_asks_known_pairs(blobs):
    X, y = blobs
    oracle = lw.LabelOracle(y)
    est = ClosestPairsFirst().fit(X, oracle)
    assert lw.metrics.ari(y, est.labels_) == 1.0
    asked = [(i, j) for i, j, _ in est.query_log_]
    assert len(set(map(frozenset, asked))) == len(asked)
    # replaying the log pair by pair: no asked pair was inferable from the answers before it
    store = lw.ConstraintStore(len(y))
    for i, j, answer in est.query_log_:
        assert store.relation(i, j) is None
        store.add(i, j, answer)
    # far fewer than all 435 pairs: transitivity and entailment answer the rest
    assert est.n_queries_ == oracle.n_queries < 100
    assert est.labels_history_.shape == (est.n_queries_, len(y))


def test_budget_is_owned_by_the_loop(blobs):
    X, y = blobs
    est = ClosestPairsFirst(max_queries=7).fit(X, lw.LabelOracle(y))
    assert est.n_queries_ == 7 and len(est.query_log_) == 7
    assert len(est.constraints_) == 7


def test_tell_rejects_wrong_pair_and_bad_answer(blobs):
    X, y = blobs
    session = lw.ActiveSession(ClosestPairsFirst(), X)
    i, j = session.ask()
    with pytest.raises(ValueError, match="pending question"):
        session.tell((i, (j + 1) % 30 if (j + 1) % 30 != i else (j + 2) % 30), True)
    with pytest.raises(TypeError, match="'answer'"):
        session.tell((i, j), "yes")
    assert session.n_queries == 0 and len(session.constraints) == 0
    session.tell((j, i), True)  # either order is the pending question
    assert session.n_queries == 1 and session.query_log == [(i, j, True)]


def test_bad_inputs_name_the_argument(blobs):
    X, y = blobs
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ClosestPairsFirst().fit(Xn, lw.LabelOracle(y))
    with pytest.raises(TypeError, match="'oracle'"):
        ClosestPairsFirst().fit(X, y)
    with pytest.raises(ValueError, match="'queryable'.*out of\\s+range"):
        ClosestPairsFirst().fit(X, lw.LabelOracle(y), queryable=[0, 99])
    with pytest.raises(ValueError, match=r"'max_queries' parameter of ClosestPairsFirst must be an int in the range \[0, inf\) or None"):
        ClosestPairsFirst(max_queries=-1).fit(X, lw.LabelOracle(y))
    with pytest.raises(TypeError, match=r"^The 'estimator' argument of ActiveSession must be an instance of 'linkwise.loop.ActiveEstimator'\."):
        lw.ActiveSession(object(), X)


class _Doubter(ActiveEstimator):
    """Asks one pair, then asks for it to be confirmed."""

    def __init__(self, *, random_state=None):
        self.random_state = random_state

    def tolerates_contradictions(self):
        return True

    def questions(self, ctx):
        first = yield (0, 1)
        second = yield Recheck(0, 1)
        ctx.labels = np.array([0, 0 if first and second else 1, 2])


def test_recheck_asks_a_known_pair_again():
    answers = iter([True, False])
    est = _Doubter().fit(np.eye(3), lw.CallbackOracle(lambda i, j: next(answers)))
    assert [a for *_, a in est.query_log_] == [True, False]
    assert est.constraints_.conflicts == [lw.constraints.Constraint(0, 1, False)]
    assert est.labels_.tolist() == [0, 1, 2]


def test_method_asking_outside_queryable_is_caught():
    class Bad(_Doubter):
        def questions(self, ctx):
            yield (0, 2)

    with pytest.raises(RuntimeError, match="queryable"):
        Bad().fit(np.eye(3), lw.LabelOracle([0, 0, 1]), queryable=[0, 1])


class _FailsOnSecondAnswer(ActiveEstimator):
    """Asks (0, 1), (0, 2), (0, 3); its clustering step raises on the second answer, as a clusterer may."""

    anytime = True

    def __init__(self, *, random_state=None):
        self.random_state = random_state

    def questions(self, ctx):
        for n, j in enumerate((1, 2, 3)):
            yield 0, j
            if n == 1:
                raise ArithmeticError("the clusterer failed")
            ctx.labels = ctx.constraints.component_labels()


def test_a_method_failing_on_an_answer_keeps_it_once_and_ends_the_session():
    session = lw.ActiveSession(_FailsOnSecondAnswer(), np.eye(4))
    session.tell(session.ask(), True)
    with pytest.raises(ArithmeticError, match="clusterer failed") as info:
        session.tell(session.ask(), False)
    assert "answer to (0, 2) was kept" in "\n".join(info.value.__notes__)
    # no stale question: the pair cannot be answered (and charged, and logged) a second time
    assert session.ask() is None and session.done and session.error is info.value
    with pytest.raises(RuntimeError, match="No question is pending"):
        session.tell((0, 2), False)
    assert session.n_queries == 2 and session.query_log == [(0, 1, True), (0, 2, False)]
    fitted = session.finish()
    assert fitted.query_log_ == session.query_log and len(fitted.constraints_) == 2
    assert fitted.labels_.tolist() == [0, 0, 1, 2]  # as the method left it, after the first answer
    assert fitted.labels_history_.shape == (2, 4)


def test_fit_keeps_the_answers_when_the_method_fails():
    est = _FailsOnSecondAnswer()
    with pytest.raises(ArithmeticError):
        est.fit(np.eye(4), lw.LabelOracle([0, 0, 1, 1]))
    assert est.query_log_ == [(0, 1, True), (0, 2, False)] and est.n_queries_ == 2
    assert len(est.constraints_) == 2


def test_a_session_refuses_pickling_and_says_to_replay(blobs):
    X, y = blobs
    session = lw.ActiveSession(ClosestPairsFirst(max_queries=5, random_state=0), X)
    session.tell(session.ask(), True)
    for copy_it in (pickle.dumps, copy.deepcopy, copy.copy):
        with pytest.raises(TypeError, match=r"cannot be pickled or copied.*replay"):
            copy_it(session)
    # and the replay the message describes does resume it
    resumed = lw.ActiveSession(ClosestPairsFirst(max_queries=5, random_state=0), X)
    assert resumed.replay({(i, j): a for i, j, a in session.query_log}) == 1
    assert resumed.ask() == session.ask()


class _SecondOpinion:
    """A knowledge that has every must-link confirmed, and believes the confirmation."""

    def __init__(self, store):
        self.store = store
        self.weighed = []

    def weigh(self, ctx, answered=None):
        self.weighed.append(answered)
        if answered is None or not answered[2]:
            return False
        again = yield Recheck(*answered[:2])
        return again is False


class _Watcher(_Doubter):
    """Asks (0, 1) and (1, 2), noting after each whether its knowledge was revised, then ends a phase."""

    def knowledge(self, ctx):
        self.knowledge = _SecondOpinion(ctx.constraints)
        return self.knowledge

    def questions(self, ctx):
        self.revised = []
        for pair in ((0, 1), (1, 2)):
            revision = ctx.revision
            yield pair
            self.revised.append(ctx.revision - revision)
        yield Checkpoint()


def test_the_knowledge_weighs_each_answer_asks_through_the_loop_and_revision_tells_the_method():
    answers = iter([True, False, False])
    est = _Watcher().fit(np.eye(3), lw.CallbackOracle(lambda i, j: next(answers)))
    # the question it asks while weighing is asked and charged like any other, before the method is resumed
    assert est.query_log_ == [(0, 1, True), (0, 1, False), (1, 2, False)] and est.n_queries_ == 3
    assert est.revised == [1, 0]
    assert est.knowledge.weighed == [(0, 1, True), (1, 2, False), None]


def test_the_default_knowledge_is_the_store_of_answers(blobs):
    X, _ = blobs
    session = lw.ActiveSession(ClosestPairsFirst(max_queries=5, random_state=0), X)
    assert session._ctx.knowledge is session.constraints and session._ctx.log is session.query_log


# -- knowledge given outside the questions: inform and mark ----------------------------------------


def test_informed_pairs_are_never_asked_nor_charged(blobs):
    X, y = blobs
    session = lw.ActiveSession(ClosestPairsFirst(), X)
    i, j = session.ask()
    session.inform(i, j, bool(y[i] == y[j]))  # settles the pending question: the session moves on
    assert session.ask() != (i, j) and session.n_queries == 0 and session.query_log == []
    assert session.informed == [(i, j, bool(y[i] == y[j]))]
    rest = np.flatnonzero(y == y[0])
    for r in rest[1:]:
        session.inform(rest[0], r, True)
    while (pair := session.ask()) is not None:
        assert not (y[pair[0]] == y[pair[1]] == y[0])  # within an informed group nothing is asked
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    assert lw.metrics.ari(y, session.labels_) == 1.0


def test_mark_is_all_or_nothing_and_recorded(blobs):
    X, y = blobs
    session = lw.ActiveSession(ClosestPairsFirst(), X)
    session.inform(0, 1, False)
    with pytest.raises(lw.InconsistentConstraintError):
        session.mark([0, 5, 1])  # 0-5 alone would fit; 0-1 contradicts, so none is added
    assert len(session.constraints) == 1 and session.informed == [(0, 1, False)] and session._ctx.marks == []
    members = np.flatnonzero(y == y[2])
    session.mark(members[::-1], complete=True)
    (mark,) = session._ctx.marks
    assert mark.complete and mark.rows.tolist() == sorted(members.tolist())
    outside = np.setdiff1d(np.arange(len(y)), members)
    assert all(session.constraints.relation(members[-1], o) is False for o in outside)
    assert all(session.constraints.relation(members[0], m) is True for m in members[1:])
    for bad, match in (([], "empty"), ([0, 99], "out of range"), (["a"], "integer")):
        with pytest.raises(lw.exceptions.InvalidParameterError, match=match):
            session.mark(bad)
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'answer' argument of ActiveSession.inform"):
        session.inform(3, 4, "yes")
    with pytest.raises(lw.exceptions.InvalidParameterError, match="ActiveSession.inform"):
        session.inform(3, 3, True)


@pytest.mark.parametrize("method", [ClosestPairsFirst, lw.NoiseRobustCOBRAS])
def test_a_mark_states_its_pairs_as_informing_them_one_by_one_would(blobs, method):
    X, y = blobs
    marked, informed = (lw.ActiveSession(method(random_state=0), X) for _ in range(2))
    for session in (marked, informed):
        session.inform(3, 4, False)
    members = np.flatnonzero(y == y[3])
    marked.mark(members[::-1], complete=True)
    pairs = [(int(members[0]), int(r), True) for r in members[1:]]
    pairs += [(int(members[0]), int(o), False) for o in np.setdiff1d(np.arange(len(y)), members)]
    for pair in pairs:
        informed.inform(*pair)
    assert [type(v) for v in marked.informed[-1]] == [int, int, bool] and marked.informed == informed.informed
    (mark,) = marked._ctx.marks
    assert marked.informed[mark.start : mark.stop] == pairs and (mark.start, mark.stop) == (1, 1 + len(pairs))
    a, b = marked.constraints, informed.constraints
    assert a.constraints == b.constraints and a.conflicts == b.conflicts
    assert (a.component_labels() == b.component_labels()).all()
    assert (a.cannot_link_pairs(closure=True) == b.cannot_link_pairs(closure=True)).all()
    if method is lw.NoiseRobustCOBRAS:  # the belief took every pair
        assert marked._ctx.knowledge.graph.n_answers == informed._ctx.knowledge.graph.n_answers == 1 + len(pairs)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 9), st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8), st.booleans()), max_size=12),
       st.sets(st.integers(0, 8), min_size=1), st.booleans())
@pytest.mark.slow
def test_a_noisy_belief_takes_a_mark_as_its_pairs_one_by_one(n, earlier, rows, complete):
    X = np.random.default_rng(n).normal(size=(n, 3))
    one_by_one, grouped = (AnswerGraph(n, 0.1, X=X) for _ in range(2))
    for graph in (one_by_one, grouped):
        for i, j, answer in earlier:
            if i % n != j % n:
                graph.add(i % n, j % n, answer)
    rows = np.array(sorted({r % n for r in rows}))
    outside = np.setdiff1d(np.arange(n), rows) if complete else rows[:0]
    pairs = [(rows[0], r, True) for r in rows[1:]] + [(rows[0], o, False) for o in outside]
    assert grouped.add_group(rows, outside) == any([one_by_one.add(*pair) for pair in pairs])
    fields = ("_node_of", "_points", "_edge_of", "_ends", "_n_ml", "_n_cl", "_belief", "_dist", "n_answers", "_dirty")
    assert all(getattr(grouped, f) == getattr(one_by_one, f) for f in fields)
    a, b = grouped.store, one_by_one.store
    assert a.constraints == b.constraints and [a.find(i) for i in range(n)] == [b.find(i) for i in range(n)]
    assert all(a.relation(i, j) == b.relation(i, j) for i, j in itertools.combinations(range(n), 2))


def test_a_tolerant_knowledge_takes_informed_answers(blobs):
    X, y = blobs
    session = lw.ActiveSession(lw.NoiseRobustCOBRAS(random_state=0), X)
    session.inform(0, 1, bool(y[0] == y[1]))
    assert session._ctx.knowledge.graph.n_answers == 1
    assert session._ctx.knowledge.store.relation(0, 1) == bool(y[0] == y[1])


# -- one session, several threads (two people answering the same session) ------------------------------------
def _answer_all(session, y, errors):
    """One answering thread: answer until no question is left; errors other than losing a race go to ``errors``."""
    try:
        while (pair := session.ask()) is not None:
            try:
                session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
            except ValueError as error:  # another thread answered this question first
                assert "pending question" in str(error), error
            except RuntimeError as error:  # ... and it was the last one
                assert "No question is pending" in str(error), error
    except Exception as error:  # noqa: BLE001 - reported by the test
        errors.append(error)


def _answer_from_threads(session, y, n_threads):
    """Answer ``session`` from ``n_threads`` threads at once, a third kind reading its labels meanwhile; the
    errors other than a question answered first by another thread."""
    errors, stop = [], threading.Event()

    def reader():
        try:
            while not stop.is_set():
                assert session.labels_.shape == y.shape and session.stability_.n_answers <= session.n_queries
        except Exception as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=_answer_all, args=(session, y, errors)) for _ in range(n_threads)]
    threads.append(threading.Thread(target=reader))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the races show within a short run
    try:
        for thread in threads:
            thread.start()
        for thread in threads[:-1]:
            thread.join()
    finally:
        stop.set()
        threads[-1].join()
        sys.setswitchinterval(interval)
    return errors


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("method", [lw.COBRAS(max_queries=40), lw.NoiseRobustCOBRAS(max_queries=40),
                                    lw.ActiveClustering(lw.PCKMeans(n_clusters=3), lw.active.MinMax(), max_queries=15)],
                         ids=lambda m: type(m).__name__)
def test_threads_sharing_a_session_get_the_answers_of_one(method, seed):
    X, y = make_blobs(n_samples=120, centers=4, cluster_std=1.5, random_state=seed)
    method = method.set_params(random_state=seed)
    session = lw.ActiveSession(method, X)
    errors = _answer_from_threads(session, y, n_threads=3)
    assert not errors, errors
    assert session.error is None and session.done
    alone = method.fit(X, lw.LabelOracle(y))  # one thread: the same questions, each asked and answered once
    assert session.query_log == alone.query_log_
    np.testing.assert_array_equal(session.finish().labels_, alone.labels_)


# -- row indices that are no integers: refused, never rounded ------------------------------------------------
@pytest.mark.parametrize("bad", [(99.4, 115.4), (True, 3), ("1", "2"), (1.0, 2.0), (1,), (1, 2, 3), 5, None])
def test_tell_refuses_a_pair_of_non_integers_naming_pair(blobs, bad):
    X, y = blobs
    session = lw.ActiveSession(ClosestPairsFirst(), X)
    pending = session.ask()
    with pytest.raises(ValueError, match=r"^The 'pair' argument of ActiveSession.tell must be two int row indices"):
        session.tell(bad, True)
    assert session.ask() == pending and session.n_queries == 0 and len(session.constraints) == 0
    session.tell(tuple(np.array(pending[::-1], dtype=np.int32)), True)  # NumPy integers are rows
    assert session.query_log == [(*pending, True)]


@pytest.mark.parametrize("i, j, name", [(99.4, 3, "'i'"), (3, 15.0, "'j'"), (True, 3, "'i'"), (3, "4", "'j'")])
def test_inform_refuses_non_integer_rows_naming_them(blobs, i, j, name):
    session = lw.ActiveSession(ClosestPairsFirst(), blobs[0])
    with pytest.raises(ValueError, match=name):
        session.inform(i, j, True)
    assert session.informed == [] and len(session.constraints) == 0
    session.inform(np.int64(3), np.uint16(4), True)
    assert session.informed == [(3, 4, True)]


@pytest.mark.parametrize("rows", [[0.5, 3], [True, 3, 4], ["0", "3"], [2.0, 3.0]])
def test_mark_refuses_non_integer_rows_naming_rows(blobs, rows):
    session = lw.ActiveSession(ClosestPairsFirst(), blobs[0])
    with pytest.raises(ValueError, match="'rows'"):
        session.mark(rows)
    assert session.informed == [] and len(session.constraints) == 0
    session.mark(np.array([3, 0, 4], dtype=np.int16))
    assert session.informed == [(0, 3, True), (0, 4, True)]


@pytest.mark.parametrize("seed", [0, 1])
def test_replay_takes_the_answers_as_a_mapping_or_as_a_query_log(iris, seed):
    X, y = iris
    live = lw.ActiveSession(lw.COBRAS(max_queries=12, random_state=seed), X)
    while (pair := live.ask()) is not None:
        live.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    for answers in (live.query_log, {(j, i): a for i, j, a in live.query_log}):  # either order in a mapping
        again = lw.ActiveSession(lw.COBRAS(max_queries=12, random_state=seed), X)
        assert again.replay(answers) == 12 and again.query_log == live.query_log


@pytest.mark.parametrize("answers", [[(0, 1)], 5, [("a", "b", True)], {(0.5, 1): True}, None])
def test_replay_refuses_what_is_no_answers_in_one_line(iris, answers):
    session = lw.ActiveSession(lw.COBRAS(max_queries=5, random_state=0), iris[0])
    with pytest.raises(lw.exceptions.InvalidParameterError, match=r"^The 'answers' argument of ActiveSession.replay "
                       r"must be a mapping [^\n]*$"):
        session.replay(answers)
    assert session.n_queries == 0 and session.ask() is not None  # nothing told, the session goes on


@pytest.mark.parametrize("method", [
    lambda s: lw.COBRAS(max_queries=25, random_state=s),
    lambda s: lw.BayesianActiveClustering(3, n_particles=12, max_queries=8, random_state=s),
    lambda s: lw.ActiveClustering(lw.PCKMeans(n_clusters=3, random_state=s), lw.active.MinMax(), max_queries=12,
                                  random_state=s),
    lambda s: ClosestPairsFirst(random_state=s),
], ids=["cobras", "bayes", "pckmeans-minmax", "custom"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_labels_is_a_read_only_shared_view_of_labels_(method, seed):
    X, y = make_blobs(n_samples=90, centers=3, cluster_std=2.5, random_state=seed)
    order = np.random.RandomState(seed).permutation(len(y))  # shuffled rows
    X, y = X[order], y[order]
    session = lw.ActiveSession(method(seed), X)
    same_object = 0
    while (pair := session.ask()) is not None:
        before = session.labels()
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        shown = session.labels()
        assert not shown.flags.writeable and shown is session.labels()  # one array per state
        fresh = session.labels_
        np.testing.assert_array_equal(shown, fresh)
        fresh[:] = -1  # labels_ is the caller's: labels() does not change
        assert (session.labels() >= 0).all()
        same_object += shown is before
    session.inform(0, 1, bool(y[0] == y[1]))
    np.testing.assert_array_equal(session.labels(), session.labels_)
    if isinstance(session.estimator_, lw.COBRAS):
        assert same_object > 0  # COBRAS keeps its clustering's array while an answer changes nothing
