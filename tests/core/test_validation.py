"""Argument checks: the shared helpers, the validate_args decorator, and a test generated from every table.

Every public function and method of linkwise that checks its arguments
declares them once, in the table of ``validate_args`` (recorded on the
function as ``_arg_constraints``). The generated test finds every such
function in every module's public names, builds values that break each
declaration (as ``tests/methods/test_params.py`` does for constructors) and
checks that a call with one of them, the other arguments those of a valid
call (``VALID``), is refused in the one format naming the argument.
"""

import importlib
import inspect
import pkgutil
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.utils._param_validation import Interval as SklearnInterval
from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint

import linkwise as lw
from linkwise._validation import (
    Interval,
    StrOptions,
    check_index_set,
    check_n_clusters,
    check_value,
    magnitude_scale,
    validate_args,
)
from linkwise.exceptions import InvalidParameterError

X, Y = make_blobs(n_samples=30, centers=3, n_features=2, cluster_std=0.5, random_state=0)
POSITIVE = Interval(Integral, 1, None, closed="left")


# -- check_value and the decorator ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "constraints, value, message",
    [
        ([POSITIVE], 0, "The 'k' argument of Owner must be an int in the range [1, inf). Got 0 instead."),
        ([POSITIVE], 2.0, "must be an int in the range [1, inf). Got 2.0 instead."),
        ([POSITIVE], True, "must be an int in the range [1, inf). Got True instead."),
        ([Interval(Real, 0, 1, closed="right")], 0.0, "must be a float in the range (0.0, 1.0]. Got 0.0 instead."),
        ([Interval(Real, None, None, closed="neither")], float("nan"), "Got nan instead."),
        ([Interval(Real, 0, None, closed="left")], float("inf"), "Got inf instead."),
        (["boolean"], 1, "must be an instance of 'bool' or an instance of 'numpy.bool'. Got 1 instead."),
        ([Interval(Integral, None, 3, closed="right"), None], 4, "must be an int in the range (-inf, 3] or None. Got 4"),
        ([StrOptions({"a"}), None], "c", "must be a str among {'a'} or None. Got 'c' instead."),
        ([StrOptions({"a"})], ["a"], "must be a str among {'a'}. Got ['a'] instead."),
    ],
)
def test_check_value_messages(constraints, value, message):
    with pytest.raises(InvalidParameterError) as caught:
        check_value(value, constraints, "k", "Owner")
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypeError)


def test_check_value_returns_the_value_unconverted():
    for value in (np.int64(3), 3, np.float32(0.5) * 0 + 2):
        assert check_value(value, [POSITIVE, Interval(Real, 0, None, closed="left")], "k", "O") is value
    assert check_value(None, [POSITIVE, None], "k", "O") is None


def test_check_value_role_names_what_the_value_is():
    with pytest.raises(InvalidParameterError, match=r"^The 'n_seeds' entry of the grid of COBS must be an int"):
        check_value(0, [POSITIVE], "n_seeds", "the grid of COBS", role="entry")


def test_check_n_clusters():
    check_n_clusters(3, 3, "PCKMeans")
    with pytest.raises(InvalidParameterError, match="'n_clusters' argument of f must be at most the number of samples"):
        check_n_clusters(4, 3, "f", role="argument")


@validate_args({"k": [POSITIVE], "how": [StrOptions({"fast", "slow"})]})
def _top(values, k=1, *, how="fast"):
    """Return the ``k`` largest values.

    Parameters
    ----------
    values : list of int
        The values.
    k : int, default=1
        How many.
    how : {"fast", "slow"}, default="fast"
        Ignored.

    Returns
    -------
    list of int
        The largest values, sorted.
    """
    return sorted(values)[-k:]


class _Base:
    @validate_args({"n": [POSITIVE]})
    def __init__(self, n=1):
        self.n = n

    @validate_args({"n": [POSITIVE]})
    def take(self, n):
        return n

    @classmethod
    @validate_args({"n": [POSITIVE]})
    def make(cls, n):
        return cls(n)


