"""What the constrained k-means family does: constraints honoured, papers' behaviour, the vectorised ICM."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import load_breast_cancer, make_blobs
from sklearn.metrics import adjusted_rand_score

import linkwise as lw
from linkwise.cluster import ConstrainedKMeans, COPKMeans, MKMeans, MPCKMeans, PCKMeans, SeededKMeans
from linkwise.cluster._colouring import colour
from linkwise.cluster._graph import PairGraph
from linkwise.exceptions import InconsistentConstraintError
from linkwise.metrics import constraint_satisfaction


def random_constraints(y, n_pairs, seed):
    """``n_pairs`` random pairs answered from the labels: (must-links, cannot-links)."""
    rng = np.random.RandomState(seed)
    pairs = rng.randint(0, y.size, size=(3 * n_pairs, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]][:n_pairs]
    same = y[pairs[:, 0]] == y[pairs[:, 1]]
    return pairs[same], pairs[~same]


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=300, centers=4, cluster_std=1.0, random_state=3)
    return X, y


# -- the vectorised ICM pass is exactly the one-point-at-a-time pass -------------


def sequential_sweep(graph, order, base_cost, labels, edge_cost):
    """Reference ICM: visit nodes one by one, each seeing its neighbours' current labels."""
    labels = labels.copy()
    for node in order:
        edges = np.flatnonzero(graph.src == node)
        cost = base_cost[node] + edge_cost(edges, labels[graph.dst[edges]]).sum(axis=0)
        labels[node] = np.argmin(cost)
    return labels


