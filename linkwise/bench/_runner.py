"""Run the protocol: one joblib task per (method, dataset, repeat, fold) cell, results appended as cells finish.

A run that is killed loses at most the cells still running (the files are kept by :mod:`linkwise.bench._results`);
``resume=True`` skips every finished cell, retries the failed ones, and refuses other protocol settings.

Methods that decide their own number of questions (COBRA) run first; every other method is then also run, in the
same fold and repeat, at the number of questions each of them asked (the COBRA paper's protocol), besides the grid.
"""

import os
import time
import traceback
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from itertools import product
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from linkwise import datasets as _datasets
from linkwise._extras import requires
from linkwise._validation import Interval, InvalidParameterError, StrOptions, check_value, validate_args
from linkwise.bench import _results as files
from linkwise.bench._protocol import METRICS, FoldOracle, cell_seed, fold_split, score
from linkwise.bench._registry import get_methods
from linkwise.bench._report import report
from linkwise.bench._split import expand_groups

with requires("bench", "linkwise.bench"):
    import pandas as pd

__all__ = ["run", "run_cell"]


@dataclass(frozen=True)
class _Task:
    """What one worker needs for one cell (the data is loaded in the worker)."""

    spec: object
    kind: str
    dataset: str
    repeat: int
    fold: int
    budgets: tuple
    folds: int
    seed: int
    scale: object
    noise: float
    data_dir: object

    @property
    def key(self):
        return (self.spec.name, self.dataset, self.repeat, self.fold)


def run_cell(task):
    """Run one cell, never raising: ``{"key", "rows", "error"}``, rows as in :func:`~linkwise.bench.load_results`."""
    try:
        rows = _cell_rows(task)
    except Exception:  # a failing method must not stop a long benchmark: record and go on
        return {"key": task.key, "rows": [], "error": traceback.format_exc()}
    return {"key": task.key, "rows": rows, "error": None}


def _cell_rows(task):
    from linkwise.active import Random
    from linkwise.loop import ActiveSession

    X, y = _datasets.load(task.dataset, scale=task.scale, data_dir=task.data_dir)
    if X.ndim == 3 and not task.spec.series:
        X = X.reshape(len(X), -1)
    train, test = fold_split(y, task.folds, task.repeat, task.seed)[task.fold]
    k = int(np.unique(y).size)
    rs = cell_seed(task.seed, task.repeat, task.fold)
    method_rs = cell_seed(task.seed, task.repeat, 0) if task.spec.seed_per_repeat else rs
    budgets = sorted(task.budgets)

    def oracle():  # wrong answers (with noise) are the same pairs for every method of the cell
        return FoldOracle(y, train, noise=task.noise, random_state=rs)

    results = []  # (budget, n_queries, labels, seconds)
    start = time.perf_counter()
    if task.kind == "own":
        est = task.spec.make(k, None, method_rs).fit(X, oracle(), queryable=train)
        results = [(None, est.n_queries_, est.labels_, time.perf_counter() - start)]
    elif task.kind == "baseline":
        labels = task.spec.make(k, None, method_rs).fit(X).labels_
        results = [(b, 0, labels, time.perf_counter() - start) for b in budgets]
    elif task.kind in ("anytime", "nested"):
        # one run; the clustering at each budget is what labels_history_ records after that question
        # (nested methods: what a run with that budget would return, as their questions do not depend on it)
        answers = oracle()
        session = ActiveSession(task.spec.make(k, max(budgets), method_rs), X, queryable=train)
        for b in budgets:
            while session.n_queries < b and (pair := session.ask()) is not None:
                session.tell(pair, answers.query(*pair))
            results.append((b, session.n_queries, session.labels_, time.perf_counter() - start))
    else:
        for b in budgets:
            t0 = time.perf_counter()
            answers = oracle()
            if task.kind == "budget":
                labels = task.spec.make(k, b, method_rs).fit(X, answers, queryable=train).labels_
            else:  # constrained: random questions about training rows (the same seed: nested sets)
                store = Random().collect(X, answers, n_clusters=k, max_queries=b, queryable=train, random_state=rs)
                ml, cl = store.must_link_pairs(), store.cannot_link_pairs()
                labels = task.spec.make(k, b, method_rs).fit(X, ml=ml, cl=cl).labels_
            results.append((b, answers.n_queries, labels, time.perf_counter() - t0))
    return [{"method": task.spec.name, "dataset": task.dataset, "repeat": task.repeat, "fold": task.fold, "budget": b,
             "n_queries": int(q), **score(y, labels, test), "seconds": seconds} for b, q, labels, seconds in results]