class _Sub(_Base):
    pass


def test_validate_args_checks_positional_keyword_and_default_arguments():
    assert _top([3, 1, 2], 2) == [2, 3] and _top([3, 1, 2], k=np.int64(2), how="slow") == [2, 3]
    with pytest.raises(InvalidParameterError, match=r"^The 'k' argument of _top must be an int .+ Got 0 instead\.$"):
        _top([1], 0)
    with pytest.raises(InvalidParameterError, match=r"^The 'how' argument of _top must be a str among"):
        _top([1], how="quick")
    # a wrong call is Python's own TypeError, not a check's
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        _top()
    with pytest.raises(TypeError, match="multiple values for argument 'k'"):
        _top([1], 0, k=1)
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments"):
        _top([1], 1, "fast")


def test_validate_args_names_the_class_of_the_instance():
    for call, owner in ((lambda: _Sub(0), "_Sub"), (lambda: _Sub().take(0), "_Sub.take"),
                        (lambda: _Sub.make(0), "_Sub.make"), (lambda: _Base.make(n=0), "_Base.make")):
        with pytest.raises(InvalidParameterError, match=rf"^The 'n' argument of {owner} must be"):
            call()


def test_validate_args_keeps_the_signature_and_docstring_and_records_its_table():
    original = _top.__wrapped__
    assert inspect.signature(_top) == inspect.signature(original) and _top.__doc__ == original.__doc__
    assert _top.__name__ == "_top" and set(_top._arg_constraints) == {"k", "how"}


def test_validate_args_refuses_a_table_of_no_argument():
    with pytest.raises(ValueError, match="no argument kk to check"):
        validate_args({"kk": [POSITIVE]})(lambda k: k)
    with pytest.raises(ValueError, match="no argument self"):
        validate_args({"self": [POSITIVE]})(_Base.take.__wrapped__)


def test_index_set():
    assert check_index_set(np.array([True, False, True]), 3, "q", "O").tolist() == [0, 2]
    with pytest.raises(ValueError, match="shape \\(3,\\)"):
        check_index_set(np.array([True]), 3, "q", "O")
    with pytest.raises(ValueError, match="empty"):
        check_index_set([], 3, "q", "O")
    with pytest.raises(ValueError, match="1-D"):
        check_index_set([[0]], 3, "q", "O")


@pytest.mark.parametrize("peak", [2.0**-100, 1e-20, 1.0, 3.7, 1e20, 2.0**100])
def test_magnitude_scale_leaves_ordinary_data_alone(peak):
    assert magnitude_scale(np.array([[peak, -peak / 3]])) == 1.0
    assert magnitude_scale(np.zeros((3, 2))) == 1.0


@pytest.mark.parametrize("peak", [2.0**101, 1e300, np.finfo(float).max, 2.0**-101, 1e-300, 5e-324])
def test_magnitude_scale_is_an_exact_power_of_two_bringing_the_peak_to_one(peak):
    X = np.array([[peak, -peak / 3], [0.0, peak / 7]])
    scale = magnitude_scale(X)
    assert np.isfinite(scale) and np.frexp(scale)[0] == 0.5  # a power of two
    assert 1.0 <= np.abs(X / scale).max() < 2.0
    np.testing.assert_array_equal((X / scale) * scale, X)  # nothing lost


# -- the generated test: every decorated public function and method -------------------------------------------------
def _modules():
    """Every module of linkwise (a module whose extra is missing is left out)."""
    for info in pkgutil.walk_packages(lw.__path__, "linkwise."):
        if not info.name.endswith(".__main__"):  # running the command line is no import
            try:
                yield importlib.import_module(info.name)
            except ImportError:
                continue


def _decorated_in(obj):
    """The decorated functions of ``obj``: itself, or a class's methods (inherited ones too)."""
    if inspect.isclass(obj):
        for cls in obj.__mro__:
            for value in vars(cls).values():
                function = getattr(value, "__func__", value)
                if callable(function) and "_arg_constraints" in getattr(function, "__dict__", {}):
                    yield function
    elif callable(obj) and "_arg_constraints" in getattr(obj, "__dict__", {}):
        yield obj