@pytest.mark.parametrize("seed", range(5))
def test_batched_sweep_equals_sequential_sweep(seed):
    rng = np.random.RandomState(seed)
    n, k = 60, 4
    pairs = rng.randint(0, n, size=(150, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    graph = PairGraph(pairs[:40], pairs[40:])
    is_ml = graph.is_ml[graph.edge_pair]

    def edge_cost(edges, neighbour):  # PCKMeans-like penalties with random weights per pair
        weight = 1.0 + graph.edge_pair[edges] % 3
        out = np.where(is_ml[edges, None], weight[:, None], 0.0) * np.ones(k)
        out[np.arange(edges.size), neighbour] = np.where(is_ml[edges], 0.0, weight)
        return out

    schedule = graph.schedule(k, rng)
    # neighbours never share a batch, so a batch can move at once
    assert np.all(schedule.batch[graph.src] != schedule.batch[graph.dst])
    base = rng.uniform(0, 3, size=(graph.n_nodes, k))
    start = rng.randint(0, k, size=graph.n_nodes)
    order = np.argsort(schedule.batch, kind="stable")
    expected = sequential_sweep(graph, order, base, start, edge_cost)
    got = schedule.sweep(base, start.copy(), edge_cost)
    np.testing.assert_array_equal(got, expected)
    # and the order really is drawn at random
    other = graph.schedule(k, np.random.RandomState(seed + 100))
    assert not np.array_equal(other.batch, schedule.batch)


# -- hard methods honour every constraint ------------------------------------------


@pytest.mark.parametrize("name", ["iris", "wine"])
def test_copkmeans_honours_every_constraint(name):
    X, y = lw.datasets.load(name, scale="standard")
    ml, cl = random_constraints(y, 100, seed=0)
    model = COPKMeans(n_clusters=3, n_init=5, random_state=0).fit(X, ml=ml, cl=cl)
    assert constraint_satisfaction(model.labels_, ml, cl) == 1.0
    assert model.n_violated_ == 0


def test_copkmeans_keeps_must_linked_groups_whole(blobs):
    X, y = blobs
    ml = [(0, 1), (1, 2), (2, 3), (3, 4)]  # a chain across the data
    model = COPKMeans(n_clusters=4, random_state=0).fit(X, ml=ml)
    assert len(set(model.labels_[:5].tolist())) == 1


def test_constrained_kmeans_keeps_seeds_seeded_kmeans_does_not(blobs):
    X, y = blobs
    seeds = np.full(y.size, -1)
    labelled = np.random.RandomState(0).choice(y.size, 40, replace=False)
    seeds[labelled] = y[labelled]
    wrong = labelled[0]
    seeds[wrong] = (y[wrong] + 1) % 4  # one wrong label
    hard = ConstrainedKMeans(n_clusters=4, random_state=0).fit(X, seeds)
    soft = SeededKMeans(n_clusters=4, random_state=0).fit(X, seeds)
    np.testing.assert_array_equal(hard.labels_[labelled], seeds[labelled])
    assert soft.labels_[wrong] == y[wrong]  # the seed only helped to start
    # with seed clusters numbered as the true ones, both recover the blobs
    assert adjusted_rand_score(y, soft.labels_) > 0.95
    assert np.mean(soft.labels_ == y) > 0.95


# -- with no constraints PCKMeans is k-means ----------------------------------------


@pytest.mark.parametrize("cls", [PCKMeans, COPKMeans, SeededKMeans])
def test_without_constraints_matches_kmeans(cls, blobs):
    X, y = blobs
    ours = cls(n_clusters=4, n_init=5, random_state=0).fit(X)
    theirs = KMeans(n_clusters=4, n_init=5, random_state=0).fit(X)
    assert ours.inertia_ == pytest.approx(theirs.inertia_, rel=1e-3)
    assert adjusted_rand_score(theirs.labels_, ours.labels_) > 0.99


@pytest.mark.slow
def test_pckmeans_zero_constraints_on_iris_matches_kmeans_quality():
    X, y = lw.datasets.load("iris", scale="standard")
    ours = [PCKMeans(n_clusters=3, n_init=10, random_state=s).fit(X).inertia_ for s in range(3)]
    theirs = [KMeans(n_clusters=3, n_init=10, random_state=s).fit(X).inertia_ for s in range(3)]
    assert np.mean(ours) == pytest.approx(np.mean(theirs), rel=1e-2)


# -- the check: constraints beat plain k-means -------------------------------


@pytest.mark.parametrize(
    ("name", "floor"),
    # measured with these seeds (ARI): iris PCK .82, MPCK .97, KMeans .64; wine .94 / .96 vs .90
    [("iris", {"PCKMeans": 0.75, "MPCKMeans": 0.9}), ("wine", {"PCKMeans": 0.91, "MPCKMeans": 0.93})],
)
def test_soft_methods_beat_kmeans_with_200_random_constraints(name, floor):
    X, y = lw.datasets.load(name, scale="standard")
    scores = {"KMeans": [], "PCKMeans": [], "MPCKMeans": []}
    for seed in range(5):
        ml, cl = random_constraints(y, 200, seed)
        scores["KMeans"].append(adjusted_rand_score(y, KMeans(3, random_state=seed).fit(X).labels_))
        for cls in (PCKMeans, MPCKMeans):
            labels = cls(n_clusters=3, random_state=seed).fit(X, ml=ml, cl=cl).labels_
            scores[cls.__name__].append(adjusted_rand_score(y, labels))
    mean = {key: np.mean(value) for key, value in scores.items()}
    for method in ("PCKMeans", "MPCKMeans"):
        assert mean[method] > mean["KMeans"], mean
        assert mean[method] >= floor[method], mean


# -- contradictions: tolerated by soft methods, a clear error from hard ones ---------


CONTRADICTIONS = {
    "same pair both ways": ([(0, 1)], [(0, 1)]),
    "cannot-link inside a must-link chain": ([(0, 1), (1, 2)], [(0, 2)]),
    "repeated pairs": ([(0, 1), (0, 1), (1, 0)], [(2, 3), (3, 2)]),
}


@pytest.mark.parametrize("cls", [PCKMeans, MPCKMeans, MKMeans])
@pytest.mark.parametrize("case", sorted(CONTRADICTIONS))
def test_soft_methods_tolerate_contradictions(cls, case, blobs):
    X, _ = blobs
    ml, cl = CONTRADICTIONS[case]
    model = cls(n_clusters=4, random_state=0).fit(X, ml=ml, cl=cl)
    assert model.labels_.shape == (X.shape[0],)
    assert set(np.unique(model.labels_)) <= set(range(4))


def test_copkmeans_rejects_contradictions_naming_the_pair(blobs):
    X, _ = blobs
    with pytest.raises(InconsistentConstraintError, match=r"cannot-link \(0, 2\).*contradicts") as info:
        COPKMeans(n_clusters=4).fit(X, ml=[(0, 1), (1, 2)], cl=[(0, 2)])
    assert info.value.pair == (0, 2)
    assert info.value.must_link is False


def test_copkmeans_proves_infeasibility_or_relaxes():
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    cl = [(0, 1), (1, 2), (0, 2)]  # three points pairwise apart, two clusters
    with pytest.raises(ValueError, match=r"No assignment to n_clusters=2 .*points 0, 1, 2 .*proved.*'relax'"):
        COPKMeans(n_clusters=2, n_init=3, random_state=0).fit(X, cl=cl)
    relaxed = COPKMeans(n_clusters=2, on_infeasible="relax", random_state=0).fit(X, cl=cl)
    assert relaxed.n_violated_ == 1
    assert constraint_satisfaction(relaxed.labels_, [], cl) == pytest.approx(2 / 3)


def test_copkmeans_says_when_only_the_bounded_search_gave_up(monkeypatch):
    X = np.array([[0.0], [0.1], [1.0], [2.0], [10.0]])
    # 0~1 move together; {0,1}, 2, 3 pairwise apart with two clusters; a one-step search cannot tell
    monkeypatch.setattr("linkwise.cluster._copkmeans._SEARCH_STEPS", 1)
    with pytest.raises(ValueError, match=r"could not place point .*a search of 1 steps .*may still exist"):
        COPKMeans(n_clusters=2, random_state=0).fit(X, ml=[(0, 1)], cl=[(1, 2), (2, 3), (0, 3)])


@pytest.mark.parametrize("seed", range(4))
def test_copkmeans_finds_an_assignment_when_the_greedy_order_fails(seed):
    # 200 pairs from the true labels are consistent with k=2; the greedy order alone failed for most seeds
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    ml, cl = random_constraints(y, 200, seed)
    model = COPKMeans(n_clusters=2, random_state=seed).fit(X, ml=ml, cl=cl)
    assert constraint_satisfaction(model.labels_, ml, cl) == 1.0
    assert model.n_violated_ == 0


def brute_force_colourable(n, edges, k):
    return any(all(c[a] != c[b] for a, b in edges) for c in np.ndindex(*(k,) * n))


@pytest.mark.parametrize("seed", range(30))
def test_colouring_search_is_exact_on_small_graphs(seed):
    rng = np.random.RandomState(seed)
    n, k = rng.randint(3, 8), rng.randint(2, 4)
    all_pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    edges = [all_pairs[e] for e in np.flatnonzero(rng.uniform(size=len(all_pairs)) < 0.5)]
    neighbours = [
        np.array(sorted({b for a, b in edges if a == u} | {a for a, b in edges if b == u}), dtype=np.intp)
        for u in range(n)
    ]
    labels = colour(neighbours, rng.uniform(size=(n, k)), 10_000)
    assert (labels is not None) == brute_force_colourable(n, edges, k)
    if labels is not None:
        assert all(labels[a] != labels[b] for a, b in edges)


# -- MPCKMeans / MKMeans learn the metric --------------------------------------------


@pytest.fixture(scope="module")
def noisy_feature():
    """Two clusters apart on feature 0; feature 1 is wide noise that fools Euclidean k-means."""
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1], 60)
    X = np.c_[y * 3.0 + rng.normal(0, 0.3, y.size), rng.uniform(-5, 5, y.size)]
    return X, y


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"shared_metric": False},
        {"metric": "full"},
        {"metric": "full", "shared_metric": False},
    ],
)
def test_mpckmeans_learns_to_ignore_a_noise_feature(params, noisy_feature):
    X, y = noisy_feature
    ml, cl = random_constraints(y, 60, seed=1)
    assert adjusted_rand_score(y, KMeans(2, random_state=0).fit(X).labels_) < 0.2
    # PCKMeans keeps the Euclidean distance and drifts to the noise split
    assert adjusted_rand_score(y, PCKMeans(2, random_state=0).fit(X, ml=ml, cl=cl).labels_) < 0.2
    model = MPCKMeans(n_clusters=2, random_state=0, **params).fit(X, ml=ml, cl=cl)
    assert adjusted_rand_score(y, model.labels_) == pytest.approx(1.0)
    n_metrics = 2 if params.get("shared_metric") is False else 1
    assert model.metrics_.shape == (n_metrics, 2, 2)
    for A in model.metrics_:
        np.testing.assert_allclose(A, A.T, atol=1e-10)
        assert np.linalg.eigvalsh(A).min() > 0  # projected onto the PSD cone, regularised
        assert A[0, 0] > 10 * A[1, 1]  # the informative feature weighs more
        if params.get("metric", "diagonal") == "diagonal":
            assert A[0, 1] == 0.0
    np.testing.assert_array_equal(model.predict(X), model.labels_)


