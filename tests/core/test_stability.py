"""StabilityMonitor (when to stop, issues 17 and 28) and where it is shown: ActiveSession.stability_, HumanSession.state()."""

import importlib
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import linkwise as lw
from linkwise._validation import InvalidParameterError
from linkwise.session import HumanSession
from linkwise.stability import misplaced_share

ROOT = Path(__file__).resolve().parents[2]


def test_a_constant_clustering_becomes_stable_after_a_window_of_answers():
    monitor = lw.StabilityMonitor(window=4, share=0)
    monitor.update([0, 0, 1, 1, 2], answered=False)  # the clustering at the start
    for n in range(1, 6):
        estimate = monitor.update([3, 3, 1, 1, 0])  # the same partition, other names
        assert (estimate.n_answers, estimate.n_stable, estimate.n_changed, estimate.drift) == (n, n, 0, 0.0)
        assert estimate.stable == (n >= 4)
    assert estimate.window == 4 and estimate.change_rate == pytest.approx(1 / 6)
    assert estimate.message == "You can stop: the grouping has held for the last 5 answers."


def test_a_changing_clustering_is_not_stable():
    monitor = lw.StabilityMonitor(window=10, share=0)
    rng = np.random.default_rng(0)
    for _ in range(12):
        estimate = monitor.update(rng.integers(0, 3, 50))
    assert not estimate.stable and estimate.n_stable == 0 and estimate.drift > 5
    assert estimate.n_changed == 10 and estimate.change_rate == pytest.approx(11 / 12)
    assert estimate.message == "Still changing: 10 of the last 10 answers changed the grouping."
    assert monitor.update(rng.integers(0, 3, 50)) == monitor.estimate  # immutable, comparable


def test_small_moves_are_no_change_but_add_up_to_drift():
    base = np.repeat(np.arange(4), 25)
    monitor = lw.StabilityMonitor(window=5, share=0, max_drift=0.1, min_ari=0.9)
    monitor.update(base, answered=False)
    moved = base.copy()
    for k in range(5):  # one row of 100 moves at each answer: no change, but together they move it
        moved[k] = 1
        estimate = monitor.update(moved)
    assert estimate.n_changed == 0 and estimate.n_stable == 5
    assert 0.1 < estimate.drift < 0.2 and not estimate.stable
    assert estimate.message == "Still changing: small moves add up over the last 5 answers."
    for _ in range(5):  # then five answers that move nothing
        estimate = monitor.update(moved)
    assert estimate.drift == 0 and estimate.stable


def test_large_data_is_compared_on_a_fixed_sample():
    n = 5000
    base = np.zeros(n, dtype=int)

    def detected(max_rows):
        monitor = lw.StabilityMonitor(window=1, share=0, max_rows=max_rows)  # drift: the last move
        monitor.update(base, answered=False)
        found = 0
        for k in range(50):  # move a single row, then put it back
            one = base.copy()
            one[k * 97] = 1
            found += monitor.update(one).drift > 0
            monitor.update(base)
        return found

    assert detected(n) == 50
    assert detected(100) < 10  # a moved row is seen only if sampled (2 % of the rows)


def test_informed_knowledge_is_not_counted_as_an_answer_but_its_move_counts():
    monitor = lw.StabilityMonitor(window=2, share=0)
    for _ in range(3):
        monitor.update([0, 0, 1, 1])
    assert monitor.update([0, 0, 1, 1], answered=False) == monitor.estimate
    estimate = monitor.update([0, 0, 0, 0], answered=False)
    assert (estimate.n_answers, estimate.n_stable, estimate.stable) == (3, 0, False)
    assert estimate.drift == 1.0


def test_a_clustering_right_from_the_start_may_stop_after_window_answers():
    monitor = lw.StabilityMonitor()
    monitor.update([0, 0, 1, 1], answered=False)
    shown = [monitor.update([1, 1, 0, 0]).stable for _ in range(monitor.window + 5)]
    assert shown.index(True) == monitor.window - 1 and all(shown[monitor.window - 1:])
    assert monitor.estimate.message.startswith("You can stop")