# -- the run ----------------------------------------------------------------------
def _check_datasets(datasets, data_dir):
    """The dataset names of ``run``, groups expanded (default: every shipped table)."""
    names = _datasets.names(data_dir)
    if datasets is None:
        datasets = [n for n in names if n in _datasets.names() and n not in _datasets.SERIES]  # shipped tables
    datasets = expand_groups([datasets] if isinstance(datasets, str) else list(datasets))
    unknown = [d for d in datasets if d not in names]
    if unknown or not datasets:
        raise InvalidParameterError(f"Unknown dataset(s) {', '.join(map(repr, unknown)) or '(none given)'}. Known: "
                                    f"{', '.join(names)} (pass data_dir= for <name>.csv.gz files elsewhere).")
    if len(set(datasets)) != len(datasets):
        raise InvalidParameterError("The 'datasets' argument names a dataset twice.")
    return datasets


def _check_config(datasets, methods, budgets, folds, repeats, seed, scale, noise, data_dir, n_jobs, backend, scheduler,
                  metric):
    datasets = _check_datasets(datasets, data_dir)
    specs = get_methods(methods)
    try:
        given = list(budgets)
    except TypeError:
        raise InvalidParameterError(f"The 'budgets' argument of run must be a list of ints >= 0, "
                                    f"got {budgets!r}.") from None
    budgets = sorted({int(check_value(b, [Interval(Integral, 0, None, closed="left")], "budgets", "run")) for b in given})
    if not budgets:
        raise InvalidParameterError("The 'budgets' argument of run is empty; give at least one number of questions.")
    for name in datasets:  # stratified folds need a class with a row in every test fold
        largest = int(np.bincount(_datasets.load(name, data_dir=data_dir)[1]).max())
        if folds > largest:
            raise InvalidParameterError(f"The 'folds' argument of run is {folds}, more than the largest class of "
                                        f"{name!r} ({largest} rows): some test folds would be empty. "
                                        f"Use folds <= {largest}.")
    if scheduler is not None and backend != "dask":
        raise InvalidParameterError("The 'scheduler' argument of run needs backend='dask'.")
    kinds = {}
    for spec in specs:
        try:
            kinds[spec.name] = spec.kind()
        except ImportError as exc:
            raise InvalidParameterError(f"Method {spec.name!r} is not available: {exc}.") from exc
    return datasets, specs, budgets, kinds


def _open_out(out, config, resume):
    out = Path(out)
    if (out / files.RESULTS).exists() and not resume:
        raise InvalidParameterError(f"{out} already holds results; pass resume=True (--resume) to continue that run, "
                                    "or choose another out.")
    previous = files.read_config(out) if resume else None
    out.mkdir(parents=True, exist_ok=True)
    if previous is not None:
        if changed := [k for k in files.PROTOCOL_KEYS if previous.get(k) != config[k]]:
            detail = ", ".join(f"{k}={previous.get(k)!r} (now {config[k]!r})" for k in changed)
            raise InvalidParameterError(f"{out} holds a run with other settings: {detail}. Resume with the same ones.")
        # a resumed run may add methods or datasets; the report covers all of them
        config["datasets"] = list(dict.fromkeys(previous["datasets"] + config["datasets"]))
        config["methods"] = {**previous["methods"], **config["methods"]}
        config["elapsed_seconds"] = previous.get("elapsed_seconds", 0.0)
    return out


def _tasks(specs, kinds, datasets, config, frame):
    """The cells of ``specs`` that ``frame`` (the results so far) does not hold complete."""
    common = {k: config[k] for k in ("folds", "seed", "scale", "noise", "data_dir")}
    present, matched = {}, {}  # budgets per cell key (None: an own-question row); own methods' counts per fold
    for row in frame[files.KEY + ["budget", "n_queries"]].itertuples(index=False):
        present.setdefault(tuple(row[:4]), set()).add(None if pd.isna(row.budget) else int(row.budget))
        if pd.isna(row.budget):
            matched.setdefault((row.dataset, row.repeat, row.fold), set()).add(int(row.n_queries))
    tasks = []
    for spec, dataset, repeat, fold in product(specs, datasets, range(config["repeats"]), range(config["folds"])):
        key = (spec.name, dataset, repeat, fold)
        if kinds[spec.name] == "own":
            budgets, done = (), key in present
        else:
            budgets = tuple(sorted(set(config["budgets"]) | matched.get((dataset, repeat, fold), set())))
            done = set(budgets) <= present.get(key, set())
        if not done:
            tasks.append(_Task(spec, kinds[spec.name], dataset, repeat, fold, budgets, **common))
    return tasks