@pytest.mark.parametrize("metric", ["diagonal", "full"])
def test_mkmeans_learns_to_ignore_a_noise_feature(metric, noisy_feature):
    X, y = noisy_feature
    ml, cl = random_constraints(y, 60, seed=1)
    model = MKMeans(n_clusters=2, metric=metric, random_state=0).fit(X, ml=ml, cl=cl)
    assert adjusted_rand_score(y, model.labels_) == pytest.approx(1.0)
    A = model.metric_
    np.testing.assert_allclose(A, model.components_.T @ model.components_)
    assert np.linalg.eigvalsh(A).min() >= -1e-12
    assert A[0, 0] > 10 * A[1, 1]
    np.testing.assert_array_equal(model.predict(X), model.labels_)


def test_mpckmeans_metric_is_the_papers_update_at_the_fixed_point(blobs):
    X, y = blobs
    ml, cl = random_constraints(y, 60, seed=9)
    ml = np.vstack([ml, [(0, int(np.flatnonzero(y != y[0])[0]))]])  # a wrong must-link, to be broken
    w, w_bar = 0.5, 0.2
    model = MPCKMeans(n_clusters=4, shared_metric=False, w=w, w_bar=w_bar, random_state=0)
    model.fit(X, ml=ml, cl=cl)
    labels, centers = model.labels_, model.cluster_centers_
    extent = X.max(axis=0) - X.min(axis=0)
    for k in range(4):
        residual = X[labels == k] - centers[k]
        scatter = (residual**2).sum(axis=0)
        for (i, j), must in [(p, True) for p in ml] + [(p, False) for p in cl]:
            d2 = (X[i] - X[j]) ** 2
            if must and labels[i] != labels[j] and k in (labels[i], labels[j]):
                scatter += 0.5 * w * d2
            if not must and labels[i] == labels[j] == k:
                scatter += w_bar * (extent**2 - d2)
        if scatter.min() < 1e-3 * scatter.sum():
            scatter += 1e-3 * scatter.sum()
        np.testing.assert_allclose(np.diag(model.metrics_[k]), np.count_nonzero(labels == k) / scatter)