def _discover():
    """``{qualname of the undecorated function: decorated function}`` over the public names (``__all__``) of
    every module, and the same over every name of every module (to find a decorated function left out)."""
    public, everything = {}, {}
    for module in _modules():
        names = set(getattr(module, "__all__", ()))
        for name in dir(module):
            for function in _decorated_in(getattr(module, name, None)):
                original = inspect.unwrap(function)
                everything.setdefault(original.__qualname__, function)
                if name in names:
                    public.setdefault(original.__qualname__, function)
    return public, everything


PUBLIC, EVERYTHING = _discover()


class Context:
    """What the valid calls need: data files, sessions and a benchmark run. With ``shared`` (the calls that must be
    refused before they run), the module's one session and run serve every test."""

    def __init__(self, tmp_path, monkeypatch, shared):
        self.tmp, self.monkeypatch, self.shared, self._n, self._opened = tmp_path, monkeypatch, shared, 0, []

    def fresh(self):
        self._n += 1
        return self.tmp / f"d{self._n}"

    def csv(self):
        path = self.tmp / "data.csv"
        if not path.exists():
            path.write_text("a,b\n" + "".join(f"{x:.3f},{y:.3f}\n" for x, y in X), encoding="utf-8")
        return path

    def session(self):
        """A new session of 30 rows (the shared one, if asked for)."""
        from linkwise.session import HumanSession, load_data

        if self.shared is not None:
            return self.shared.session()
        folder = self.fresh()
        folder.mkdir()
        session = HumanSession(folder / "s.db", load_data(self.csv()), lw.COBRAS(random_state=0))
        self._opened.append(session)
        return session

    def active_session(self, **kwargs):
        session = lw.ActiveSession(lw.COBRAS(max_queries=6, random_state=0), X, resume_points="every", **kwargs)
        for _ in range(2):
            pair = session.ask()
            session.tell(pair, bool(Y[pair[0]] == Y[pair[1]]))
        return session

    def bench_out(self):
        if self.shared is not None:
            return self.shared.bench_out()
        out = self.tmp / "bench"
        if not out.exists():
            lw.bench.run(["iris"], ["kmeans"], budgets=[0], folds=2, out=out, write_report=False)
        return out

    def close(self):
        for session in self._opened:
            session.close()


class Shared(Context):
    """The module's one session and benchmark run, made on first use."""

    def __init__(self, tmp_path, monkeypatch):
        super().__init__(tmp_path, monkeypatch, None)
        self._session = None

    def session(self):
        if self._session is None:
            self._session = super().session()
        return self._session


def _spec():
    from linkwise.bench import MethodSpec

    return MethodSpec("test-ward", lambda k, budget, seed: lw.PCKMeans(n_clusters=k), True, "a test entry")


def _design():
    return lw.bayes.design_matrix(np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0], [13.0]]))


def _with(defaults, given):
    return {**defaults, **given}