@contextmanager
def _executor(n_jobs, backend, scheduler):
    """joblib over loky processes or a Dask cluster: gives a map that yields cell results as they finish."""
    from joblib import Parallel, delayed, parallel_config

    with ExitStack() as stack:
        if backend == "dask":
            with requires("dask", "run(backend='dask')"):
                from distributed import Client, LocalCluster

            if scheduler is None:
                n = os.cpu_count() if n_jobs < 0 else n_jobs
                scheduler = stack.enter_context(LocalCluster(n_workers=n, threads_per_worker=1, dashboard_address=None))
            stack.enter_context(Client(scheduler))
            n_jobs = -1

        def cells(tasks):
            if not tasks:
                return
            # a fixed shuffle mixes slow and fast methods: steadier ETA and load (results do not depend on order)
            order = np.random.RandomState(0).permutation(len(tasks))
            with parallel_config(backend=backend):
                yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                    delayed(run_cell)(tasks[i]) for i in order)

        yield cells


class _Progress:
    """Cells done / total with an ETA: a rich bar on a terminal, a line every 5% in a log."""

    def __init__(self, enabled, total, done):
        with requires("bench", "linkwise.bench"):
            from rich import progress as rp
            from rich.console import Console

        self.enabled, self.total, self.done = enabled, total, done
        self.console = Console(stderr=True)
        self._bar = None
        if enabled and self.console.is_terminal:
            self._bar = rp.Progress(
                rp.TextColumn("[bold]cells"), rp.BarColumn(), rp.MofNCompleteColumn(), rp.TimeElapsedColumn(),
                rp.TextColumn("ETA"), rp.TimeRemainingColumn(), rp.TextColumn("{task.description}"),
                console=self.console)
            self._task = self._bar.add_task("", total=total, completed=done)

    def __enter__(self):
        self._start, self._paced, self._printed = time.monotonic(), None, -1
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()

    def set_done(self, done):
        self.done = done
        if self._bar is not None:
            self._bar.update(self._task, completed=done)

    def advance(self, description):
        self.done, now = self.done + 1, time.monotonic()
        # the pace is measured from the first cell done: the start-up before it (worker processes, imports) is no
        # cell's cost, and counted in made the first estimates several times too long
        self._paced = self._paced or (now, self.done)
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=description)
        elif self.enabled and (step := 20 * self.done // max(self.total, 1)) > self._printed:
            self._printed = step
            since, first = now - self._paced[0], self._paced[1]
            eta = (f"ETA {(self.total - self.done) * since / (self.done - first):.0f} s" if self.done > first
                   and since > 0 else "ETA after the next cell")
            self.console.print(f"cells {self.done}/{self.total}, {now - self._start:.0f} s elapsed, {eta}",
                               soft_wrap=True)


@validate_args({
    "folds": [Interval(Integral, 2, None, closed="left")],
    "repeats": [Interval(Integral, 1, None, closed="left")],
    "seed": [Interval(Integral, 0, None, closed="left")],
    "scale": [StrOptions({"minmax", "standard"}), None],
    "noise": [Interval(Real, 0, 1, closed="both")],
    "n_jobs": [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left")],  # -1: all cores
    "backend": [StrOptions({"loky", "dask"})],
    "metric": [StrOptions(set(METRICS))],
})
def run(datasets=None, methods=None, budgets=(0, 10, 25, 50, 100), *, folds=5, repeats=1, seed=0, scale="minmax",
        noise=0.0, data_dir=None, out="linkwise-bench", resume=False, n_jobs=1, backend="loky", scheduler=None,
        metric="ari", progress=False, write_report=True):
    """Run the cross-validation protocol and write the raw results and the report.

    Parameters
    ----------
    datasets : list of str, optional
        Dataset names (default: every shipped table; series only by name).
        A group name stands for the shipped tables of a group: ``"tuning"``
        or ``"held-out"`` (the benchmark's halves, see :func:`split_of`),
        ``"literature"`` or ``"rdatasets"`` (collections of
        :mod:`linkwise.datasets`).
    methods : list of str or MethodSpec, optional
        Registry names (default: every registered method).
    budgets : list of int, default=(0, 10, 25, 50, 100)
        Numbers of questions. Methods that choose their own (COBRA) ignore
        them, and every other method is also run at the number they asked.
    folds : int, default=5
        Stratified folds: questions only about training rows, scores on the test fold.
    repeats : int, default=1
        Repeats of the whole cross-validation with reshuffled folds and new seeds.
    seed : int, default=0
        Seeds the fold splits and every method's ``random_state``.
    scale : {"minmax", "standard", None}, default="minmax"
        Feature scaling; the COBRA and COBS papers normalise to [0, 1].
    noise : float in [0, 1], default=0.0
        Probability that the simulated person answers wrongly; the same pairs
        are answered wrongly for every method in a fold.
    data_dir : str, optional
        Extra directory of ``<name>.csv.gz`` datasets (must be readable by the workers).
    out : str or Path, default="linkwise-bench"
        Output directory (raw results, tables, plots, ``index.html``).
    resume : bool, default=False
        Continue the run in ``out``, skipping finished cells. Without it an
        ``out`` that holds results is refused.
    n_jobs : int, default=1
        Parallel workers for loky (-1: all cores), or local Dask workers.
    backend : {"loky", "dask"}, default="loky"
        Where cells run: local processes, or a Dask cluster.
    scheduler : str, optional
        Address of a running Dask scheduler; None starts a local cluster.
        Workers need linkwise installed (and ``data_dir`` readable). As
        joblib does for any backend, a cluster with a single worker thread
        runs the cells in this process instead.
    metric : {"ari", "nmi", "f"}, default="ari"
        Metric of the tables and plots (all three are in the raw results).
    progress : bool, default=False
        Show cells done / total and an ETA on stderr: a progress bar on a
        terminal, a line every 5% of the cells otherwise (logs).
    write_report : bool, default=True
        Write the tables, plots and ``index.html`` (``linkwise bench report``
        can do it later from the raw results).

    Returns
    -------
    Report
        Tables and file paths (see :func:`linkwise.bench.report`); ``report.errors``
        lists cells that failed (they are retried by a resumed run).

    References
    ----------
    T. Van Craenendonck, S. Dumančić and H. Blockeel. COBRA: a fast and simple
    method for active clustering with pairwise constraints. IJCAI 2017
    (cross-validation protocol; competitors at COBRA's number of questions).

    T. Van Craenendonck and H. Blockeel. Constraint-based clustering selection.
    Machine Learning 106, 2017 (random constraints from the training folds).

    Examples
    --------
    >>> import tempfile
    >>> from linkwise.bench import run
    >>> with tempfile.TemporaryDirectory() as out:
    ...     rep = run(["iris"], ["kmeans", "cobra-25"], budgets=[0], folds=2, out=out)
    >>> res = rep.results
    >>> asked = res.loc[res["method"] == "cobra-25", "n_queries"].tolist()  # COBRA chose how many, per fold
    >>> res.loc[res["method"] == "kmeans", "budget"].tolist() == [0, asked[0], 0, asked[1]]
    True
    >>> rep.html.name
    'index.html'
    """
    datasets, specs, budgets, kinds = _check_config(
        datasets, methods, budgets, folds, repeats, seed, scale, noise, data_dir, n_jobs, backend, scheduler, metric)
    config = {
        "datasets": datasets,
        "methods": {s.name: {"needs_k": s.needs_k, "kind": kinds[s.name], "description": s.description} for s in specs},
        "budgets": budgets, "folds": folds, "repeats": repeats, "seed": seed, "scale": scale, "noise": float(noise),
        "data_dir": None if data_dir is None else str(data_dir), "metric": metric, "elapsed_seconds": 0.0,
    }
    out = _open_out(out, config, resume)
    files.save_config(out, config)
    frame = files.results_so_far(out)
    started = time.perf_counter()
    own, others = [s for s in specs if kinds[s.name] == "own"], [s for s in specs if kinds[s.name] != "own"]
    n_cells = len(specs) * len(datasets) * repeats * folds
    phase1, later = _tasks(own, kinds, datasets, config, frame), _tasks(others, kinds, datasets, config, frame)
    files.forget_errors(out, {t.key for t in phase1 + later})
    with (_Progress(progress, n_cells, n_cells - len(phase1) - len(later)) as bar,
          _executor(n_jobs, backend, scheduler) as cells):

        def consume(tasks):
            for result in cells(tasks):
                if result["error"] is None:
                    files.append_rows(out, result["rows"])
                else:
                    files.append_error(out, result["key"], result["error"])
                bar.advance(f"{result['key'][0]} {result['key'][1]}")

        # own-question methods (COBRA) first: their counts are budgets of every other method
        consume(phase1)
        frame = files.results_so_far(out)
        phase2 = _tasks(others, kinds, datasets, config, frame)
        # a cell cut by a kill, or missing a newly matched budget, is run again whole
        files.drop_cells(out, frame, {t.key for t in phase2})
        bar.set_done(n_cells - len(phase2))
        consume(phase2)

    config["elapsed_seconds"] += time.perf_counter() - started
    files.save_config(out, config)
    return report(out, metric=metric, write=write_report)

