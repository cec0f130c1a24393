"""Exactness of the Bayesian model's building blocks: forest message passing, gradient, sampler."""

import itertools

import numpy as np
import pytest
from scipy.optimize import check_grad

from linkwise.bayes._forest import STATED_EPS, ConstraintForest, downward, max_product, same_cluster_in_tree, upward
from linkwise.bayes._model import Model
from linkwise.bayes._sampler import _ENTROPY_ROWS, ParticleFilter, elliptical_slice, systematic_resample
from linkwise.bayes._selection import candidate_pool, first_acyclic, pair_scores

N_ROWS = 11
# two trees and an isolated must-link, rows 8-10 unconstrained
PAIRS = np.array([[0, 1], [1, 2], [1, 3], [3, 6], [4, 5], [5, 7]])
MUST = np.array([True, False, True, False, True, False])


def _joint(phi, rows, pairs, must, eps):
    """Every labelling of ``rows`` (as columns) and its unnormalised probability, by enumeration (``eps``: one for
    every pair, or one per pair)."""
    k = phi.shape[1]
    labels = np.array(list(itertools.product(range(k), repeat=len(rows))))
    col = {r: t for t, r in enumerate(rows)}
    weight = np.prod(phi[rows, labels], axis=1)
    for (i, j), m, e in zip(pairs.tolist(), must, np.broadcast_to(eps, len(pairs))):
        same = labels[:, col[i]] == labels[:, col[j]]
        weight *= np.where(same == m, 1 - e, e)
    return labels, weight


def _brute_force(phi, pairs, must, eps):
    """Partition function, node marginals, same-label probabilities and the MAP labelling."""
    nodes = np.unique(pairs)
    labels, weight = _joint(phi, nodes, pairs, must, eps)
    z = weight.sum()
    k = phi.shape[1]
    marginal = np.stack([np.bincount(labels[:, t], weights=weight, minlength=k) for t in range(len(nodes))]) / z
    same = np.einsum("n,nab->ab", weight, labels[:, :, None] == labels[:, None, :]) / z
    best = dict(zip(nodes.tolist(), labels[np.argmax(weight)].tolist()))
    return z, dict(zip(nodes.tolist(), marginal)), same, nodes, best


@pytest.mark.parametrize("k, eps, seed", [(2, 0.05, 0), (3, 0.2, 1), (4, 0.01, 2)])
def test_message_passing_equals_brute_force(k, eps, seed):
    rng = np.random.RandomState(seed)
    forest = ConstraintForest(N_ROWS, PAIRS, MUST)
    n_particles = 3
    phi = rng.dirichlet(np.ones(k), size=(n_particles, N_ROWS))
    log_phi = np.log(phi[:, forest.nodes].transpose(1, 0, 2))
    log_z, beta = upward(forest, log_phi, eps)
    q = downward(forest, beta, eps)
    # every pair of nodes inside one tree (including a node with itself)
    u, v = np.array(
        [(a, b) for a in range(len(forest)) for b in range(len(forest))
         if forest.tree[forest.nodes[a]] == forest.tree[forest.nodes[b]]]
    ).T
    same = same_cluster_in_tree(forest, beta, q, eps, u, v)
    for s in range(n_particles):
        z, marginal, same_bf, nodes, best = _brute_force(phi[s], PAIRS, MUST, eps)
        assert log_z[s] == pytest.approx(np.log(z), rel=1e-10)
        for pos, row in enumerate(forest.nodes):
            np.testing.assert_allclose(q[pos, s], marginal[row], rtol=1e-9)
        index = {row: t for t, row in enumerate(nodes.tolist())}
        expected = [same_bf[index[forest.nodes[a]], index[forest.nodes[b]]] for a, b in zip(u, v)]
        np.testing.assert_allclose(same[s], expected, rtol=1e-9)
        np.testing.assert_allclose(same[s][u == v], 1.0)
        labels = max_product(forest, log_phi[:, s], eps)
        assert {int(r): int(lab) for r, lab in zip(forest.nodes, labels)} == best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stated_relations_are_near_certain_edges_in_message_passing(seed):
    # a relation a person stated has error probability STATED_EPS, an answer the model's eps: passes and max-product
    # equal the enumeration with one eps per pair, and a stated relation holds in the MAP against strong potentials
    rng = np.random.RandomState(seed)
    eps, k = 0.1, 3
    stated = rng.rand(len(PAIRS)) < 0.5
    forest = ConstraintForest(N_ROWS, PAIRS, MUST, stated)
    phi = rng.dirichlet(np.ones(k) * 0.3, size=(2, N_ROWS))  # peaked: answers are often overruled
    log_phi = np.log(phi[:, forest.nodes].transpose(1, 0, 2))
    log_z, beta = upward(forest, log_phi, eps)
    q = downward(forest, beta, eps)
    pair_eps = np.where(stated, STATED_EPS, eps)
    for s in range(2):
        z, marginal, _, _, best = _brute_force(phi[s], PAIRS, MUST, pair_eps)
        assert log_z[s] == pytest.approx(np.log(z), rel=1e-9)
        for pos, row in enumerate(forest.nodes):
            np.testing.assert_allclose(q[pos, s], marginal[row], rtol=1e-6, atol=1e-12)
        labels = dict(zip(forest.nodes.tolist(), max_product(forest, log_phi[:, s], eps).tolist()))
        assert labels == best
        for (i, j), m in zip(PAIRS[stated].tolist(), MUST[stated]):
            assert (labels[i] == labels[j]) == m


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_acyclic_keeps_exactly_the_pairs_that_close_no_cycle(seed):
    rng = np.random.RandomState(seed)
    forest = ConstraintForest(N_ROWS, PAIRS, MUST)
    a, b = rng.randint(N_ROWS, size=(2, 25))
    a, b = a[a != b], b[a != b]
    keep = forest.acyclic(a, b)
    assert keep.any() and not keep.all()
    for t in range(a.size):  # each pair against the forest grown by the pairs kept before it
        grown = forest.with_edges(a[:t][keep[:t]], b[:t][keep[:t]], np.ones(keep[:t].sum(), dtype=bool))
        assert keep[t] == (not grown.closes_cycle(a[t : t + 1], b[t : t + 1])[0])
    grown = forest.with_edges(a[keep], b[keep], rng.rand(keep.sum()) < 0.5, True)
    assert len(grown.pairs) == len(PAIRS) + keep.sum()
    np.testing.assert_array_equal(grown.pair_stated, np.r_[np.zeros(len(PAIRS), bool), np.ones(keep.sum(), bool)])
    assert forest.acyclic(a[:0], b[:0]).shape == (0,)


