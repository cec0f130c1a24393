"""The contract every active estimator keeps, as runnable checks.

Like scikit-learn's :func:`~sklearn.utils.estimator_checks.check_estimator`
for ordinary estimators, :func:`check_active_estimator` runs an
:class:`~linkwise.ActiveEstimator` through what the question loop
(:mod:`linkwise.loop`) promises whatever the method, and
:func:`check_constrained_estimator` a constrained clusterer
(``fit(X, ml=, cl=)``) through the shapes and kinds of data it must take;
the test suite runs them on every estimator in linkwise.
"""

import inspect
import pickle
import re
import warnings
from itertools import product

import numpy as np
from sklearn.base import clone
from sklearn.datasets import make_blobs

from linkwise.loop import ActiveEstimator, ActiveSession
from linkwise.oracle import LabelOracle

__all__ = ["N_ROWS", "N_FEATURES", "SHAPES", "active_estimator_checks", "check_active_estimator",
           "constrained_estimator_checks", "check_constrained_estimator"]

# The shapes every estimator must fit or refuse in one line: tiny collections, and feature counts on
# either side of 64 (where projections start, e.g. Auto's fallback) up to embeddings.
N_ROWS = (2, 3, 5, 12, 63, 64, 65, 200)
N_FEATURES = (1, 2, 63, 64, 65, 500)
SHAPES = tuple(product(N_ROWS, N_FEATURES))
# The budget of each run on the shapes (they test the data's shape, not the questions).
_SHAPE_BUDGET = 3
# More warnings than this in one fit is a storm (one per row or per question, say).
_MAX_WARNINGS = 2


def active_estimator_checks(estimator, X=None, y=None, *, max_queries=6, shapes=SHAPES):
    """Yield the contract checks for ``estimator``, one callable each.

    Parameters
    ----------
    estimator : ActiveEstimator
        An unfitted active estimator with a ``max_queries`` parameter; its
        other parameters are kept (choose fast ones). It is never modified:
        every check fits clones with ``random_state=0``.
    X : array-like of shape (n_samples, n_features), optional
        Data for the runs (default: 30 points in three blobs).
    y : array-like of shape (n_samples,), optional
        True labels of ``X``, which the oracles answer from.
    max_queries : int, default=6
        Budget of each run (small keeps the checks fast).
    shapes : sequence of (int, int), default=SHAPES
        The ``(n_samples, n_features)`` of the data ``check_shapes`` fits
        (every pair of :data:`N_ROWS` and :data:`N_FEATURES` by default;
        fewer for a slow estimator).

    Yields
    ------
    check : callable
        Takes no argument; raises ``AssertionError`` naming the estimator
        and the broken promise. Its ``__name__`` is the check's name.

    Examples
    --------
    >>> import linkwise as lw
    >>> from linkwise.estimator_checks import active_estimator_checks
    >>> [check.__name__ for check in active_estimator_checks(lw.COBRAS())][:3]
    ['check_budget', 'check_queryable', 'check_dont_know']
    """
    if not isinstance(estimator, ActiveEstimator):
        raise TypeError(f"check_active_estimator needs an ActiveEstimator, got {type(estimator).__name__}.")
    if "max_queries" not in estimator.get_params(deep=False):
        raise TypeError(f"{type(estimator).__name__} has no 'max_queries' parameter: the checks need it to bound each "
                        "run.")
    if X is None:
        X, y = make_blobs(n_samples=30, centers=3, n_features=2, cluster_std=0.5, random_state=0)
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    yield from _runs(_CHECKS, _Case(estimator, X, y, max_queries, shapes))


def _runs(checks, case):
    for check in checks:
        def run(check=check):
            check(case)

        run.__name__ = run.__qualname__ = check.__name__[1:]
        yield run