def test_the_window_grows_with_the_answers():
    monitor = lw.StabilityMonitor(window=2, share=0.5, max_drift=0)
    rng = np.random.default_rng(0)
    monitor.update(rng.integers(0, 3, 60), answered=False)
    still = rng.integers(0, 3, 60)
    for labels in [*rng.integers(0, 3, (19, 60)), still]:  # 20 answers that change the clustering
        monitor.update(labels)
    shown = [monitor.update(still) for _ in range(25)]
    # after k unchanged answers the estimate covers ceil((20 + k) / 2): stable from k = 20 on
    assert [e.stable for e in shown] == [False] * 19 + [True] * 6
    assert shown[19].window == 20 and shown[19].n_stable == 20 and shown[18].n_changed == 1


@pytest.mark.parametrize("seed", range(4))
def test_stable_follows_its_definition_on_random_sessions(seed):
    rng = np.random.default_rng(seed)
    window, share, max_drift = int(rng.integers(1, 8)), float(rng.choice([0, 0.3, 0.5, 1])), float(rng.choice([0, 0.2]))
    monitor, moves = lw.StabilityMonitor(window=window, share=share, max_drift=max_drift), []
    labels = rng.integers(0, 3, 40)
    monitor.update(labels, answered=False)
    for n in range(1, 60):
        before = labels
        if rng.random() < 0.3:
            labels = rng.integers(0, 3, 40)
        estimate = monitor.update(labels)
        moves.append(1 - lw.metrics.ari(before, labels))
        covered = moves[-min(n, max(window, int(np.ceil(share * n - 1e-9)))):]
        assert estimate.window == len(covered)
        assert estimate.drift == pytest.approx(sum(covered), abs=1e-9)
        assert estimate.stable == (n >= window and sum(covered) <= max_drift + 1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_labels_given_again_count_as_no_move_only_when_they_cannot_have_changed(seed):
    # a session gives its read-only clustering again when nothing moved (no rows compared); an array that can be
    # written to may have been changed in place, so it is compared as any other
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, 200)
    shared, copied, mutated = lw.StabilityMonitor(window=3), lw.StabilityMonitor(window=3), lw.StabilityMonitor(window=3)
    frozen = labels.copy()
    frozen.flags.writeable = False
    for monitor, given in ((shared, frozen), (copied, labels.copy()), (mutated, labels)):
        monitor.update(given, answered=False)
    for _ in range(4):
        assert shared.update(frozen) == copied.update(labels.copy())
    labels[rng.permutation(200)[:100]] = 4  # the same array, changed in place
    estimate = mutated.update(labels)
    assert estimate.n_changed == 1 and estimate.drift > 0.1


def test_a_contradicted_answer_holds_the_signal_back_for_a_window_of_answers():
    shown = {}
    for counted in (False, True):
        monitor = lw.StabilityMonitor(window=3, count_contradicted=counted)
        monitor.update([0, 0, 1, 1], answered=False)
        shown[counted] = [monitor.update([1, 1, 0, 0], contradicted=n == 4).stable for n in range(1, 10)]
    assert shown[False] == [False, False, True, True, True, True, True, True, True]  # not counted: no effect
    # counted: a move of 1 in the window until three more answers have come
    assert shown[True] == [False, False, True, False, False, False, True, True, True]
    monitor = lw.StabilityMonitor(window=3, count_contradicted=True)
    monitor.update([0, 0, 1, 1], answered=False)
    estimate = monitor.update([0, 0, 1, 1], contradicted=True)
    assert (estimate.drift, estimate.n_changed, estimate.n_stable) == (1.0, 1, 0)
    assert estimate.message == "Still changing: the latest answer changed or contradicted the grouping."
    estimate = monitor.update([0, 0, 1, 1])
    assert estimate.message == "Still changing: 1 of the last 2 answers changed or contradicted the grouping."
    assert lw.StabilityMonitor(window=3, count_contradicted=True).update([0, 1]).message == (
        "Unchanged and uncontradicted for the last 1 answer; 2 more like these and you can stop.")