def test_mkmeans_without_cannot_links_uses_stand_in_pairs(noisy_feature):
    X, y = noisy_feature
    ml, _ = random_constraints(y, 40, seed=2)
    model = MKMeans(n_clusters=2, random_state=0).fit(X, ml=ml)
    assert adjusted_rand_score(y, model.labels_) == pytest.approx(1.0)


def test_mkmeans_without_must_links_is_euclidean(blobs):
    X, _ = blobs
    model = MKMeans(n_clusters=4, random_state=0).fit(X, cl=[(0, 1)])
    np.testing.assert_array_equal(model.metric_, np.eye(2))


# -- fitted state, objective, runs ---------------------------------------------------


def test_pckmeans_objective_is_half_inertia_plus_violation_costs(blobs):
    X, y = blobs
    ml, cl = random_constraints(y, 60, seed=4)
    ml = np.vstack([ml, [(0, int(np.flatnonzero(y != y[0])[0]))]])  # one wrong must-link
    model = PCKMeans(n_clusters=4, w=2.0, w_bar=3.0, random_state=0).fit(X, ml=ml, cl=cl)
    labels = model.labels_
    broken_ml = np.count_nonzero(labels[ml[:, 0]] != labels[ml[:, 1]])
    broken_cl = np.count_nonzero(labels[cl[:, 0]] == labels[cl[:, 1]])
    assert model.objective_ == pytest.approx(0.5 * model.inertia_ + 2.0 * broken_ml + 3.0 * broken_cl)
    np.testing.assert_allclose(model.cluster_centers_, [X[labels == c].mean(axis=0) for c in range(4)])


