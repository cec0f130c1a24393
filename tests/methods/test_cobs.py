import itertools

import joblib
import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.csgraph import laplacian as csgraph_laplacian
from scipy.sparse.linalg import eigsh
from sklearn.cluster import DBSCAN, KMeans, SpectralClustering
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import NearestNeighbors

import linkwise as lw
from linkwise.cobs import Candidates, _generate, generate, make_estimator, paper_grid
from linkwise.cobs._generate import _BULK, _canonical, _in_bulk, _plan, _spectral_embedding, _spectral_task
from linkwise.cobs._grid import GridSpec
from linkwise.cobs._select import TieBreak, committee_weights
from linkwise.exceptions import InvalidParameterError

# the scikit-learn reference fits on small kNN graphs warn about disconnected graphs
pytestmark = pytest.mark.filterwarnings("ignore:Graph is not fully connected:UserWarning")

# a few candidates of each family: enough to exercise everything, quick to generate
SMALL = {
    "kmeans": {"n_clusters": [2, 3, 4], "n_seeds": 3},
    "dbscan": {"eps": 6, "min_samples": [1, 3, 5]},
    "spectral": {"n_clusters": [2, 3, 4], "n_neighbors": [6, 10], "sigma": [0.5, 2.0]},
}


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=90, centers=3, cluster_std=0.6, random_state=0)
    return X, y


@pytest.fixture(autouse=True)
def fresh_memo():
    """Every test generates for real: the in-memory memo would otherwise answer repeated calls."""
    _generate.MEMO.clear()


@pytest.fixture(scope="module")
def cands(blobs):
    return generate(blobs[0], grid=SMALL, random_state=0)


def random_constraints(y, n, seed, rows=None):
    rng = np.random.RandomState(seed)
    rows = np.arange(len(y)) if rows is None else rows
    ml, cl = [], []
    while len(ml) + len(cl) < n:
        i, j = rng.choice(rows, 2, replace=False)
        (ml if y[i] == y[j] else cl).append((int(i), int(j)))
    return ml, cl


# -- the grid ---------------------------------------------------------------------


def test_default_grid_is_the_papers_931_clusterings(blobs):
    spec = GridSpec(("kmeans", "dbscan", "spectral"), None, "test")
    plan = _plan(blobs[0], spec, list(range(20)), 0, "test")
    per_family = {}
    for _, params, _ in plan:
        for p in params:
            per_family[p["algorithm"]] = per_family.get(p["algorithm"], 0) + 1
    assert per_family == {"kmeans": 180, "dbscan": 400, "spectral": 351}
    eps = sorted({p["eps"] for _, params, _ in plan for p in params if p["algorithm"] == "dbscan"})
    d = np.linalg.norm(blobs[0][:, None] - blobs[0][None], axis=2)
    assert len(eps) == 20
    assert eps[0] == pytest.approx(d[d > 0].min()) and eps[-1] == pytest.approx(d.max())
    sigma = paper_grid()["spectral"]["sigma"]
    assert sigma[0] == 0.01 and sigma[-1] == 5.0 and len(sigma) == 20


def test_candidates_are_compact_and_ordered(cands, blobs):
    n_expected = 3 * 3 + 6 * 3 + (2 + 2) * 3
    assert len(cands) == n_expected
    assert cands.labels.shape == (n_expected, len(blobs[0])) and cands.labels.dtype == np.int32
    frame = cands.to_frame()
    assert list(frame["algorithm"].unique()) == ["kmeans", "dbscan", "spectral"]
    assert (frame["n_clusters_found"].to_numpy() == [len(np.unique(row)) for row in cands.labels]).all()
    assert "Candidates(39 clusterings of 90 rows" in repr(cands)


# -- faithful to scikit-learn -------------------------------------------------------