# For each decorated function (the qualname of the function itself): the owner its messages name and a cheap
# valid call, which takes the arguments to change. Declared arguments are given by keyword, so any can be replaced.
VALID = {
    "QueryStrategy.collect": ("Random.collect", lambda c, **k: lw.active.Random().collect(
        X, lw.LabelOracle(Y), **_with({"n_clusters": 3, "max_queries": 3, "random_state": 0}, k))),
    "ActiveEstimator.fit": ("COBRAS.fit", lambda c, **k: lw.COBRAS(max_queries=3, random_state=0).fit(
        X, **_with({"oracle": lw.LabelOracle(Y)}, k))),
    "ActiveSession.__init__": ("ActiveSession", lambda c, **k: lw.ActiveSession(
        lw.COBRAS(max_queries=3), X, **_with({"resume_points": "spaced"}, k))),
    "ActiveSession.tell": ("ActiveSession.tell", lambda c, **k: (s := c.active_session()).tell(
        **_with({"pair": s.ask(), "answer": None}, k))),
    "ActiveSession.inform": ("ActiveSession.inform", lambda c, **k: c.active_session().inform(
        **_with({"i": 0, "j": 1, "answer": True, "move": False}, k))),
    "ActiveSession.mark": ("ActiveSession.mark", lambda c, **k: c.active_session().mark(
        **_with({"rows": [0, 1], "complete": False}, k))),
    "ActiveSession.resume": ("ActiveSession.resume", lambda c, **k: lw.ActiveSession.resume(
        **_with({"point": c.active_session().resume_point()}, k))),
    "design_matrix": ("design_matrix", lambda c, **k: lw.bayes.design_matrix(X, **_with({"max_dims": 2}, k))),
    "refit_labels": ("refit_labels", lambda c, **k: lw.bayes.refit_labels(
        _design(), np.arange(8), [(0, 1)], [True], np.array([0, 0, 0, 0, 1, 1, 1, 1]), **_with({"n_clusters": 2}, k))),
    "run": ("run", lambda c, **k: lw.bench.run(["iris"], ["kmeans"], **_with(
        {"budgets": [0], "folds": 2, "repeats": 1, "seed": 0, "scale": "minmax", "noise": 0.0, "n_jobs": 1,
         "backend": "loky", "metric": "ari", "out": c.fresh(), "write_report": False}, k))),
    "report": ("report", lambda c, **k: lw.bench.report(c.bench_out(), **_with({"metric": "nmi", "write": False}, k))),
    "register": ("register", lambda c, **k: (
        c.monkeypatch.setattr("linkwise.bench._registry._REGISTERED", {}),
        lw.bench.register(**_with({"spec": _spec()}, k)))),
    "tour": ("tour", lambda c, **k: importlib.import_module("linkwise.bench._demo").tour(
        **_with({"name": "iris", "budgets": [0]}, k))),
    "generate": ("generate", lambda c, **k: lw.cobs.generate(X, **_with(
        {"algorithms": ["kmeans"], "grid": {"kmeans": {"n_clusters": [2, 3], "n_seeds": 1}},
         "dbscan_noise": "cluster", "n_jobs": None, "cache": None, "random_state": 0}, k))),
    "ConstraintStore.__init__": ("ConstraintStore", lambda c, **k: lw.ConstraintStore(
        **_with({"n": 4, "tolerant": True}, k))),
    "ConstraintStore.add_group": ("ConstraintStore.add_group", lambda c, **k: lw.ConstraintStore(4).add_group(
        **_with({"rows": [0, 1], "complete": True}, k))),
    "ConstraintStore.group_conflict": ("ConstraintStore.group_conflict", lambda c, **k: lw.ConstraintStore(
        4).group_conflict(**_with({"rows": [0, 1], "complete": False}, k))),
    "names": ("names", lambda c, **k: lw.datasets.names(**_with({"collection": "literature"}, k))),
    "load": ("load", lambda c, **k: lw.datasets.load(**_with({"name": "iris", "scale": "standard"}, k))),
    "coassociation": ("coassociation", lambda c, **k: lw.ensemble.coassociation(X, **_with(
        {"n_clusters": 3, "n_estimators": 3, "sample_fraction": 0.5, "random_state": 0}, k))),
    "ensemble_labels": ("ensemble_labels", lambda c, **k: lw.ensemble.ensemble_labels(X, **_with(
        {"n_clusters": 3, "n_estimators": 3, "sample_fraction": 1.0, "random_state": 0}, k))),
    "impute_constraints": ("impute_constraints", lambda c, **k: lw.ensemble.impute_constraints(
        np.eye(3), **_with({"kappa_ml": 0.9, "kappa_cl": 0.1}, k))),
    "image_features": ("image_features", lambda c, **k: lw.images.image_features(
        [np.zeros((8, 8))], **_with({"cell": 2, "bins": 2}, k))),
    "load_frame": ("load_frame", lambda c, **k: lw.session.load_frame(
        __import__("pandas").DataFrame(X, columns=["a", "b"]), **_with({"scale": "none"}, k))),
    "load_data": ("load_data", lambda c, **k: lw.session.load_data(c.csv(), **_with({"scale": "minmax"}, k))),
    "CallbackOracle.__init__": ("CallbackOracle", lambda c, **k: lw.CallbackOracle(
        **_with({"fn": lambda i, j: True}, k))),
    "LabelOracle.__init__": ("LabelOracle", lambda c, **k: lw.LabelOracle(
        **_with({"y": Y, "noise": 0.1, "random_state": 0}, k))),
    "LabelOracle.cluster_feedback": ("LabelOracle.cluster_feedback", lambda c, **k: lw.LabelOracle(
        Y).cluster_feedback(**_with({"labels": Y, "max_moves": 0}, k))),
    "AnswerGraph.__init__": ("AnswerGraph", lambda c, **k: lw.repair.AnswerGraph(**_with(
        {"n": 4, "noise_probability": 0.1, "prior_strength": 2.5, "max_depth": 2, "max_nodes": 10, "slack": 0}, k))),
    "series_distances": ("series_distances", lambda c, **k: lw.series.series_distances(
        np.sin(np.arange(24.0)).reshape(3, 8), **_with({"metric": "kshape", "window": 0.5}, k))),
    "cross_distances": ("cross_distances", lambda c, **k: lw.series.cross_distances(
        np.sin(np.arange(16.0)).reshape(2, 8), np.cos(np.arange(8.0)).reshape(1, 8),
        **_with({"metric": "kshape", "window": 0.0}, k))),
    "StabilityMonitor.__init__": ("StabilityMonitor", lambda c, **k: lw.StabilityMonitor(**_with(
        {"window": 3, "share": 0.5, "max_drift": 0.0, "count_contradicted": True, "max_misplaced": 0.5,
         "early_window": None, "early_max_misplaced": 0.0, "early_max_doubt": 0.5, "doubt_quantile": 1.0,
         "min_ari": 0.5, "max_rows": 2}, k))),
    "StabilityMonitor.update": ("StabilityMonitor.update", lambda c, **k: lw.StabilityMonitor().update(
        **_with({"labels": [0, 0, 1], "answered": True, "contradicted": True}, k))),
    "HumanSession.answer": ("HumanSession.answer", lambda c, **k: (s := c.session()).answer(
        **_with({"position": s.position, "answer": None}, k))),
    "ClusterFeedback.clusters": ("HumanSession.clusters", lambda c, **k: c.session().clusters(
        **_with({"limit": 2, "per": 1, "doubtful": 0}, k))),
    "ClusterFeedback.members": ("HumanSession.members", lambda c, **k: c.session().members(1, **_with(
        {"page": 0, "size": 5, "q": "1", "sort": "atypical"}, k))),
    "ClusterFeedback.mark": ("HumanSession.mark", lambda c, **k: (s := c.session()).mark(
        s.position, 1, **_with({"complete": False, "confirmed": True}, k))),
    "AnswerReview.review": ("HumanSession.review", lambda c, **k: c.session().review(
        **_with({"page": 0, "size": 200, "q": None}, k))),
    "AnswerReview.change": ("HumanSession.change", lambda c, **k: _changed(c.session(), k)),
}