def check_active_estimator(estimator, X=None, y=None, *, max_queries=6, shapes=SHAPES):
    """Check that ``estimator`` keeps the contract of an active estimator.

    Each check fits clones of ``estimator`` (``random_state=0``, a small
    budget) on small data with an oracle answering from ``y``:

    - **budget**: ``n_queries_ <= max_queries``, as many oracle calls and
      ``query_log_`` entries, ``constraints_`` the log's answers in order;
      ``max_queries=0`` asks nothing and still labels every row;
    - **queryable**: only pairs of two different ``queryable`` rows (indices
      or a boolean mask, the same run) are asked; labels cover every row;
    - **don't know**: a pair answered None is never asked again nor stored;
    - **determinism**: the same ``random_state``, the same questions, labels, history;
    - **user objects**: ``X``, ``queryable`` and the parameters are not modified;
    - **labels history** (anytime estimators): a row per question, the last one ``labels_``;
    - **session**: :class:`~linkwise.ActiveSession` gives ``fit``'s questions
      and labels, leaves the estimator given to it unfitted, and
      :meth:`~linkwise.ActiveSession.replay` of part of the answers resumes
      at the next question;
    - **bad oracle**: no ``query``, or an answer not True/False/None, is a
      ``TypeError`` naming the argument; an oracle's error propagates, the
      answers before it are kept and the estimator is left unfitted;
    - **wrong answers**: an oracle wrong on 30 % of the pairs does not stop
      the run;
    - **parameters**: ``get_params`` lists the constructor's parameters,
      ``set_params`` and :func:`~sklearn.base.clone` give them back, and a
      fitted estimator pickles;
    - **shapes**, **kinds of data** and **features in**: see
      :func:`check_constrained_estimator` (each run with a budget of 3: labels
      cover every row, at most 3 questions).

    Parameters
    ----------
    estimator, X, y, max_queries, shapes
        As for :func:`active_estimator_checks`.

    Raises
    ------
    AssertionError
        The first broken promise, naming the estimator and the check.

    See Also
    --------
    active_estimator_checks : the same checks one by one (for
        ``pytest.mark.parametrize``).

    Examples
    --------
    >>> import linkwise as lw
    >>> from linkwise.estimator_checks import check_active_estimator
    >>> check_active_estimator(lw.COBRAS())
    """
    for check in active_estimator_checks(estimator, X, y, max_queries=max_queries, shapes=shapes):
        check()


def constrained_estimator_checks(estimator, *, shapes=SHAPES):
    """Yield the checks of :func:`check_constrained_estimator` for ``estimator``, one callable each.

    Parameters
    ----------
    estimator : estimator
        An unfitted constrained clusterer: ``fit(X, ml=, cl=)``, or
        ``fit(X, y)`` with ``y`` partial labels (-1: unlabelled) as for
        :class:`~linkwise.SeededKMeans`; it sets ``labels_``. Never modified:
        every check fits clones (``random_state=0`` where it has one).
    shapes : sequence of (int, int), default=SHAPES
        As for :func:`active_estimator_checks`.

    Yields
    ------
    check : callable
        Takes no argument; raises ``AssertionError`` naming the estimator
        and the broken promise.

    Examples
    --------
    >>> import linkwise as lw
    >>> from linkwise.estimator_checks import constrained_estimator_checks
    >>> [check.__name__ for check in constrained_estimator_checks(lw.PCKMeans(n_clusters=3))]
    ['check_shapes', 'check_data_kinds', 'check_features_in', 'check_pair_arguments', 'check_constrained_predict']
    """
    if not callable(getattr(estimator, "fit", None)) or not hasattr(estimator, "get_params"):
        raise TypeError(f"check_constrained_estimator needs an estimator, got {type(estimator).__name__}.")
    yield from _runs(_DATA_CHECKS + [_check_features_in, _check_pair_arguments, _check_constrained_predict],
                     _Case(estimator, None, None, _SHAPE_BUDGET, shapes))