@pytest.mark.parametrize("seed", [0, 1])
def test_conditioning_on_stated_relations_reweights_by_their_likelihood(seed):
    # without resampling (min_ess 0) each particle's weight grows by P(Z, stated | W) / P(Z | W), computed here by
    # enumeration; a stated pair closing a cycle is left out and reported
    rng = np.random.RandomState(seed)
    X = np.c_[rng.randn(N_ROWS, 2), np.ones(N_ROWS)]
    eps, k = 0.05, 2
    particles = ParticleFilter(X, k, 4, lam=10.0, tau=1.0, eps=eps, n_mcmc_steps=1, n_init_steps=2, rng=rng, min_ess=0.0)
    for (i, j), m in zip(PAIRS.tolist(), MUST):
        particles.add(i, j, bool(m))
    before = particles.log_weights.copy()
    a, b, must = np.array([2, 8, 0, 9]), np.array([4, 9, 6, 3]), np.array([True, False, True, True])
    left_out = particles.condition(a, b, must)
    assert left_out.tolist() == [False, False, True, False]  # 0 and 6 are one tree already
    pairs = np.vstack([PAIRS, np.c_[a, b][~left_out]])
    pair_eps = np.r_[np.full(len(PAIRS), eps), np.full(3, STATED_EPS)]
    for s in range(4):
        phi = np.exp(particles.model.log_assignments(particles.W[s : s + 1])[:, 0])
        rows = np.unique(pairs)
        z_new = _joint(phi, rows, pairs, np.r_[MUST, must[~left_out]], pair_eps)[1].sum()
        z_old = _joint(phi, np.unique(PAIRS), PAIRS, MUST, eps)[1].sum()
        assert particles.log_weights[s] - before[s] == pytest.approx(np.log(z_new / z_old), rel=1e-6, abs=1e-9)