def _changed(session, given):
    session.answer(session.position, True)
    return session.change(**_with({"seq": session.review()["answers"][0]["seq"], "answer": False}, given))


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch:
        made = Shared(tmp_path_factory.mktemp("shared"), monkeypatch)
        yield made
        made.close()


@pytest.fixture
def context(tmp_path, monkeypatch):
    made = Context(tmp_path, monkeypatch, None)
    yield made
    made.close()


@pytest.fixture
def refusing(tmp_path, monkeypatch, shared):
    made = Context(tmp_path, monkeypatch, shared)
    yield made
    made.close()


def _bad_values(constraints):
    """(label, value) pairs that meet none of ``constraints``."""
    made = [make_constraint(c) for c in constraints]
    candidates = [("bad-type", type("BadType", (), {})())]
    for k, constraint in enumerate(made):
        try:
            candidates.append((f"outside-{k}", generate_invalid_param_val(constraint)))
        except NotImplementedError:  # no value of the type falls outside (a type, None, a random state)
            pass
    if any(isinstance(c, SklearnInterval) for c in made):  # a number is wanted
        candidates += [("bool", True), ("fraction", 2.5), ("nan", np.nan), ("inf", np.inf), ("text", "3")]
    if "boolean" in constraints:
        candidates += [("int", 1), ("text", "yes")]
    return [(label, v) for label, v in candidates if not any(c.is_satisfied_by(v) for c in made)]


