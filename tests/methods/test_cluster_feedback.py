"""Cluster feedback (issue 17): COBRAS and Auto honour marks and moves; LabelOracle gives feedback from labels."""

import numpy as np
import pytest

import linkwise as lw
from linkwise.exceptions import InvalidParameterError
from linkwise.oracle import ClusterAction


@pytest.fixture(scope="module")
def iris():
    return lw.datasets.load("iris", scale="minmax")


def answer(session, y, n):
    """Answer up to ``n`` questions from the labels; yields after each."""
    for _ in range(n):
        if (pair := session.ask()) is None:
            return
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        yield


def started(estimator, X, y, n):
    """A session of ``estimator`` after ``n`` true answers."""
    session = lw.ActiveSession(estimator, X)
    list(answer(session, y, n))
    return session


def together(labels, rows):
    return np.unique(labels[rows]).size == 1


@pytest.mark.parametrize("make", [lambda: lw.COBRAS(random_state=0), lambda: lw.NoiseRobustCOBRAS(random_state=0)],
                         ids=["COBRAS", "NoiseRobustCOBRAS"])
def test_pure_cluster_is_never_separated_nor_split(iris, make):
    X, y = iris
    session = started(make(), X, y, 6)
    labels = session.labels_
    rows = np.flatnonzero((labels == labels[np.flatnonzero(y == 1)[0]]) & (y == 1))
    session.mark(rows)
    assert together(session.labels_, rows)  # at once
    est = session.estimator_
    for _ in answer(session, y, 60):
        assert together(session.labels_, rows)
        # no super-instance inside the marked rows is split again: each stays whole
        inside = [sid for sid in est._tree.leaves() if np.isin(est._tree.members[sid], rows).all()]
        assert sum(est._tree.size[sid] for sid in inside) == rows.size


@pytest.mark.parametrize("cls", [0, 1])
def test_complete_cluster_never_gains_members(iris, cls):
    X, y = iris
    session = started(lw.COBRAS(random_state=1), X, y, 3)
    rows = np.flatnonzero(y == cls)
    session.mark(rows, complete=True)
    for _ in answer(session, y, 40):
        labels = session.labels_
        assert together(labels, rows)
        assert np.count_nonzero(labels == labels[rows[0]]) == rows.size


def misplaced(labels, y):
    """An item in a cluster where most rows have another class, a row of that majority, and a row of a cluster
    whose majority is the item's class."""
    for c in np.unique(labels):
        rows = np.flatnonzero(labels == c)
        major = np.bincount(y[rows]).argmax()
        for x in rows[y[rows] != major]:
            for d in np.unique(labels):
                other = np.flatnonzero(labels == d)
                if d != c and np.bincount(y[other]).argmax() == y[x]:
                    return x, rows[y[rows] == major][0], other[y[other] == y[x]][0]
    raise AssertionError("no misplaced item")


@pytest.mark.parametrize("seed, stored", [(0, False), (1, False), (0, True)])
def test_moved_item_lands_in_its_target_cluster(iris, seed, stored):
    X, y = iris
    session = started(lw.COBRAS(random_state=seed), X, y, 8)
    before = session.labels_
    x, a, b = misplaced(before, y)
    if stored:  # a session file may give a move's pairs either way round (smaller row first), in either order
        session.inform(int(a), int(x), False, move=True)
        _ = session.labels_  # read between the two halves: the first looks lone until the second comes
        session.inform(int(b), int(x), True, move=True)
    else:
        ClusterAction("move", np.array([x]), to=int(b), away=int(a)).apply(session)
    labels = session.labels_
    assert labels[x] == labels[b] and labels[x] != labels[a]
    # only the moved item changed cluster
    assert lw.metrics.ari(np.delete(before, x), np.delete(labels, x)) == 1.0
    for _ in answer(session, y, 30):
        labels = session.labels_
        assert labels[x] == labels[b] and labels[x] != labels[a]