def check_constrained_estimator(estimator, *, shapes=SHAPES):
    """Check that a constrained clusterer takes every shape and kind of data, or refuses it in one line.

    - **shapes**: on every ``(n_samples, n_features)`` of ``shapes`` (from 2
      rows to 200, from 1 feature to 500), with a must-link and a
      cannot-link (or two seeds), ``fit`` either works (``labels_`` an
      integer label for every row, at most two warnings) or raises a
      ``ValueError`` in one line naming a parameter of the estimator and the
      number of rows or features it cannot take (``n_clusters=3`` on 2 rows);
      on 200 rows it works;
    - **kinds of data**: constant columns, duplicate rows, float32, a
      pandas DataFrame and a read-only array are fitted (every row the same
      point may be refused as above);
    - **features in**: ``fit`` records ``n_features_in_``, and
      ``feature_names_in_`` (the column names) for a pandas DataFrame with
      string column names only, as every scikit-learn estimator does;
    - **pair arguments**: a pair of ``ml`` / ``cl`` holding a float with a
      fractional part, a bool or a string is refused naming the argument;
      NumPy integers are taken;
    - **predict**: new rows get integer labels among ``labels_``, the same
      for the same data, constraints and seed, and rows of another number of
      features are refused naming ``X`` and the count.

    Parameters
    ----------
    estimator, shapes
        As for :func:`constrained_estimator_checks`.

    Raises
    ------
    AssertionError
        The first broken promise, naming the estimator and the check.

    Examples
    --------
    >>> import linkwise as lw
    >>> from linkwise.estimator_checks import check_constrained_estimator
    >>> check_constrained_estimator(lw.PCKMeans(n_clusters=3), shapes=[(2, 1), (12, 65), (200, 2)])
    """
    for check in constrained_estimator_checks(estimator, shapes=shapes):
        check()


class _Case:
    """The estimator under test with its data, and the runs the checks share."""

    def __init__(self, estimator, X, y, max_queries, shapes=SHAPES):
        self.estimator, self.X, self.y, self.max_queries = estimator, X, y, max_queries
        self.name, self.shapes = type(estimator).__name__, tuple(shapes)
        self.active = isinstance(estimator, ActiveEstimator)

    def make(self, **params):
        return clone(self.estimator).set_params(**{"random_state": 0, "max_queries": self.max_queries, **params})

    def truth(self, i, j):
        return bool(self.y[i] == self.y[j])

    def fit(self, oracle=None, **params):
        return self.make(**params).fit(self.X, oracle or LabelOracle(self.y))

    def fail(self, what):
        raise AssertionError(f"{self.name}: {what}")

    def expect(self, ok, what):
        if not ok:
            self.fail(what)