def _expected(name, owner, constraints, value):
    shown = [str(make_constraint(c)) for c in constraints]
    wanted = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    return f"The '{name}' argument of {owner} must be {wanted}. Got {value!r} instead."


def assert_refused(call, name, value, owner, constraints):
    """``call(**{name: value})`` raises linkwise's InvalidParameterError in the one format, naming ``name``."""
    try:
        call(**{name: value})
    except InvalidParameterError as error:
        assert str(error) == _expected(name, owner, constraints, value), str(error)
    else:
        pytest.fail(f"{owner} took {name}={value!r}, which its table refuses")


def _cases():
    for qualname, function in sorted(PUBLIC.items()):
        owner, _ = VALID.get(qualname, (qualname, None))
        for name, constraints in function._arg_constraints.items():
            for label, value in _bad_values(constraints):
                yield pytest.param(qualname, name, value, id=f"{owner}-{name}-{label}")


def test_every_decorated_function_is_public_and_has_a_valid_call():
    assert set(EVERYTHING) == set(PUBLIC), f"decorated but in no module's __all__: {sorted(set(EVERYTHING) - set(PUBLIC))}"
    assert set(PUBLIC) == set(VALID), (f"give these a valid call in VALID: {sorted(set(PUBLIC) - set(VALID))}; "
                                       f"no longer decorated: {sorted(set(VALID) - set(PUBLIC))}")
    # the discovery finds functions, methods, constructors, class methods and a session's parts
    assert {"generate", "QueryStrategy.collect", "StabilityMonitor.__init__", "ActiveSession.resume",
            "ClusterFeedback.members"} <= set(PUBLIC)


@pytest.mark.parametrize("qualname", sorted(VALID))
def test_the_valid_call_is_taken(qualname, context):
    VALID[qualname][1](context)


@pytest.mark.parametrize("qualname, name, value", list(_cases()))
def test_a_bad_argument_is_refused_naming_it(qualname, name, value, refusing):
    owner, call = VALID[qualname]
    assert_refused(lambda **given: call(refusing, **given), name, value, owner, PUBLIC[qualname]._arg_constraints[name])


def test_decorated_functions_keep_their_signature_and_docstring():
    for qualname, function in PUBLIC.items():
        original = inspect.unwrap(function)
        assert inspect.signature(function) == inspect.signature(original), qualname
        assert function.__doc__ == original.__doc__, qualname
        assert function.__doc__ or original.__name__ == "__init__", qualname  # a class documents its constructor


def test_the_generated_check_fails_on_an_argument_not_checked():
    # the same assertion on a function whose table is recorded but not enforced, or whose message differs
    def unchecked(k=1):
        return k

    with pytest.raises(pytest.fail.Exception, match="took k=0"):
        assert_refused(unchecked, "k", 0, "unchecked", [POSITIVE])

    def other_format(k=1):
        raise InvalidParameterError("The 'k' parameter of other_format must be an int >= 1, got 0.")

    with pytest.raises(AssertionError):
        assert_refused(other_format, "k", 0, "other_format", [POSITIVE])