@pytest.mark.parametrize("cls", [PCKMeans, MPCKMeans, COPKMeans])
def test_more_runs_never_worse_and_same_seed_same_result(cls, blobs):
    X, y = blobs
    ml, cl = random_constraints(y, 50, seed=5)
    one = cls(n_clusters=4, n_init=1, random_state=7).fit(X, ml=ml, cl=cl)
    again = cls(n_clusters=4, n_init=1, random_state=7).fit(X, ml=ml, cl=cl)
    many = cls(n_clusters=4, n_init=4, random_state=7).fit(X, ml=ml, cl=cl)
    np.testing.assert_array_equal(one.labels_, again.labels_)
    assert many.objective_ <= one.objective_ + 1e-9  # the first of the runs is the single run
    assert 1 <= one.n_iter_ <= 100


def test_predict_matches_labels_of_unconstrained_points(blobs):
    X, y = blobs
    ml, cl = random_constraints(y, 40, seed=6)
    free = np.setdiff1d(np.arange(y.size), np.r_[ml.ravel(), cl.ravel()])
    for model in (PCKMeans(n_clusters=4, random_state=0), COPKMeans(n_clusters=4, random_state=0)):
        model.fit(X, ml=ml, cl=cl)
        np.testing.assert_array_equal(model.predict(X[free]), model.labels_[free])


def test_fit_predict_forwards_constraints(blobs):
    X, y = blobs
    model = PCKMeans(n_clusters=4, w=100.0, random_state=0)
    far = int(np.flatnonzero(y != y[0])[0])
    labels = model.fit_predict(X, ml=[(0, far)])
    assert labels[0] == labels[far]


def test_fewer_neighbourhoods_than_clusters_uses_cannot_link_seed_and_kmeanspp(blobs):
    X, y = blobs
    a, b = np.flatnonzero(y == 0)[:2]
    c = np.flatnonzero(y == 1)[0]
    model = PCKMeans(n_clusters=4, random_state=0).fit(X, ml=[(a, b)], cl=[(a, c)])
    assert adjusted_rand_score(y, model.labels_) > 0.95


def test_more_neighbourhoods_than_clusters_start_far_apart(blobs):
    X, y = blobs
    ml, cl = random_constraints(y, 200, seed=8)
    model = MPCKMeans(n_clusters=4, max_iter=1, random_state=0).fit(X, ml=ml, cl=cl)
    # one round from the traversal's start already separates the blobs
    assert adjusted_rand_score(y, model.labels_) > 0.9