class _Asked:
    """An oracle that records its questions; ``answer(k, i, j)`` answers the k-th (from 0)."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def query(self, i, j):
        self.asked.append((int(i), int(j)))
        return self.answer(len(self.asked) - 1, i, j)


def _keys(pairs):
    return [frozenset(p[:2]) for p in pairs]


def _check_budget(case):
    for budget in (0, case.max_queries):
        oracle = _Asked(lambda k, i, j: case.truth(i, j))
        est = case.fit(oracle, max_queries=budget)
        case.expect(est.n_queries_ <= budget, f"asked {est.n_queries_} questions with max_queries={budget}.")
        asked, n_log = len(oracle.asked), len(est.query_log_)
        what = f"the oracle was asked {asked} times but n_queries_={est.n_queries_} and query_log_ has {n_log} entries."
        case.expect(asked == est.n_queries_ == n_log, what)
        case.expect([p[:2] for p in est.query_log_] == oracle.asked, "query_log_ is not the questions asked.")
        given = [(i, j, a) for i, j, a in est.query_log_ if a is not None]
        same = [tuple(c) for c in est.constraints_.constraints] == given
        case.expect(same, "constraints_ does not hold exactly the answers of query_log_, in order.")
        case.expect(np.shape(est.labels_) == (len(case.X),), f"labels_ has shape {np.shape(est.labels_)}.")
    case.expect(est.n_queries_ > 0, f"asked no question with max_queries={case.max_queries} on {len(case.X)} rows.")


def _check_queryable(case):
    mask, runs = np.arange(len(case.X)) % 2 == 0, []
    for queryable in (np.flatnonzero(mask), mask):
        oracle = _Asked(lambda k, i, j: case.truth(i, j))
        est = case.make().fit(case.X, oracle, queryable=queryable)
        outside = [(i, j) for i, j in oracle.asked if i == j or not (mask[i] and mask[j])]
        case.expect(not outside, f"asked {outside[:3]}, outside the queryable rows (every other row).")
        case.expect(np.shape(est.labels_) == (len(case.X),), "labels_ does not cover every row with queryable set.")
        runs.append(est.query_log_)
    case.expect(runs[0] == runs[1], "queryable as indices and as a boolean mask give different questions.")


def _check_dont_know(case):
    # "don't know" to every other question, the truth to the rest
    oracle = _Asked(lambda k, i, j: None if k % 2 == 0 else case.truth(i, j))
    est = case.fit(oracle)
    unknown = {key for key, (*_, a) in zip(_keys(est.query_log_), est.query_log_) if a is None}
    asked = _keys(oracle.asked)
    again = [tuple(sorted(key)) for key in unknown if asked.count(key) > 1]
    case.expect(not again, f"asked {again} again after 'don't know'.")
    stored = {frozenset(c[:2]) for c in est.constraints_.constraints}
    case.expect(not unknown & stored, "stored a 'don't know' answer as a constraint.")


def _check_determinism(case):
    first, second = case.fit(), case.fit()
    case.expect(first.query_log_ == second.query_log_, "the same random_state gave different questions.")
    case.expect(np.array_equal(first.labels_, second.labels_), "the same random_state gave different labels.")
    if hasattr(first, "labels_history_"):
        same = np.array_equal(np.asarray(first.labels_history_), np.asarray(second.labels_history_))
        case.expect(same, "the same random_state gave a different labels_history_.")


def _check_user_objects(case):
    estimator = case.make()
    before = pickle.dumps(estimator.get_params(deep=True))
    X, queryable = case.X.copy(), np.arange(len(case.X))[::-1].copy()
    X.setflags(write=False)  # an in-place write raises
    queryable.setflags(write=False)
    estimator.fit(X, LabelOracle(case.y), queryable=queryable)
    case.expect(np.array_equal(X, case.X), "modified X.")
    case.expect(np.array_equal(queryable, np.arange(len(case.X))[::-1]), "modified queryable.")
    case.expect(pickle.dumps(estimator.get_params(deep=True)) == before, "fit changed its parameters (or a nested estimator).")


def _check_labels_history(case):
    est = case.fit()
    if not est.anytime:
        return
    history = np.asarray(est.labels_history_)
    shape = (est.n_queries_, len(case.X))
    case.expect(history.shape == shape, f"labels_history_ has shape {history.shape}, expected {shape}.")
    case.expect(np.issubdtype(history.dtype, np.integer), f"labels_history_ has dtype {history.dtype}.")
    case.expect(np.array_equal(history[-1], est.labels_), "the last row of labels_history_ is not labels_.")


def _check_session(case):
    template = case.make()
    session = ActiveSession(template, case.X)
    while (pair := session.ask()) is not None:
        case.expect(session.ask() == pair, "ask() changed its question before tell().")
        session.tell(pair, case.truth(*pair))
    fitted = session.finish()
    direct = case.fit()
    case.expect(fitted.query_log_ == direct.query_log_, "ActiveSession asked other questions than fit.")
    case.expect(np.array_equal(fitted.labels_, direct.labels_), "ActiveSession gave other labels than fit.")
    case.expect(not hasattr(template, "labels_"), "ActiveSession fitted the estimator given to it (not a clone).")
    half = len(direct.query_log_) // 2
    resumed = ActiveSession(template, case.X)
    n = resumed.replay({(i, j): a for i, j, a in direct.query_log_[:half]})
    case.expect(n == half, f"replay of {half} answers took {n}.")
    expected = direct.query_log_[half][:2] if half < len(direct.query_log_) else None
    case.expect(resumed.ask() == expected, f"after replay it asks {resumed.ask()}, fit asked {expected}.")


def _check_bad_oracle(case):
    estimator = case.make()
    for bad, argument in ((case.y, "'oracle'"), (_Asked(lambda k, i, j: "yes"), "'answer'")):
        try:
            estimator.fit(case.X, bad)
        except TypeError as error:
            case.expect(argument in str(error), f"the error on a bad oracle does not name {argument}: {error}")
        else:
            case.fail(f"fit accepted a bad oracle ({type(bad).__name__}).")

    def fails_second(k, i, j):
        if k == 1:
            raise LookupError("the oracle failed")
        return case.truth(i, j)

    try:
        estimator.fit(case.X, _Asked(fails_second))
    except LookupError:
        case.expect(estimator.n_queries_ == len(estimator.query_log_) == 1, "lost the answer before a failure.")
        case.expect(not hasattr(estimator, "labels_"), "a failed fit left labels_ (it looks fitted).")
    else:
        case.fail("swallowed the error of an oracle.")


def _check_wrong_answers(case):
    # a person gets some answers wrong: contradictions are the method's to handle, never a crash
    est = case.fit(LabelOracle(case.y, noise=0.3, random_state=0), max_queries=3 * case.max_queries)
    case.expect(np.shape(est.labels_) == (len(case.X),), "wrong answers left labels_ incomplete.")


def _check_params(case):
    estimator = case.estimator
    params = estimator.get_params(deep=False)
    names = set(type(estimator)._get_param_names())
    case.expect(set(params) == names, f"get_params lists {sorted(params)}, the constructor takes {sorted(names)}.")
    copy = clone(estimator)
    case.expect(copy.set_params(**params) is copy, "set_params does not return the estimator.")
    case.expect(repr(copy) == repr(estimator), "set_params(**get_params()) changed the estimator.")
    fitted = case.fit()
    case.expect(not hasattr(clone(fitted), "labels_"), "clone of a fitted estimator is fitted.")
    again = pickle.loads(pickle.dumps(fitted))
    case.expect(np.array_equal(again.labels_, fitted.labels_), "a pickled fitted estimator lost its labels_.")


def _check_predict(case):
    est = case.fit()
    rows = est.predictor_.rows  # fitted rows where the rule is exact (representatives, kept rows, unasked rows)
    exact = est.predict(case.X[rows])
    case.expect(np.array_equal(exact, est.labels_[rows]), "predict on the rows its rule keeps (e.g. the "
                "representatives) does not give their labels_.")
    rng = np.random.RandomState(0)
    X_new = case.X[rng.randint(len(case.X), size=7)] + rng.normal(scale=0.1, size=(7, case.X.shape[1]))
    labels = est.predict(X_new)
    case.expect(labels.shape == (7,) and np.issubdtype(labels.dtype, np.integer),
                f"predict on 7 new rows returned shape {labels.shape} and dtype {labels.dtype}.")
    case.expect(np.isin(labels, est.labels_).all(), "predict returned a label that labels_ does not hold.")
    case.expect(np.array_equal(labels, est.predict(X_new)), "predict gave other labels when called again.")
    case.expect(np.array_equal(case.fit().predict(X_new), labels), "the same random_state predicted other labels.")
    try:
        est.predict(case.X[:, :-1] if case.X.shape[1] > 1 else np.hstack([case.X, case.X]))
    except ValueError as error:
        case.expect("X" in str(error) and str(case.X.shape[1]) in str(error),
                    f"the error on new rows with another number of features names neither X nor the count: {error}")
    else:
        case.fail("predict accepted rows with another number of features than fit.")
    case.expect(np.array_equal(case.make().fit_predict(case.X, LabelOracle(case.y)), est.labels_),
                "fit_predict did not return the labels_ of fit.")


_CHECKS = [check for name, check in list(globals().items()) if name.startswith("_check_")]  # in the order above


# -- shapes and kinds of data, for active estimators and constrained clusterers alike ------------------------
def _shape_data(n, d):
    """``n`` rows of ``d`` features in three groups (row i in group i % 3), seeded by the shape."""
    y = np.arange(n) % 3
    return np.random.RandomState(1000 * n + d).normal(size=(n, d)) + 3.0 * y[:, None], y


def _fit_any(case, X, y):
    """Fit a clone of the estimator on ``X`` (true groups ``y``): with an oracle and a budget of 3 if it is
    active, else with a must-link and a cannot-link (or seeds); the fitted clone."""
    est = clone(case.estimator)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=0)
    if case.active:
        return est.set_params(max_queries=_SHAPE_BUDGET).fit(X, LabelOracle(y))
    n = len(y)
    if "ml" in inspect.signature(est.fit).parameters:
        return est.fit(X, ml=[(0, 3)] if n > 3 else None, cl=[(0, 1)])
    seeds = np.full(n, -1)
    seeds[:2] = (0, 1)  # two seeds in two clusters
    return est.fit(X, seeds)


def _names(estimator):
    """The estimator's parameter names, nested ones by their own name (``n_clusters`` of a clusterer)."""
    return {key.rsplit("__", 1)[-1] for key in estimator.get_params(deep=True)}