@pytest.mark.parametrize("make", [lambda: lw.COBRAS(random_state=0), lambda: lw.COBRA(n_super_instances=5,
                                                                                      random_state=0)],
                         ids=["COBRAS", "COBRA"])
def test_a_move_cuts_the_item_out_of_its_super_instance(iris, make):
    X, y = iris
    session = started(make(), X, y, 8)
    est = session.estimator_
    sid = max(est._tree.leaves(), key=est._tree.size.__getitem__)
    x, a = (int(r) for r in est._tree.members[sid][:2])
    labels = session.labels_
    b = int(np.flatnonzero(labels != labels[x])[0])
    ClusterAction("move", np.array([x]), to=b, away=a).apply(session)  # a move out of the super-instance
    labels = session.labels_
    assert labels[x] == labels[b] != labels[a]
    assert est._tree.leaf_of_point[x] != est._tree.leaf_of_point[a]


def feedback_run(make, X, y, marks, read):
    """Questions asked when the same answers and marks come in the same order; ``read``: labels read between."""
    session = lw.ActiveSession(make(), X)
    asked = []
    for k in range(40):
        if k in marks:
            rows, complete = marks[k]
            session.mark(rows, complete)
            if read:
                _ = session.labels_
        if (pair := session.ask()) is None:
            break
        asked.append(pair)
        if read:
            _ = session.labels_
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    return asked, session.labels_


@pytest.mark.parametrize("make", [lambda: lw.COBRAS(random_state=0), lambda: lw.Auto(random_state=0)],
                         ids=["COBRAS", "Auto"])
@pytest.mark.slow
def test_replay_with_marks_asks_the_same_questions(iris, make):
    X, y = iris
    marks = {5: (np.flatnonzero(y == 0), True), 12: (np.flatnonzero(y == 2)[:20], False)}
    first, labels = feedback_run(make, X, y, marks, read=True)
    again, labels_again = feedback_run(make, X, y, marks, read=False)
    assert first == again
    np.testing.assert_array_equal(labels, labels_again)


def actions_to(make, X, y, target, feedback):
    """Person actions (questions, marks, moves) until ARI >= target, feedback every 5 questions."""
    oracle, session, actions = lw.LabelOracle(y), lw.ActiveSession(make(), X), 0
    taken = set()
    while lw.metrics.ari(y, session.labels_) < target:
        if feedback and session.n_queries % 5 == 0 and session.n_queries not in taken:
            taken.add(session.n_queries)
            for action in oracle.cluster_feedback(session.labels_)[:2]:
                if (key := (action.kind, action.rows.tobytes())) not in taken:
                    taken.add(key)
                    action.apply(session)
                    actions += 1
            continue
        pair = session.ask()
        session.tell(pair, oracle.query(*pair))
        actions += 1
    return actions


@pytest.mark.parametrize("make", [lambda: lw.COBRAS(random_state=0), lambda: lw.Auto(random_state=0)],
                         ids=["COBRAS", "Auto"])
@pytest.mark.slow
def test_feedback_reaches_the_same_ari_with_fewer_actions(iris, make):
    X, y = iris
    assert actions_to(make, X, y, 0.9, True) < actions_to(make, X, y, 0.9, False)


def test_noisy_answers_record_what_is_informed(iris):
    X, y = iris
    session = lw.ActiveSession(lw.NoiseRobustCOBRAS(random_state=0), X)
    session.inform(0, 1, True)
    assert session.estimator_._belief.store.relation(0, 1) is True


# -- LabelOracle.cluster_feedback ---------------------------------------------------

def test_oracle_feedback_marks_and_moves():
    y = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2])
    labels = np.array([5, 5, 5, 6, 6, 6, 6, 6, 7])  # 0s complete; 1s with an odd 2; one 2 alone
    actions = lw.LabelOracle(y).cluster_feedback(labels)
    assert [(a.kind, a.rows.tolist(), a.to, a.away) for a in actions] == [
        ("move", [7], 8, 3), ("complete", [0, 1, 2], None, None), ("pure", [8], None, None)]
    assert lw.LabelOracle(y).cluster_feedback(labels, max_moves=0)[0].kind == "complete"