@pytest.mark.slow
def test_kmeans_and_spectral_candidates_equal_sklearn(cands, blobs):
    X = blobs[0]
    for i, p in enumerate(cands.params):
        if p["algorithm"] == "dbscan":
            continue
        ref = make_estimator(p).fit(X).labels_
        assert lw.metrics.ari(ref, cands.labels[i]) == pytest.approx(1.0), p
    assert isinstance(make_estimator(cands.params[0]), KMeans)
    assert isinstance(make_estimator(cands.params[-1]), SpectralClustering)
    rbf = next(p for p in cands.params if p.get("affinity") == "rbf")
    assert make_estimator(rbf).gamma == pytest.approx(0.5 / rbf["sigma"] ** 2)


def test_dbscan_candidates_equal_sklearn_and_noise_modes(blobs):
    X = blobs[0]
    grid = {"dbscan": {"eps": [0.3, 0.6, 1.2], "min_samples": [2, 4, 8]}}
    singles = generate(X, algorithms=["dbscan"], grid=grid)
    one = generate(X, algorithms=["dbscan"], grid=grid, dbscan_noise="cluster")
    for i, p in enumerate(singles.params):
        raw = DBSCAN(eps=p["eps"], min_samples=p["min_samples"]).fit(X).labels_
        noise = raw < 0
        # the same clusters (border points may go to another reachable cluster in sklearn)
        assert lw.metrics.ari(raw[~noise], singles.labels[i][~noise]) > 0.97, p
        # each noise point alone ...
        assert len(np.unique(singles.labels[i][noise])) == noise.sum()
        assert not np.isin(singles.labels[i][noise], singles.labels[i][~noise]).any()
        # ... or all noise points together
        if noise.any():
            assert len(np.unique(one.labels[i][noise])) == 1
            assert one.n_clusters_found[i] == raw.max() + 2
        assert singles.n_clusters_found[i] == raw.max() + 1 + noise.sum()


def test_min_samples_one_is_the_eps_graph_components(blobs):
    from scipy.sparse.csgraph import connected_components

    X = blobs[0]
    cands = generate(X, algorithms=["dbscan"], grid={"dbscan": {"eps": [0.5], "min_samples": [1]}})
    d = np.linalg.norm(X[:, None] - X[None], axis=2)
    _, comp = connected_components(d <= 0.5, directed=False)
    assert lw.metrics.ari(comp, cands.labels[0]) == 1.0


# -- selection -----------------------------------------------------------------------


def test_selection_is_the_most_satisfying_candidate_by_brute_force(blobs, tmp_path):
    X, y = blobs
    ml, cl = random_constraints(y, 12, seed=3)
    # noisy answers: flip two of them, so that no candidate satisfies everything
    ml, cl = ml + cl[:1], cl + ml[:1]
    cobs = lw.COBS(grid=SMALL, random_state=0, cache=tmp_path).fit(X, ml=ml, cl=cl)
    cands = cobs.candidates_
    brute = [
        sum(lab[i] == lab[j] for i, j in ml) + sum(lab[i] != lab[j] for i, j in cl) for lab in cands.labels
    ]
    np.testing.assert_array_equal(cobs.scores_, brute)
    top = [c for c in range(len(cands)) if brute[c] == max(brute)]
    assert len(top) > 1 and cobs.best_index_ in top
    # among them, the one whose co-memberships (over every pair) agree most with the committee's,
    # weighted 4 ** (score - best score); the selection estimates this on a sample of pairs
    together = np.stack([(lab[:, None] == lab[None, :])[np.triu_indices(len(X), 1)] for lab in cands.labels])
    with np.errstate(invalid="ignore"):  # a clustering that puts every pair alike correlates with nothing
        agreement = np.nan_to_num(np.corrcoef(together.astype(float)))[top] @ 4.0 ** (np.array(brute) - max(brute))
    assert agreement[top.index(cobs.best_index_)] >= agreement.max() - 0.02 * abs(agreement.max())
    assert cobs.best_ == cands.params[cobs.best_index_]
    np.testing.assert_array_equal(cobs.labels_, cands.labels[cobs.best_index_])