def _fits_or_refuses(case, X, y, what, *, may_refuse=True, sized=True):
    """Fit on ``X``: it works (labels for every row, the budget kept, no storm of warnings) or, if
    ``may_refuse``, raises one ValueError line naming a parameter and, if ``sized``, the data's size (else
    a parameter or X)."""
    n, d = np.shape(X)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = _fit_any(case, X, y)
    except ValueError as error:  # InvalidParameterError included
        message = str(error).strip()
        case.expect(may_refuse, f"refused {what}: {message}")
        case.expect("\n" not in message, f"refused {what} in several lines: {message!r}")
        names = _names(case.estimator) | (set() if sized else {"X"})
        named = any(re.search(rf"\b{re.escape(name)}\b", message) for name in names)
        if sized:
            named = named and re.search(rf"\b({n}|{d})\b", message)
        needed = f"a parameter and the {n} rows or {d} features it cannot take" if sized else "a parameter or X"
        case.expect(named, f"refused {what} without naming {needed}: {message}")
        return
    labels = np.asarray(est.labels_)
    case.expect(labels.shape == (n,), f"labels_ of shape {labels.shape} for {what}.")
    case.expect(np.issubdtype(labels.dtype, np.integer), f"labels_ of dtype {labels.dtype} for {what}.")
    if case.active:
        case.expect(est.n_queries_ == len(est.query_log_) <= _SHAPE_BUDGET,
                    f"asked {len(est.query_log_)} questions with max_queries={_SHAPE_BUDGET} on {what}.")
    # a ResourceWarning is the garbage collector finalising what ran before (Python 3.13 warns of every sqlite3
    # connection left open), which it may do in the middle of any fit: not the estimator's warning
    caught = [w for w in caught if not issubclass(w.category, ResourceWarning)]
    storm = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    case.expect(len(caught) <= _MAX_WARNINGS, f"{len(caught)} warnings fitting {what}: {storm[:3]}")