def test_oracle_feedback_noise_is_a_fixed_misbelief():
    y = np.repeat([0, 1, 2], 30)
    oracle = lw.LabelOracle(y, noise=0.2, random_state=0)
    seen = oracle.perceived()
    assert 0 < np.count_nonzero(seen != y) < 30 and np.isin(seen, [0, 1, 2]).all()
    np.testing.assert_array_equal(seen, oracle.perceived())
    # the person marks clusters of what they perceive
    kinds = {a.kind for a in oracle.cluster_feedback(seen)}
    assert kinds == {"complete"} and oracle.n_queries == 0


def test_oracle_feedback_bad_labels():
    with pytest.raises(InvalidParameterError, match="'labels'.*one label per row"):
        lw.LabelOracle([0, 1, 1]).cluster_feedback([0, 1])


def test_a_pickled_estimator_leaves_the_run_out(iris):
    import pickle

    X, y = iris
    session = started(lw.COBRAS(random_state=0), X, y, 5)
    session.mark(np.flatnonzero(y == 0), complete=True)
    est = session.finish()
    dumped = pickle.dumps(est)
    assert b"QueryContext" not in dumped  # the run's context (its data, every answer) stays out of the model
    again = pickle.loads(dumped)
    np.testing.assert_array_equal(again.labels_, est.labels_)


def test_feedback_contradicting_a_wrong_answer_is_settled_at_the_next_step(iris):
    X, y = iris
    session = lw.ActiveSession(lw.NoiseRobustCOBRAS(random_state=0), X)
    while y[(pair := session.ask())[0]] == y[pair[1]]:
        session.tell(pair, True)
    session.tell(pair, True)  # a wrong must-link
    a = pair[0]
    session.mark(np.flatnonzero(y == y[a]), complete=True)
    belief = session.estimator_._belief
    assert belief.store.relation(*pair) is True  # not yet settled
    list(answer(session, y, 1))
    assert belief.store.relation(*pair) is False
    assert any(set(c.pair) == set(pair) for c in belief.corrections)


def test_another_persons_answer_about_representatives_is_taken_as_a_question(iris):
    X, y = iris
    session = started(lw.COBRAS(random_state=0), X, y, 8)
    est, ctx = session.estimator_, session._ctx
    leaves = est._tree.leaves()
    reps = np.asarray(est._tree.rep)[leaves]
    comp = est._known_relations(ctx, leaves, reps)[0]
    a, b = (int(reps[comp == c][0]) for c in np.unique(comp)[:2])
    session.inform(a, b, True)  # e.g. a second annotator's answer: no super-instance is cut
    _ = session.labels_
    np.testing.assert_array_equal(est._tree.leaves(), leaves)
    comp = est._known_relations(ctx, leaves, reps)[0]
    assert comp[reps == a] == comp[reps == b]  # the merging joins their clusters


def test_two_lone_answers_sharing_a_row_are_not_taken_for_a_move(iris):
    # e.g. two annotators' answers: "x apart from z" (one super-instance), then "x with w" (another cluster)
    X, y = iris
    session = started(lw.COBRAS(random_state=0), X, y, 8)
    tree = session.estimator_._tree
    leaves = tree.leaves()
    big = max(leaves.tolist(), key=lambda sid: tree.members[sid].size)
    x, z = [int(r) for r in tree.members[big] if r != tree.rep[big]][:2]
    labels = session.labels_
    w = int(next(r for r in np.asarray(tree.rep)[leaves] if labels[r] != labels[x]))
    session.inform(x, z, False)
    session.inform(x, w, True)
    _ = session.labels_
    np.testing.assert_array_equal(tree.leaves(), leaves)  # nothing cut: they were not stated as a move
    ClusterAction("move", np.array([x]), to=w, away=z).apply(session)  # the same pairs, stated as a move
    labels = session.labels_
    assert labels[x] == labels[w] and tree.leaves().size > leaves.size