def test_model_same_cluster_covers_pairs_across_trees_and_outside():
    rng = np.random.RandomState(3)
    X = rng.randn(N_ROWS, 3)
    eps = 0.1
    model = Model(X, ConstraintForest(N_ROWS, PAIRS, MUST), 10.0, 1.0, eps)
    W = rng.randn(2, 3, 3)
    a, b = np.array([0, 0, 2, 8, 4, 6]), np.array([6, 4, 9, 10, 7, 2])
    got = model.same_cluster(W, a, b)
    for s in range(2):
        log_p = model.log_assignments(W[s : s + 1])[:, 0]
        phi = np.exp(log_p)
        for t, (i, j) in enumerate(zip(a, b)):
            rows = sorted(set(PAIRS.ravel().tolist()) | {int(i), int(j)})
            labels, weight = _joint(phi, rows, PAIRS, MUST, eps)
            same = labels[:, rows.index(i)] == labels[:, rows.index(j)]
            assert got[s, t] == pytest.approx(weight[same].sum() / weight.sum(), rel=1e-6)  # single precision


def test_forest_structure_and_cycle_detection():
    forest = ConstraintForest(N_ROWS, PAIRS, MUST)
    assert len(forest) == 8
    assert np.all(forest.parent[forest.depth > 0] < np.flatnonzero(forest.depth > 0))  # parents first
    assert forest.closes_cycle(np.array([0, 0, 8, 4]), np.array([6, 4, 9, 7])).tolist() == [True, False, False, True]
    with pytest.raises(ValueError, match="cycle"):
        ConstraintForest(N_ROWS, np.vstack([PAIRS, [[2, 6]]]), np.append(MUST, True))
    with pytest.raises(ValueError, match="cycle"):  # a repeated pair is a cycle of length 2
        ConstraintForest(N_ROWS, np.vstack([PAIRS, [[1, 0]]]), np.append(MUST, True))
    grown = forest.with_edge(2, 4, False)
    assert grown.closes_cycle(np.array([0]), np.array([7]))[0]
    assert len(forest.pairs) == 6  # the original is untouched


@pytest.mark.parametrize("with_constraints", [False, True])
def test_gradient_matches_finite_differences(with_constraints):
    rng = np.random.RandomState(4)
    X = rng.randn(20, 4)
    forest = ConstraintForest(20, PAIRS if with_constraints else [], MUST if with_constraints else [])
    model = Model(X, forest, lam=0.5, tau=2.0, eps=0.05)
    rows = np.arange(0, 20, 3)
    for _ in range(3):
        w = rng.randn(4 * 3)
        value, grad = model.objective(w)
        error = check_grad(lambda v: model.objective(v)[0], lambda v: model.objective(v)[1], w)
        assert error < 1e-5 * max(1.0, np.linalg.norm(grad))
        # the objective is the negative of the batched log posterior
        assert -value == pytest.approx(model.log_posterior(w.reshape(1, 4, 3))[0], rel=1e-10)
        # over some rows (the MAP's search on large data): the same on those rows, the answers' term on every node
        value, grad = model.objective(w, X[rows])
        error = check_grad(lambda v: model.objective(v, X[rows])[0], lambda v: model.objective(v, X[rows])[1], w)
        assert error < 1e-5 * max(1.0, np.linalg.norm(grad))
        assert -value == pytest.approx(model.log_posterior(w.reshape(1, 4, 3), rows)[0], rel=1e-10)


def test_map_estimate_is_a_stationary_point_and_labels_honour_strong_constraints():
    rng = np.random.RandomState(5)
    X = rng.randn(30, 2)
    forest = ConstraintForest(30, [[0, 1], [1, 2]], [False, False])
    model = Model(X, forest, lam=1.0, tau=1.0, eps=0.01)
    W, value = model.map_estimate(rng.randn(2, 2) * 0.1)
    assert value == pytest.approx(model.log_posterior(W[None])[0])
    assert np.linalg.norm(model.objective(W.ravel())[1]) < 1e-3
    labels = model.labels(W)
    assert labels[0] != labels[1] and labels[1] != labels[2]


def test_elliptical_slice_samples_a_gaussian_posterior():
    # prior N(0, 1), likelihood N(y=2 | w, 0.5^2): posterior N(1.6, 0.2)
    rng = np.random.RandomState(6)

    def log_lik(W):
        return -0.5 * ((W[:, 0] - 2.0) / 0.5) ** 2

    W = rng.standard_normal((2000, 1))
    W, ll = elliptical_slice(W, log_lik(W), log_lik, 1.0, rng, n_steps=15)
    np.testing.assert_allclose(ll, log_lik(W))
    assert W.mean() == pytest.approx(1.6, abs=0.05)
    assert W.var() == pytest.approx(0.2, abs=0.03)