def _check_shapes(case):
    for n, d in case.shapes:  # the most rows of the grid are no reason to refuse: a method refusing all fails
        _fits_or_refuses(case, *_shape_data(n, d), f"{n} rows x {d} features", may_refuse=n < N_ROWS[-1])


def _check_data_kinds(case):
    X, y = _shape_data(30, 4)
    X[:, 1], X[:, 3] = 0.0, 7.5
    kinds = {"constant columns": (X, y), "duplicate rows": (np.repeat(X[:10], 3, axis=0), np.repeat(y[:10], 3)),
             "float32 data": (X.astype(np.float32), y)}
    try:
        import pandas as pd
    except ImportError:  # no DataFrame to give it then
        pass
    else:
        kinds["a pandas DataFrame"] = (pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])]), y)
    frozen = X.copy()
    frozen.setflags(write=False)
    kinds["a read-only array"] = (frozen, y)
    for what, (data, labels) in kinds.items():
        _fits_or_refuses(case, data, labels, what, may_refuse=False)
    _fits_or_refuses(case, np.ones((30, 4)), y, "30 identical rows", sized=False)


_DATA_CHECKS = [_check_shapes, _check_data_kinds]


def _check_features_in(case):
    X, y = _shape_data(30, 4)
    est = _fit_any(case, X, y)
    case.expect(getattr(est, "n_features_in_", None) == 4, f"n_features_in_ is {getattr(est, 'n_features_in_', None)!r} "
                "after fitting 4 features.")
    case.expect(not hasattr(est, "feature_names_in_"), "set feature_names_in_ for an array, which has no column names.")
    try:
        import pandas as pd
    except ImportError:  # no DataFrame to give it then
        return
    columns = ["height", "width", "depth", "weight"]
    est = _fit_any(case, pd.DataFrame(X, columns=columns), y)
    names = list(getattr(est, "feature_names_in_", []))
    case.expect(names == columns, f"feature_names_in_ is {names} after fitting a DataFrame with columns {columns}.")