@pytest.mark.parametrize("seed", range(8))
def test_the_monitor_shows_stable_first_where_the_benchmark_computes_it(seed, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as when the script runs
    bench = importlib.import_module("bench_stability")
    assert bench.misplaced_share is misplaced_share  # the trace's share is the monitor's, not a copy
    rng = np.random.default_rng(seed)
    n = 40
    X = rng.normal(size=(n, 3))
    labels = rng.integers(0, 3, n)
    # a random rule of the family: both parts, the misplaced rows looked at or not, an early signal or not
    rules = [bench.Rule(int(rng.integers(2, 12)), float(rng.choice([0, 0.25, 0.5])),
                        float(rng.choice([0, 0.2, 0.6, 1.5])), counted, float(rng.choice([1.0, 0.3, 0.5])),
                        *((None, 0.05, 0.2, 1.0) if rng.random() < 0.3 else
                          (int(rng.integers(1, 6)), float(rng.choice([0.3, 0.6])), float(rng.choice([0.1, 0.3])),
                           float(rng.choice(bench.DOUBT_QUANTILES)))))
             for counted in (False, True)]
    monitors = [lw.StabilityMonitor(**rule._asdict()) for rule in rules]
    for monitor in monitors:
        monitor.update(labels, answered=False, X=X)
    moves, contradicted, contradicting, misplaced, doubts, stable, answers = [], [], [], [], [], [], []
    for t in range(80):  # fewer changes and wrong answers as the session goes on
        before = labels
        if rng.random() < 0.3 * (1 - t / 60):
            labels = labels.copy()
            labels[rng.integers(n, size=int(rng.integers(1, 4)))] = rng.integers(3)
        i, j = (int(k) for k in rng.integers(n, size=2))
        answer = bool(before[i] == before[j]) != bool(rng.random() < 0.25 * (1 - t / 80))
        answers.append((i, j, answer))
        contradicted.append(bool(before[i] == before[j]) != answer)
        doubt = rng.choice([0.0, 0.15, 0.4], size=20, p=rng.dirichlet(np.ones(3)))  # the method's, on 20 pairs
        estimates = [monitor.update(labels, contradicted=contradicted[-1], X=X, answers=answers, doubt=doubt)
                     for monitor in monitors]
        stable.append([e.stable for e in estimates])
        moves.append(1 - lw.metrics.ari(before, labels))
        pairs = np.array([(i, j) for i, j, _ in answers])
        contradicting.append(int(np.sum((labels[pairs[:, 0]] == labels[pairs[:, 1]]) != [a for *_, a in answers])))
        misplaced.append(_misplaced_share(X, labels))
        doubts.append(doubt)
    assert 0 < max(contradicting) and 0 < max(misplaced)  # the case is not trivial
    run = {"moves": np.array(moves), "contradicted": np.array(contradicted), "contradicting": np.array(contradicting),
           "misplaced": np.array(misplaced),
           # the trace's columns of the doubt, as bench_stability writes them
           "doubt": {q: np.array([bench._doubts(d)[bench._doubt_column(q)] for d in doubts])
                     for q in bench.DOUBT_QUANTILES}}
    for rule, shown in zip(rules, np.array(stable).T):
        assert bench.first_shown(run, rule) == (int(np.argmax(shown)) + 1 if shown.any() else None), rule


def _misplaced_share(X, labels):
    """The share of rows nearer another cluster's mean than their own's, computed plainly."""
    ks = np.unique(labels)
    centres = np.stack([X[labels == k].mean(axis=0) for k in ks])
    return float(np.mean(ks[np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)] != labels))