def test_systematic_resampling_follows_the_weights():
    rng = np.random.RandomState(7)
    weights = np.array([0.0, 1.0, 3.0, 0.0, 4.0])
    counts = np.bincount(systematic_resample(weights, rng), minlength=5)
    assert counts.sum() == 5 and counts[0] == counts[3] == 0
    big = np.bincount(systematic_resample(np.repeat(weights, 200), rng) // 200, minlength=5)
    np.testing.assert_allclose(big / 1000, weights / weights.sum(), atol=0.002)


def test_candidate_pool_all_pairs_or_distinct_sample():
    rng = np.random.RandomState(8)
    queryable = np.array([1, 4, 6, 9])
    a, b = candidate_pool(queryable, 10, rng)
    assert sorted(zip(a.tolist(), b.tolist())) == [(1, 4), (1, 6), (1, 9), (4, 6), (4, 9), (6, 9)]
    queryable = np.arange(0, 400, 2)
    a, b = candidate_pool(queryable, 500, rng)
    assert 450 < a.size <= 500 and np.all(a < b)
    assert np.isin(a, queryable).all() and np.isin(b, queryable).all()
    assert len(set(zip(a.tolist(), b.tolist()))) == a.size


@pytest.mark.parametrize("criterion", ["uncertain", "info"])
def test_weighted_scores_are_those_of_the_particles_weighted(criterion):
    rng = np.random.RandomState(12)
    p = rng.uniform(size=(6, 50))
    # equal weights: the plain average; one particle weighing all: that particle alone; a weight of 1/3 on one of
    # three particles: the same as that particle once among copies of the others
    np.testing.assert_allclose(pair_scores(p, criterion, np.full(6, 1 / 6)), pair_scores(p, criterion), atol=1e-6)
    one_hot = np.eye(6)[2]
    np.testing.assert_allclose(pair_scores(p, criterion, one_hot), pair_scores(p[2:3], criterion), atol=1e-6)
    copies = p[[0, 1, 1]]
    np.testing.assert_allclose(pair_scores(p[:2], criterion, np.array([1 / 3, 2 / 3])), pair_scores(copies, criterion),
                               atol=1e-6)


def test_weights_are_none_after_resampling_and_normalised_between():
    rng = np.random.RandomState(13)
    X = np.hstack([rng.randn(30, 2), np.ones((30, 1))])
    always = ParticleFilter(X, 2, 20, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=1, n_init_steps=2, rng=rng)
    assert always.weights is None
    always.add(0, 1, True)
    assert always.weights is None and always.n_moves == 1
    never = ParticleFilter(X, 2, 20, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=1, n_init_steps=2, rng=rng, min_ess=0.0)
    p_must = never.p_must(0, 1)[:, 0]
    never.add(0, 1, True)
    assert never.n_moves == 0
    np.testing.assert_allclose(never.weights, p_must / p_must.sum(), rtol=1e-5)  # p_must in single precision


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_map_on_large_data_searched_on_rows_and_polished_on_all_is_the_full_optimum(seed):
    # above _ENTROPY_ROWS rows both L-BFGS runs take the entropy over the sampler's rows, the better is polished on
    # every row: a stationary point of the full posterior, no lower than the two runs on every row
    rng = np.random.RandomState(seed)
    n = _ENTROPY_ROWS + 700
    y = rng.randint(3, size=n)
    X = np.hstack([rng.randn(n, 2) + 3.0 * np.eye(3)[y][:, :2] - 1.5 * (y == 2)[:, None], np.ones((n, 1))])
    order = rng.permutation(n)
    X, y = X[order], y[order]
    particles = ParticleFilter(X, 3, 18, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=2, n_init_steps=3, rng=rng)
    previous = None
    for i in range(0, 16, 2):
        particles.add(i, i + 1, bool(y[i] == y[i + 1]))
        W = particles.map_estimate(previous)
        model = particles.model
        assert np.linalg.norm(model.objective(W.ravel())[1]) < 1e-2 * n ** 0.5
        full = max((model.map_estimate(start) for start in (W, previous) if start is not None), key=lambda o: o[1])
        assert model.log_posterior(W[None])[0] >= full[1] - 1e-3 * abs(full[1])
        previous = W


def test_scores_and_cycle_skipping():
    p = np.array([[0.5, 0.5, 0.95, 0.05], [0.5, 0.5, 0.05, 0.95]])
    uncertain, info = pair_scores(p, "uncertain"), pair_scores(p, "info")
    np.testing.assert_allclose(uncertain, np.log(2))
    # same marginal uncertainty, but only the last two pairs are certain once W is known
    assert info[0] == pytest.approx(0.0) and info[2] > 0.4 and np.all(info <= uncertain + 1e-12)
    scores = np.array([0.1, 0.9, 0.8, 0.7])
    assert first_acyclic(scores, np.array([False, True, True, False])) == (3, 2)
    assert first_acyclic(scores, np.array([True, True, True, True])) == (None, 4)


def test_particles_without_answers_follow_the_prior_of_variance_lam():
    rng = np.random.RandomState(9)
    X = rng.randn(30, 3)
    # tau = 0: the prior is the Gaussian alone, N(0, lam I)
    particles = ParticleFilter(X, 2, 400, lam=4.0, tau=0.0, eps=0.05, n_mcmc_steps=1, n_init_steps=3, rng=rng)
    assert particles.W.shape == (400, 3, 2)
    assert particles.W.mean() == pytest.approx(0.0, abs=0.15)
    assert particles.W.var() == pytest.approx(4.0, rel=0.1)


@pytest.mark.timeout(30)
def test_elliptical_slice_ends_when_no_angle_is_accepted():
    # a NaN likelihood rejects every proposal: the shrinking bracket collapses and the particles stay
    rng = np.random.RandomState(10)
    W = rng.standard_normal((5, 2))

    def log_lik(V):
        return np.full(V.shape[0], np.nan)

    moved, ll = elliptical_slice(W, log_lik(W), log_lik, 1.0, rng, n_steps=3)
    np.testing.assert_array_equal(moved, W)
    assert np.isnan(ll).all()


def test_adaptive_resampling_moves_less_and_keeps_the_posterior():
    # 2 blobs, 15 constraints from the labels: after the first few the particles predict the rest,
    # so with min_ess=0.5 most answers only reweight; the weighted prediction of a held-out pair agrees
    rng = np.random.RandomState(11)
    X = np.vstack([rng.randn(20, 2) - 3.0, rng.randn(20, 2) + 3.0])
    X = np.hstack([X, np.ones((40, 1))])
    y = np.repeat([0, 1], 20)
    pairs = [(i, i + 1) for i in range(0, 30, 2)]  # disjoint, so always a forest
    predictions = {}
    for min_ess in (1.0, 0.5):
        particles = ParticleFilter(
            X, 2, 60, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=2, n_init_steps=5,
            rng=np.random.RandomState(0), min_ess=min_ess,
        )
        for i, j in pairs:
            particles.add(i, j, bool(y[i] == y[j]))
        weights = np.exp(particles.log_weights - particles.log_weights.max())
        predictions[min_ess] = np.average(particles.p_must(np.array([0, 0]), np.array([5, 35])), axis=0, weights=weights)
        assert particles.n_moves == len(pairs) if min_ess == 1.0 else particles.n_moves < len(pairs) // 2
    for p_same, p_across in predictions.values():
        assert p_same > 0.85 and p_across < 0.15
    np.testing.assert_allclose(predictions[0.5], predictions[1.0], atol=0.1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_map_estimate_leaves_a_worse_previous_optimum_for_the_particles_mode(seed):
    # issue 19: the MAP was re-optimised from the last MAP only, so it stayed at a stationary point long after the
    # particles had found a higher mode. W = 0 is such a point (every row's assignment uniform: no gradient, answers
    # or not); from it alone the MAP puts every row in one cluster. Both starts are optimised, the better kept.
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1], 20)
    X = np.hstack([rng.randn(40, 2) + np.where(y[:, None] == 0, -3.0, 3.0), np.ones((40, 1))])
    order = rng.permutation(40)  # shuffled rows
    X, y = X[order], y[order]
    particles = ParticleFilter(X, 2, 40, lam=10.0, tau=1.0, eps=0.05, n_mcmc_steps=3, n_init_steps=5,
                               rng=np.random.RandomState(seed))
    for i, j in [(i, i + 1) for i in range(0, 20, 2)]:  # disjoint pairs: a forest
        particles.add(i, j, bool(y[i] == y[j]))
    stale = np.zeros((3, 2))
    assert np.linalg.norm(particles.model.objective(stale.ravel())[1]) == 0.0  # a stationary point, with answers
    W = particles.map_estimate(previous=stale)
    assert particles.model.log_posterior(W[None])[0] > particles.model.log_posterior(stale[None])[0] + 1.0
    labels = particles.model.labels(W)
    assert np.unique(labels).size == 2 and np.all((labels == labels[0]) == (y == y[0]))
