"""Bad constructor parameters, generated from the estimators' own tables (as scikit-learn's estimator checks do).

Every linkwise estimator declares its parameters once, in scikit-learn's
``_parameter_constraints``. For each estimator and each declared parameter,
values that break the declaration are built from it (an object of no valid
type, ``generate_invalid_param_val`` of each constraint, and True where an
int or a float is wanted), and ``fit`` must refuse each in one line naming
the parameter, raising linkwise's InvalidParameterError, which scikit-learn's
catches too.
"""

import inspect
import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.datasets import make_blobs
from sklearn.utils._param_validation import Interval as SklearnInterval
from sklearn.utils._param_validation import InvalidParameterError as SklearnInvalidParameterError
from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint
from sklearn.utils.estimator_checks import check_param_validation

import linkwise as lw
from linkwise.exceptions import InvalidParameterError
from linkwise.loop import ActiveEstimator
from tests.reference import active_estimator_classes, fast_instance

X, Y = make_blobs(n_samples=30, centers=3, n_features=2, cluster_std=0.5, random_state=0)
NAMESPACES = (lw, lw.active, lw.bayes, lw.cluster, lw.cobra, lw.cobs)


def _estimator_classes():
    """Every BaseEstimator subclass with parameters defined in linkwise (every module imported), private ones
    included."""
    active_estimator_classes()  # imports every module of linkwise
    found, todo = set(), [BaseEstimator]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("linkwise.") and sub._get_param_names():
                found.add(sub)
    return sorted(found, key=lambda cls: (cls.__module__, cls.__name__))


CLASSES = _estimator_classes()
PUBLIC = sorted({obj for ns in NAMESPACES for obj in map(ns.__getattribute__, ns.__all__)
                 if inspect.isclass(obj) and obj in CLASSES}, key=lambda cls: cls.__name__)


def _fit(estimator):
    if isinstance(estimator, ActiveEstimator):
        return estimator.fit(X, lw.LabelOracle(Y))
    if hasattr(estimator, "collect"):  # a query strategy: its parameters are checked when it runs
        return estimator.collect(X, lw.LabelOracle(Y), n_clusters=3, max_queries=3, random_state=0)
    return estimator.fit(X)


def _bad_values(constraints):
    """(label, value) pairs that meet none of ``constraints``."""
    yield "bad-type", type("BadType", (), {})()
    for k, constraint in enumerate(map(make_constraint, constraints)):
        try:
            yield f"outside-{k}", generate_invalid_param_val(constraint)
        except NotImplementedError:  # no value of the type falls outside (a type, None, a random state)
            pass
    made = [make_constraint(c) for c in constraints]
    if any(isinstance(c, SklearnInterval) for c in made):  # a number is wanted
        if "boolean" not in constraints:
            yield "bool", True  # a mistake, not 1
        yield from ((label, v) for label, v in (("fraction", 2.5), ("nan", np.nan))
                    if not any(c.is_satisfied_by(v) for c in made))


def _cases():
    for cls in PUBLIC:
        estimator = fast_instance(cls)
        for name, constraints in cls._parameter_constraints.items():
            if constraints != "no_validation":
                for label, value in _bad_values(constraints):
                    yield pytest.param(estimator, name, value, id=f"{cls.__name__}-{name}-{label}")


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_parameter_is_declared_once(cls):
    declared = set(getattr(cls, "_parameter_constraints", {}))
    params = set(cls._get_param_names())
    assert declared == params, (f"{cls.__name__}: parameters without a constraint: {sorted(params - declared)}; "
                                f"constraints of no parameter: {sorted(declared - params)}")


@pytest.mark.parametrize("estimator, name, value", list(_cases()))
def test_a_bad_parameter_is_refused_naming_it(estimator, name, value):
    owner = type(estimator).__name__
    with pytest.raises(InvalidParameterError) as caught:
        _fit(fast_instance(type(estimator)).set_params(**{name: value}))
    message = str(caught.value)
    assert isinstance(caught.value, (SklearnInvalidParameterError, ValueError, TypeError))
    assert re.fullmatch(rf"The '{name}' parameter of {owner} must be .+\. Got .+ instead\.", message), message