def test_the_misplaced_share_counts_rows_nearer_another_centre():
    rng = np.random.default_rng(0)
    for _ in range(5):
        X = rng.normal(size=(60, 4)).astype(rng.choice([np.float32, np.float64]))
        labels = rng.integers(0, 4, 60) * 3  # cluster numbers with gaps
        monitor = lw.StabilityMonitor(window=1, max_misplaced=0.5)  # settled at once: the share is looked at
        assert monitor.update(labels, X=X).misplaced == pytest.approx(_misplaced_share(X, labels))
        # one function for the monitor and the benchmark of the stop signal, whatever the label values
        assert misplaced_share(X, labels) == monitor.update(labels, X=X).misplaced == misplaced_share(X, labels // 3)
        order = rng.permutation(60)  # a property of the rows, not of their order
        assert misplaced_share(X[order], labels[order]) == pytest.approx(misplaced_share(X, labels))
    assert lw.StabilityMonitor(window=5).update(labels, X=X).misplaced is None  # it could change nothing
    for same in (np.ones((30, 4)), np.zeros((2, 3), dtype=np.float32)):  # constant columns, equal rows: no one nearer
        monitor = lw.StabilityMonitor(window=1, max_misplaced=0.5)
        assert monitor.update(np.arange(len(same)) % 2, X=same).misplaced == 0 == misplaced_share(same,
                                                                                                  np.arange(len(same)) % 2)
    with pytest.raises(InvalidParameterError, match="'X'"):
        lw.StabilityMonitor().update([0, 1, 1], X=np.zeros((2, 2)))
    for X, labels in (([[0.0]], [0, 1]), (np.zeros(3), [0, 1, 1]), (np.zeros((0, 2)), [])):
        with pytest.raises(InvalidParameterError, match="one label per row"):
            misplaced_share(X, labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_misplaced_share_of_a_wide_data_frame_is_that_of_its_values(seed):
    # 50 rows x 500 features as a DataFrame, labels as strings in a Series: the share of the plain arrays
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 500))
    X[:, :5] += 4.0 * (np.arange(50) % 2)[:, None]  # two groups along a few of the columns
    X[:, 7] = 3.0  # a constant column
    labels = np.where(rng.random(50) < 0.8, np.arange(50) % 2, 1 - np.arange(50) % 2)  # a fifth misplaced, about
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(500)], index=rng.permutation(50) + 100)
    names = pd.Series(np.array(["kitchen", "garden"])[labels], index=frame.index)
    share = misplaced_share(frame, names)
    assert share == misplaced_share(X, labels) == pytest.approx(_misplaced_share(X, labels))
    assert 0.0 < share < 0.5


def test_the_answers_the_clustering_contradicts_are_counted_and_said_beside_the_signal():
    monitor = lw.StabilityMonitor(window=2)
    answers = [(0, 1, True), (2, 3, True), (0, 2, None)]
    for _ in range(2):
        estimate = monitor.update([0, 0, 1, 2], answers=answers)  # contradicts (2, 3): must-link across
    assert estimate.stable and estimate.contradicting == 1
    assert estimate.message == "You can stop: the grouping has held for the last 2 answers. It still contradicts 1 answer."
    before = monitor.estimate
    for bad in ([(0, 9, True)], [(0, -1, False)], [(0, 1)], [("a", 1, True)]):
        with pytest.raises(InvalidParameterError, match="'answers'"):
            monitor.update([0, 0, 1, 2], answers=answers + bad)
        assert monitor.estimate == before  # nothing changed
    # the answers only grow in a session; a shorter sequence is read anew
    grown = answers + [(0, 3, False), (1, 2, True)]
    assert monitor.update([0, 0, 1, 2], answers=grown).contradicting == 2
    assert monitor.update([0, 0, 1, 1], answers=grown).contradicting == 1
    assert monitor.update([0, 0, 1, 1], answers=[(0, 2, True)]).contradicting == 1


def test_the_early_signal_needs_the_method_sure_and_nothing_contradicted():
    X = np.array([[0.0], [0.1], [1.0], [1.1]])
    for doubt, answers, shown in ((0.1, [], True), (None, [], False), (0.3, [], False),
                                  (0.1, [(0, 2, True)], False)):
        monitor = lw.StabilityMonitor(window=50, early_window=3, early_max_doubt=0.2)
        for _ in range(3):
            estimate = monitor.update([0, 0, 1, 1], X=X, answers=answers, doubt=doubt)
        assert (estimate.stable, estimate.early) == (shown, shown)