def test_ties_go_to_the_committees_consensus_not_to_degenerate_partitions(blobs, cands):
    X, y = blobs
    # no constraints: every candidate ties. Fewer clusters would pick the widest DBSCAN eps (one
    # cluster); the consensus of the committee is a clustering most candidates agree with
    cobs = lw.COBS(grid=SMALL, random_state=0).fit(X)
    assert cobs.candidates_.n_clusters_found[cobs.best_index_] > 1
    assert lw.metrics.ari(y, cobs.labels_) > 0.9
    # a degenerate partition (one cluster and two single rows) ties with three near copies of a
    # good one: the tie goes to the good ones although the degenerate one has as few clusters
    good = np.repeat([0, 1, 2], 10)
    variants = [good, np.r_[good[:-1], 0], np.r_[1, good[1:]]]
    degenerate = np.r_[np.zeros(28, dtype=int), 1, 2]
    labels = np.stack([degenerate, *variants])
    best = TieBreak(labels).best(np.zeros(4), np.ones(4))
    assert best in (1, 2, 3)
    # a candidate one answer short (net 1 right - wrong below) counts in the committee with a quarter of the weight
    weights = committee_weights(np.array([3, 3, 1, 1]), 2.0)
    np.testing.assert_array_equal(weights, [1, 1, 0.25, 0.25])


def test_cobs_finds_the_classes_of_wine():
    X, y = lw.datasets.load("wine", scale="minmax")
    grid = {
        "kmeans": {"n_clusters": [2, 3, 4, 5], "n_seeds": 3},
        "spectral": {"n_clusters": [2, 3, 4, 5], "n_neighbors": [5, 10], "sigma": [0.5, 1.0]},
    }
    ml, cl = random_constraints(y, 50, seed=0)
    cobs = lw.COBS(algorithms=["kmeans", "spectral"], grid=grid, random_state=0).fit(X, ml=ml, cl=cl)
    # the paper reports 0.90 for COBS on wine (Table 4), with the full grid
    assert lw.metrics.ari(y, cobs.labels_) > 0.8
    assert cobs.best_["n_clusters"] == 3


def test_large_data_selects_on_a_sample_then_refits_on_all_rows(blobs):
    X, y = blobs
    ml, cl = random_constraints(y, 10, seed=1)
    grid = {"kmeans": {"n_clusters": [2, 3, 4], "n_seeds": 2}, "dbscan": {"eps": 5, "min_samples": [3]}}
    cobs = lw.COBS(algorithms=["kmeans", "dbscan"], grid=grid, max_samples=40, random_state=0).fit(X, ml=ml, cl=cl)
    rows = cobs.sample_indices_
    assert rows.size == 40 and np.isin(np.ravel(ml + cl), rows).all()
    assert cobs.candidates_.labels.shape[1] == 40
    refit = make_estimator(cobs.best_).fit(X).labels_
    np.testing.assert_array_equal(cobs.labels_, refit)
    assert lw.metrics.ari(y, cobs.labels_) > 0.9


# -- generation: cache, determinism, parallel backends --------------------------------


def test_cache_hit_gives_identical_candidates(blobs, tmp_path):
    X = blobs[0]
    first = generate(X, grid=SMALL, random_state=0, cache=tmp_path)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1
    # prove the second call reads the file: plant a marker clustering in it
    with np.load(files[0]) as f:
        labels, params = f["labels"].copy(), f["params"]
    labels[0] = np.arange(len(X))
    np.savez_compressed(files[0], labels=labels, params=params)
    _generate.MEMO.clear()  # else the in-memory memo answers without reading the file
    second = generate(X, grid=SMALL, random_state=0, cache=tmp_path)
    assert second.params == first.params
    np.testing.assert_array_equal(second.labels[1:], first.labels[1:])
    assert second.n_clusters_found[0] == len(X)
    # another seed, another grid or other data: another file
    generate(X, grid=SMALL, random_state=1, cache=tmp_path, algorithms=["kmeans"])
    generate(X[:-1], grid=SMALL, random_state=0, cache=tmp_path, algorithms=["kmeans"])
    assert len(list(tmp_path.glob("*.npz"))) == 3
    assert not list(tmp_path.glob("*.tmp"))