@pytest.mark.parametrize("cls", [cls for cls in PUBLIC if hasattr(cls, "fit") and not issubclass(cls, ActiveEstimator)],
                         ids=lambda cls: cls.__name__)
def test_scikit_learns_own_parameter_check_passes(cls):
    # the constrained clusterers fit(X, y) as scikit-learn's check calls it: the tables are scikit-learn's own
    check_param_validation(cls.__name__, fast_instance(cls))


def test_every_public_estimator_is_generated():
    # the discovery finds every kind: constrained clusterers, active estimators, query strategies
    assert {"PCKMeans", "SeededKMeans", "COBS", "BayesianClustering", "ActiveCOBS", "Auto", "COBRA", "ActiveClustering",
            "NPU", "Committee", "MinMax"} <= {cls.__name__ for cls in PUBLIC}


# ids by label: a value's text can hang on set order (an invalid StrOptions value), which differs between the
# processes of pytest-xdist and would make them collect different tests
@pytest.mark.parametrize("name, value", [pytest.param(name, value, id=f"{name}-{label}")
                                         for name, constraints in lw.cobs.CANDIDATE_CONSTRAINTS.items()
                                         for label, value in _bad_values(constraints)])
def test_generate_refuses_a_bad_argument_naming_it(name, value):
    with pytest.raises(InvalidParameterError, match=rf"^The '{name}' argument of generate must be .+ Got .+ instead\.$"):
        lw.cobs.generate(X, **{name: value})


@pytest.mark.parametrize("name, value", [("n_clusters", 0), ("n_clusters", True), ("max_queries", -1),
                                         ("random_state", "seed")])
def test_collect_refuses_a_bad_argument_naming_it(name, value):
    arguments = {"n_clusters": 3, "max_queries": 3, "random_state": 0, name: value}
    with pytest.raises(InvalidParameterError, match=rf"^The '{name}' argument of Random.collect must be "):
        lw.active.Random().collect(X, lw.LabelOracle(Y), **arguments)


@pytest.mark.parametrize("make, message", [
    (lambda: lw.PCKMeans(n_clusters=31), "'n_clusters' parameter of PCKMeans must be at most the number of samples"),
    (lambda: lw.BayesianClustering(n_clusters=31), "'n_clusters' parameter of BayesianClustering must be at most"),
    (lambda: lw.BayesianActiveClustering(31), "'n_clusters' parameter of BayesianActiveClustering must be at most"),
    (lambda: lw.Auto(n_clusters=31), "'n_clusters' parameter of Auto must be at most the number of samples"),
    (lambda: lw.COBRA(n_super_instances=31), "'n_super_instances' parameter of COBRA must be at most the number"),
    (lambda: lw.ActiveClustering(lw.PCKMeans(31), lw.active.Random()),
     "'n_clusters' parameter of ActiveClustering's clusterer must be at most the number of samples"),
])
def test_a_parameter_beyond_the_data_is_refused_before_any_question(make, message):
    # _check_params_vs_input: valid alone, too large for 30 rows; an active estimator asks nothing
    oracle = lw.LabelOracle(Y)
    estimator = make()
    with pytest.raises(InvalidParameterError, match=message):
        estimator.fit(X, oracle) if isinstance(estimator, ActiveEstimator) else estimator.fit(X)
    assert not hasattr(estimator, "labels_") and getattr(estimator, "n_queries_", 0) == 0


def test_a_valid_value_of_every_kind_is_taken():
    # NumPy scalars, a Path cache, the bounds themselves: declared valid, fitted as before
    est = lw.PCKMeans(n_clusters=np.int64(3), w=np.float32(0.0), tol=0, n_init=np.uint8(2)).fit(X)
    assert est.labels_.shape == (30,)
    est = lw.NoiseRobustCOBRAS(max_queries=np.int32(0), noise_probability=0.0, window=1, random_state=np.int64(1))
    assert est.fit(X, lw.LabelOracle(Y)).n_queries_ == 0