@pytest.mark.parametrize("quantile", [1.0, 0.9, 0.5])
def test_the_early_signal_reads_the_quantile_of_the_doubt_over_the_pairs(quantile):
    X = np.array([[0.0], [0.1], [1.0], [1.1]])
    doubt = np.random.default_rng(3).permutation(np.r_[np.zeros(80), np.full(15, 0.15), np.full(5, 0.4)])
    monitor = lw.StabilityMonitor(window=50, early_window=3, early_max_doubt=0.2, doubt_quantile=quantile)
    for _ in range(3):
        estimate = monitor.update([0, 0, 1, 1], X=X, doubt=lambda: doubt)  # as a session asks it: a callable
    assert estimate.doubt == pytest.approx(np.quantile(doubt, quantile))
    assert estimate.early == (quantile < 1)  # 5 % of the pairs doubted at .4: only the largest is above .2


@pytest.mark.parametrize("doubt", [0.6, -0.1, [0.1, np.nan], "0.1", True, [[0.1]], [0.1, [0.2]]])
def test_a_doubt_that_is_not_shares_on_pairs_is_refused_in_one_line(doubt):
    monitor = lw.StabilityMonitor(window=50, early_window=1)
    monitor.update([0, 0, 1, 1])
    before = monitor.estimate
    with pytest.raises(InvalidParameterError, match=r"^The 'doubt' argument of StabilityMonitor.update must be [^\n]*$"):
        monitor.update([0, 0, 1, 1], doubt=doubt)
    assert monitor.estimate == before  # checked before anything changes
    with pytest.raises(InvalidParameterError, match="'doubt'"):
        monitor.update([0, 0, 1, 1], doubt=lambda: doubt)  # a method's hook: read only when it can change the signal


@pytest.mark.slow
def test_on_easy_data_auto_says_stop_before_the_20th_answer_and_rightly():
    from sklearn.datasets import make_blobs

    early = 0
    for seed in range(5):
        X, y = make_blobs(300, centers=4, cluster_std=0.5, random_state=seed)
        X = X[np.random.default_rng(seed).permutation(300)] if seed % 2 else X  # shuffled rows too
        y = y[np.random.default_rng(seed).permutation(300)] if seed % 2 else y
        session = lw.ActiveSession(lw.Auto(max_queries=19, random_state=seed), X)
        while (pair := session.ask()) is not None:
            session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
            if session.stability_.stable:
                assert session.stability_.early and lw.metrics.ari(y, session.labels_) > 0.98
                assert session.stability_.message.startswith("You can stop: the last 8 answers changed nothing")
                early += 1
                break
    assert early >= 3  # most easy sessions are told so early (not every seed: a signal, not a guarantee)


def test_auto_s_doubt_is_its_candidates_disagreement_on_the_pairs():
    X, y = lw.datasets.load("iris", scale="minmax")
    session = lw.ActiveSession(lw.Auto(max_queries=15, random_state=0), X)
    pairs = np.random.default_rng(0).integers(len(y), size=(50, 2))
    while (pair := session.ask()) is not None:
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
        est = session.estimator_
        w = np.exp(est.log_posterior_ - est.log_posterior_.max())
        labels = np.stack([est._cand_full(c) for c in range(len(w))])
        together = np.array([w[labels[:, i] == labels[:, j]].sum() / w.sum() for i, j in pairs])
        assert est.doubt(pairs) == pytest.approx(np.minimum(together, 1 - together))
        assert est.doubt(np.c_[pairs[:, 0], pairs[:, 0]]) == pytest.approx(np.zeros(len(pairs)), abs=1e-12)  # itself
        assert est.doubt(pairs[:0]).shape == (0,)
    assert lw.COBRAS().doubt(pairs) is None and lw.COBRA().doubt(pairs) is None


def test_only_an_answer_contradicts():
    monitor = lw.StabilityMonitor(count_contradicted=True)
    monitor.update([0, 1, 1])
    before = monitor.estimate
    with pytest.raises(InvalidParameterError, match="'contradicted'.*answered=True"):
        monitor.update([0, 1, 1], answered=False, contradicted=True)
    with pytest.raises(InvalidParameterError, match="'contradicted'"):
        monitor.update([0, 1, 1], contradicted=1)
    assert monitor.estimate == before