def test_generation_is_deterministic_and_seeded(blobs, cands):
    again = generate(blobs[0], grid=SMALL, random_state=0)
    np.testing.assert_array_equal(again.labels, cands.labels)
    assert again.params == cands.params
    other = generate(blobs[0], grid=SMALL, random_state=1, algorithms=["kmeans"])
    assert [p["random_state"] for p in other.params] != [p["random_state"] for p in cands.params[:9]]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("d", [4, 8])  # 8 features and many queries: proposed by matrix products, not a tree
def test_neighbours_break_distance_ties_by_index_like_brute_force(seed, d):
    # rows on a small integer grid: most distances are tied, many at the k-th place
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 3, size=(260, d)).astype(float) / 2
    Q = rng.randint(0, 3, size=(40, d)).astype(float) / 2
    many = rng.randint(0, 3, size=(7000, d)).astype(float) / 2  # >= 64 queries a row, in blocks of 655
    for data, query in ((X, None), (X, Q), (X[:30], X), (X[:100], many)):
        query_rows = data if query is None else query
        d = np.sqrt(((query_rows[:, None, :] - data[None]) ** 2).sum(axis=2))
        everyone = np.broadcast_to(np.arange(len(data)), d.shape)
        for k in (1, 5, 20):
            order = np.lexsort((everyone, d), axis=1)[:, :k]
            dist, ind = _generate.neighbours(data, k, query)
            np.testing.assert_array_equal(ind, order)
            np.testing.assert_array_equal(dist, np.take_along_axis(d, order, axis=1))


@pytest.mark.slow
def test_parallel_generation_equals_serial(blobs, cands):
    par = generate(blobs[0], grid=SMALL, random_state=0, n_jobs=2)
    np.testing.assert_array_equal(par.labels, cands.labels)
    assert par.params == cands.params


@pytest.mark.slow
def test_generation_runs_on_a_dask_cluster(blobs, cands):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster):
        with joblib.parallel_backend("dask"):
            par = generate(blobs[0], grid=SMALL, random_state=0)
        assert cluster.scheduler.transition_counter > 0  # the tasks went through the scheduler
    np.testing.assert_array_equal(par.labels, cands.labels)


# -- the spectral embedding: solver-independent, rounding-proof ------------------------


def far_blobs(n_per_blob=30, n_blobs=4, seed=0):
    """Blobs so far apart that a Gaussian kernel all but disconnects them: as many eigenvalues
    tie at 0 as there are blobs, more than K = 2 or 3."""
    centers = 100.0 * np.eye(n_blobs, 3)
    return make_blobs(n_samples=n_per_blob * n_blobs, centers=centers, cluster_std=1.0, random_state=seed)


def test_tied_eigenvectors_get_a_canonical_basis():
    X, _ = far_blobs()
    laplacian = csgraph_laplacian(rbf_kernel(X, gamma=0.5 / 3.0**2), normed=True)
    laplacian.flat[:: len(X) + 1] = 1.0
    values, vectors = np.linalg.eigh(laplacian)
    assert (values[:4] < 1e-10).all() and values[4] > 1e-3  # four tied at 0, then a gap
    rotation = np.linalg.qr(np.random.RandomState(0).standard_normal((4, 4)))[0]
    rotated = vectors[:, :6].copy()
    rotated[:, :4] = rotated[:, :4] @ rotation  # another, as valid, basis of the tied eigenspace
    rotated[:, 5] *= -1
    expected = _canonical(vectors[:, :6].copy(), values[:6], last_complete=True)
    np.testing.assert_allclose(_canonical(rotated, values[:6], last_complete=True), expected, atol=1e-9)