def _check_pair_arguments(case):
    if "ml" not in inspect.signature(case.estimator.fit).parameters:
        return
    X, _ = _shape_data(30, 2)
    for bad in ([(0.5, 3)], [(True, 3)], [("0", "3")], [(2, 99.4)]):
        for name in ("ml", "cl"):
            try:
                clone(case.estimator).fit(X, **{name: bad})
            except ValueError as error:
                case.expect(f"'{name}'" in str(error), f"the error on {name}={bad} does not name '{name}': {error}")
            else:
                case.fail(f"took {name}={bad} (not integer row indices).")
    est = clone(case.estimator).fit(X, ml=np.array([[0, 3]], dtype=np.int32), cl=[(np.int64(0), np.uint8(1))])
    case.expect(np.shape(est.labels_) == (30,), "NumPy integer pairs gave no labels_ for every row.")


def _check_constrained_predict(case):
    X, y = _shape_data(60, 3)
    est = _fit_any(case, X, y)
    if not callable(getattr(est, "predict", None)):
        case.fail("has no predict(X) assigning new rows to the clusters found.")
    rng = np.random.RandomState(0)
    X_new = X[rng.randint(len(X), size=7)] + rng.normal(scale=0.1, size=(7, X.shape[1]))
    labels = est.predict(X_new)
    case.expect(labels.shape == (7,) and np.issubdtype(labels.dtype, np.integer),
                f"predict on 7 new rows returned shape {labels.shape} and dtype {labels.dtype}.")
    case.expect(np.isin(labels, est.labels_).all(), "predict returned a label that labels_ does not hold.")
    case.expect(np.array_equal(_fit_any(case, X, y).predict(X_new), labels),
                "the same data, constraints and random_state predicted other labels.")
    try:
        est.predict(X[:, :-1])
    except ValueError as error:
        case.expect("X" in str(error) and "3" in str(error),
                    f"the error on new rows with another number of features names neither X nor the count: {error}")
    else:
        case.fail("predict accepted rows with another number of features than fit.")


_CHECKS += [*_DATA_CHECKS, _check_features_in]