def test_the_outlook_says_what_more_answers_may_change():
    monitor = lw.StabilityMonitor(window=4, share=0)
    assert monitor.update(np.zeros(30, dtype=int), answered=False).outlook(10) == ""
    rng = np.random.default_rng(1)
    for _ in range(4):
        estimate = monitor.update(rng.integers(0, 4, 30))
    rate = estimate.change_rate
    assert estimate.outlook() == f"About 1 in {round(1 / rate)} answers still changes the grouping."
    assert estimate.outlook(12) == (f"About 1 in {round(1 / rate)} answers still changes the grouping: about "
                                    f"{round(rate * 12)} of the 12 left.")


@pytest.mark.parametrize("kwargs, name", [({"window": 0}, "window"), ({"window": 2.5}, "window"),
                                          ({"share": -0.1}, "share"), ({"share": 1.5}, "share"),
                                          ({"max_drift": -0.1}, "max_drift"), ({"max_drift": "0.1"}, "max_drift"),
                                          ({"min_ari": 0}, "min_ari"), ({"min_ari": 1.5}, "min_ari"),
                                          ({"max_rows": 1}, "max_rows"), ({"doubt_quantile": 0}, "doubt_quantile"),
                                          ({"doubt_quantile": 1.5}, "doubt_quantile"),
                                          ({"count_contradicted": 1}, "count_contradicted")])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        lw.StabilityMonitor(**kwargs)


def test_bad_labels_name_the_argument_and_change_nothing():
    monitor = lw.StabilityMonitor()
    monitor.update([0, 1, 1])
    before = monitor.estimate
    for bad in ([[0, 1, 1]], [0.0, 1.0, 1.0], [], [0, 1, 1, 1]):
        with pytest.raises(InvalidParameterError, match="'labels'"):
            monitor.update(bad)
    assert monitor.estimate == before


def _answer_and_shadow(session, y, shadow, wrong=()):
    """Answer every question of ``session`` from ``y`` (the n-th answer flipped for n in ``wrong``), feeding
    ``shadow`` the clusterings and whether each answer contradicted the one it was asked in; the contradicted
    count."""
    X = session._ctx.X

    def seen(labels, **kwargs):  # what the person sees besides the clustering: the answers, X, the method's doubt
        doubt = None if shadow.probe_pairs is None else session.estimator_.doubt(shadow.probe_pairs)
        return shadow.update(labels, X=X, answers=session.query_log, doubt=doubt, **kwargs)

    seen(session.labels_, answered=False)
    n_contradicted = 0
    while (pair := session.ask()) is not None:
        before = session.labels_
        answer = bool(y[pair[0]] == y[pair[1]]) != (session.n_queries in wrong)
        contradicted = bool(before[pair[0]] == before[pair[1]]) != answer
        n_contradicted += contradicted
        session.tell(pair, answer)
        assert session.stability_ == seen(session.labels_, contradicted=contradicted)
    return n_contradicted


@pytest.mark.parametrize("make, window, counted", [(lambda: lw.COBRAS(max_queries=85, random_state=0), 80, False),
                                                   (lambda: lw.Auto(max_queries=45, random_state=0), 40, True)])
def test_active_session_follows_the_stop_rule_of_its_method(make, window, counted):
    X, y = lw.datasets.load("iris", scale="minmax")
    est = make()
    rule = est.stop_rule()
    assert (rule["window"], rule["count_contradicted"]) == (window, counted)
    session = lw.ActiveSession(est, X)
    start = session.stability_
    assert (start.n_answers, start.stable, start.message) == (0, False, "No answers yet.")
    # a shadow monitor of the method's rule, fed the same clusterings by hand
    assert _answer_and_shadow(session, y, lw.StabilityMonitor(**rule)) > 0  # some answers were contradicted
    estimate = session.stability_
    assert estimate.n_answers == est.max_queries and estimate.window == window  # the last `window` answers
    # a stated relation is no answer; the clustering it may change is the reference from then on
    session.inform(0, 1, True)
    assert session.stability_.n_answers == estimate.n_answers


class _AutoRule(lw.Auto):
    """Auto with its stop rule, its contradicted answers counted or not (the class attribute ``counted``)."""

    counted = True

    def stop_rule(self):
        return {**super().stop_rule(), "count_contradicted": self.counted}