def test_spectral_candidates_do_not_hang_on_rounding_or_the_solver(monkeypatch):
    X, _ = far_blobs()
    # one unit in the last place on every entry changes the solvers' arithmetic, not the data
    nudged = X * (1 + 2.3e-16 * np.random.RandomState(1).choice([-1, 1], X.shape))
    ks = [2, 3, 4]
    ref = _spectral_task(X, None, "rbf", 3.0, ks, seed=5)
    np.testing.assert_array_equal(_spectral_task(nudged, None, "rbf", 3.0, ks, seed=5), ref)
    # ARPACK (used above _DENSE_MAX rows) and LAPACK give the same clusterings
    monkeypatch.setattr(_generate, "_DENSE_MAX", 10)
    np.testing.assert_array_equal(_spectral_task(X, None, "rbf", 3.0, ks, seed=5), ref)
    # ... and so do a sparse kNN graph (ARPACK) and the same graph as a dense matrix (LAPACK)
    ind = NearestNeighbors(n_neighbors=5).fit(X).kneighbors(X, return_distance=False)
    n = len(X)
    conn = sparse.csr_matrix((np.ones(5 * n), ind.ravel(), np.arange(0, 5 * n + 1, 5)), shape=(n, n))
    graph = 0.5 * (conn + conn.T)
    monkeypatch.setattr(_generate, "_DENSE_MAX", 10_000)
    from_arpack = _spectral_embedding(graph, 3, np.random.RandomState(0))
    from_lapack = _spectral_embedding(graph.toarray(), 3, np.random.RandomState(0))
    np.testing.assert_allclose(from_arpack, from_lapack, atol=1e-6)


def test_large_gaussian_affinities_use_arpack_and_match_lapack(blobs, monkeypatch):
    X = blobs[0]
    ks = [2, 3, 4]
    dense = [_spectral_task(X, None, "rbf", sigma, ks, seed=3) for sigma in (0.5, 2.0)]
    calls = []
    monkeypatch.setattr(_generate, "_DENSE_MAX", 10)
    monkeypatch.setattr(_generate, "eigsh", lambda *a, **kw: calls.append(kw) or eigsh(*a, **kw))
    iterative = [_spectral_task(X, None, "rbf", sigma, ks, seed=3) for sigma in (0.5, 2.0)]
    assert len(calls) >= 2 and all(kw["sigma"] < 0 for kw in calls)  # shift-invert ARPACK ran
    np.testing.assert_array_equal(np.concatenate(iterative), np.concatenate(dense))


@pytest.mark.parametrize("sigma", [0.05, 0.5, 1.0, 5.0])
def test_the_bulk_bound_agrees_with_the_kernels_eigenvalues(sigma):
    X = np.random.RandomState(0).uniform(size=(400, 2))
    kernel = rbf_kernel(X, gamma=0.5 / sigma**2)
    eleventh = np.linalg.eigvalsh(kernel - np.diag(np.diag(kernel)) + np.eye(len(X)))[-11]
    assert _in_bulk(kernel, 11) == (eleventh < _BULK)


def test_a_kernel_too_wide_for_arpack_goes_straight_to_lapack(blobs, monkeypatch):
    """Issue 37: above _DENSE_MAX rows a kernel whose k-th eigenvalue lies in the bulk skips ARPACK, which
    would fail after 100 restarts and leave the clusterings to LAPACK anyway."""
    X, ks = blobs[0], [2, 3, 4]
    dense = [_spectral_task(X, None, "rbf", sigma, ks, seed=3) for sigma in (2.0, 20.0)]
    calls = []
    monkeypatch.setattr(_generate, "_DENSE_MAX", 10)
    monkeypatch.setattr(_generate, "eigsh", lambda *a, **kw: calls.append(kw) or eigsh(*a, **kw))
    np.testing.assert_array_equal(_spectral_task(X, None, "rbf", 20.0, ks, seed=3), dense[1])
    assert not calls
    np.testing.assert_array_equal(_spectral_task(X, None, "rbf", 2.0, ks, seed=3), dense[0])
    assert calls  # a narrower kernel still goes to ARPACK