# -- extreme magnitudes: rescaled internally, same labels as ordinary data ------------


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize(
    "make, min_ari",
    [
        (lambda: PCKMeans(3, random_state=0), 1.0),
        (lambda: COPKMeans(3, random_state=0), 1.0),
        (lambda: MPCKMeans(3, random_state=0), 1.0),
        (lambda: MPCKMeans(3, metric="full", random_state=0), 1.0),
        # L-BFGS stops on absolute tolerances, so MKMeans's metric already moves a little under
        # any change of units (x 1e20 too): close, not identical
        (lambda: MKMeans(3, random_state=0), 0.9),
    ],
    ids=["PCKMeans", "COPKMeans", "MPCKMeans", "MPCKMeans-full", "MKMeans"],
)
def test_extreme_magnitudes_give_the_labels_of_ordinary_data(make, min_ari, factor):
    X, y = lw.datasets.load("iris", scale="standard")
    ml, cl = [(0, 1), (50, 51), (100, 101)], [(0, 50), (0, 100), (50, 100)]
    ordinary = make().fit(X, ml=ml, cl=cl)
    extreme = make().fit(X * factor, ml=ml, cl=cl)
    assert ordinary.scale_ == 1.0 and extreme.scale_ != 1.0
    assert adjusted_rand_score(ordinary.labels_, extreme.labels_) >= min_ari
    if min_ari == 1.0:  # centres in the data's units, and predict scales new data alike
        np.testing.assert_array_equal(extreme.predict(X * factor), ordinary.predict(X))
        np.testing.assert_allclose(extreme.cluster_centers_ / factor, ordinary.cluster_centers_, rtol=1e-9)


@pytest.mark.parametrize("factor", [1.0, 1e300, 1e-300])
def test_pckmeans_keeps_a_cannot_link_at_any_magnitude(factor):
    X, _ = lw.datasets.load("iris", scale="minmax")
    labels = PCKMeans(2, random_state=0).fit(X * factor, cl=[(0, 25)]).labels_
    assert labels[0] != labels[25]


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_seeded_kmeans_at_extreme_magnitudes(factor):
    X, y = lw.datasets.load("iris", scale="standard")
    seeds = np.where(np.arange(y.size) % 10 == 0, y, -1)
    ordinary = SeededKMeans(3, random_state=0).fit(X, seeds)
    np.testing.assert_array_equal(SeededKMeans(3, random_state=0).fit(X * factor, seeds).labels_, ordinary.labels_)


@pytest.mark.parametrize("metric", ["diagonal", "full"])
@pytest.mark.parametrize("gap", [0.0, 1e-160])
def test_mkmeans_must_link_between_identical_rows_carries_no_metric(metric, gap):
    X, _ = lw.datasets.load("iris", scale="standard")
    X = X.copy()
    X[1] = X[0] + gap  # zero (or vanishing) must-link scatter
    model = MKMeans(3, metric=metric, random_state=0).fit(X, ml=[(0, 1)], cl=[(0, 100)])
    np.testing.assert_array_equal(model.components_, np.eye(X.shape[1]))
    np.testing.assert_array_equal(model.labels_, MKMeans(3, metric=metric, random_state=0).fit(X).labels_)


@pytest.mark.parametrize("cls", [SeededKMeans, ConstrainedKMeans, COPKMeans, PCKMeans, MKMeans, MPCKMeans])
def test_shared_docstring_entries_are_filled_in(cls):
    from linkwise.cluster._base import _SHARED_DOC

    assert not [key for key in [*_SHARED_DOC, *cls._doc_parts] if key in cls.__doc__]
    assert "scale_ : float" in cls.__doc__ and "n_clusters : int, default=8" in cls.__doc__


def test_a_subclass_without_docstring_is_fine():
    class Quiet(PCKMeans):
        pass

    assert Quiet.__doc__ is None and Quiet(n_clusters=2, w=3).get_params()["w"] == 3