def test_each_contradicted_answer_of_a_session_adds_one_to_the_drift():
    X, y = lw.datasets.load("iris", scale="minmax")
    wrong = {3, 9, 17}  # wrong answers, which the clustering usually contradicts
    drifts = {}
    for counted in (False, True):
        rule = type("Rule", (_AutoRule,), {"counted": counted})
        session = lw.ActiveSession(rule(max_queries=25, random_state=0), X)
        n = _answer_and_shadow(session, y, lw.StabilityMonitor(**session.estimator_.stop_rule()), wrong)
        drifts[counted] = session.stability_.drift
    # the same questions and clusterings: contradicted answers add exactly 1 each
    assert n > 0 and drifts[True] == pytest.approx(drifts[False] + n)


def test_every_method_without_its_own_rule_follows_the_pooled_one():
    defaults = inspect.signature(lw.StabilityMonitor).parameters
    pooled = lw.COBRA().stop_rule()
    assert pooled == {name: defaults[name].default for name in pooled}
    assert lw.NoiseRobustCOBRAS().stop_rule() == lw.COBRAS().stop_rule() != pooled
    assert lw.Auto().stop_rule() != pooled


@pytest.mark.parametrize("make", [lambda: lw.COBRAS(random_state=0), lambda: lw.Auto(random_state=0)])
def test_human_session_state_carries_the_stability_of_its_method(iris_data, tmp_path, make):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, make())
    rule = make().stop_rule()
    # an ActiveSession told the same answers: the replayed file keeps the same estimate, by the method's rule
    twin, wrong, n_contradicted = lw.ActiveSession(make(), data.X), {2, 7}, 0
    for n in range(rule["window"] + 3):
        state = session.state()
        pair = state.question.pair
        assert tuple(twin.ask()) == tuple(pair)
        before = twin.labels_
        answer = bool(y[pair[0]] == y[pair[1]]) != (n in wrong)
        n_contradicted += bool(before[pair[0]] == before[pair[1]]) != answer
        session.answer(state.position, answer)
        twin.tell(pair, answer)
    stability = session.state().stability
    assert stability == twin.stability_
    assert stability.n_answers == rule["window"] + 3 and stability.window == rule["window"]
    assert n_contradicted > 0 and isinstance(stability.message, str)
    assert json.loads(json.dumps(session.state().to_json()))["stability"] == stability._asdict()  # what the page polls
    session.close()
    again = HumanSession(tmp_path / "s.db", data)  # replayed from the file: the same estimate
    assert again.state().stability == stability
    again.close()


def test_the_terminal_shows_the_stability_message(iris_data, tmp_path):
    from io import StringIO

    from rich.console import Console

    from linkwise.session.front._terminal import run_terminal

    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    out, keys = StringIO(), iter("sq")
    run_terminal(session, tmp_path / "labels.csv", console=Console(file=out, width=200), getchar=lambda: next(keys))
    assert "0 of 100 answered · 1 clusters · No answers yet." in out.getvalue()
    state = session.state()
    assert (f"1 of 100 answered · {state.n_clusters} clusters · {state.stability.message} · "
            f"{state.outlook}") in out.getvalue()
    session.close()


@pytest.mark.parametrize("pair", [(0, 3), (-1, 0), (0,), (0.0, 1), (True, 1), "01", None])
def test_contradicts_refuses_what_is_not_a_pair_of_rows_in_one_line(pair):
    monitor = lw.StabilityMonitor(count_contradicted=True)
    monitor.update([0, 0, 1], answered=False)
    with pytest.raises(InvalidParameterError, match=r"^The 'pair' argument of StabilityMonitor.contradicts must be "
                                                    r"two row indices \(i, j\) in \[0, 3\); got .*\.$"):
        monitor.contradicts(pair, None)  # even "don't know": the pair is checked first
    assert monitor.contradicts((np.int64(1), 2), False) is False and monitor.contradicts((1, 2), True) is True
    assert monitor.estimate.n_answers == 0  # a refused call changes nothing