@pytest.mark.slow
def test_arpacks_restart_vectors_are_seeded():
    """Issue 39: on MASS-Pima's 2-nearest-neighbour graph (many components) ARPACK, from this start vector, draws
    new vectors as it goes; scipy >= 1.17 drew them from fresh entropy, and the embedding changed from call to call."""
    X = lw.datasets.load("MASS-Pima", scale="minmax")[0]
    ind, n = _generate.neighbours(X, 2)[1], len(X)
    conn = sparse.csr_matrix((np.ones(2 * n), ind.ravel(), np.arange(0, 2 * n + 1, 2)), shape=(n, n))
    first, again = (_spectral_embedding(0.5 * (conn + conn.T), 10, np.random.RandomState(1800426750)) for _ in "ab")
    np.testing.assert_array_equal(first, again)


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"algorithms": ["kmeans", "birch"]}, "The 'algorithms' parameter of COBS must be a str among .+\\. Got 'birch' instead\\.$"),
        ({"algorithms": "kmeans"}, "'algorithms' parameter of COBS must be an array-like. Got 'kmeans' instead."),
        ({"algorithms": []}, "at least one"),
        ({"algorithms": ["kmeans", "kmeans"]}, "at most once"),
        ({"grid": {"optics": {}}}, "The 'grid' parameter of COBS must be a str among .+\\. Got 'optics' instead\\.$"),
        ({"grid": {"kmeans": {"k": [2]}}}, "The 'grid\\['kmeans'\\]' parameter of COBS must be a str among .+\\. Got 'k' instead\\.$"),
        ({"grid": {"kmeans": {"n_clusters": []}}}, "'n_clusters' entry of the grid of COBS must be a non-empty"),
        ({"grid": {"kmeans": {"n_seeds": 0}}}, "The 'n_seeds' entry of the grid of COBS must be an int in the range \\[1, inf\\)\\. Got 0 instead\\.$"),
        ({"grid": {"dbscan": {"eps": [0.5, -1.0]}}}, "'eps' entry of the grid of COBS"),
        ({"grid": {"spectral": {"sigma": "wide"}}}, "'sigma' entry of the grid of COBS"),
        ({"grid": {"kmeans": {"n_clusters": [2, 90]}}}, "n_clusters=90 \\(kmeans\\) but X has only 90 rows"),
    ],
)
def test_bad_parameters_are_named(blobs, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        lw.COBS(**kwargs).fit(blobs[0])


@pytest.mark.slow
@pytest.mark.parametrize("n_rows", [3, 8])
def test_the_paper_grid_leaves_out_what_few_rows_cannot_hold(n_rows):
    # K up to 10 and k up to 20 need 21 rows: fewer keep the values below their number (a given grid is refused)
    X, y = make_blobs(n_samples=n_rows, centers=2, random_state=n_rows)
    est = lw.COBS(random_state=0).fit(X, ml=[(0, 1)])
    params = est.candidates_.params
    assert {p["algorithm"] for p in params} == {"kmeans", "dbscan", "spectral"}
    assert max(p.get("n_clusters", 0) for p in params) == max(p.get("n_neighbors", 0) for p in params) == n_rows - 1
    assert len(params) < 931 and est.labels_.shape == (n_rows,)
    with pytest.raises(InvalidParameterError, match="no kmeans clustering for X of 2 rows"):
        lw.COBS().fit(X[:2])


def test_bad_data_and_constraints_are_named(blobs):
    X = blobs[0]
    with pytest.raises(ValueError, match="'ml' argument of COBS.fit"):
        lw.COBS(grid=SMALL).fit(X, ml=[(0, 90)])
    with pytest.raises(ValueError, match="'cl' argument of COBS.fit"):
        lw.COBS(grid=SMALL).fit(X, cl=[(3, 3)])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        lw.COBS(grid=SMALL).fit(bad)
    with pytest.raises(ValueError, match="all rows of X are identical"):
        generate(np.zeros((5, 2)), algorithms=["dbscan"], grid={"dbscan": {"min_samples": [2]}})


def test_exported_names():
    assert lw.COBS is lw.cobs.COBS and lw.ActiveCOBS is lw.cobs.ActiveCOBS
    assert set(lw.cobs.__all__) >= {"COBS", "ActiveCOBS", "generate", "Candidates", "paper_grid"}
    tiny = generate(np.eye(4), algorithms=["kmeans"], grid={"kmeans": {"n_clusters": [2], "n_seeds": 1}})
    assert isinstance(tiny, Candidates)
    assert list(itertools.islice(paper_grid()["dbscan"]["min_samples"], 2)) == [1, 2]
