"""Tables and statistics from the raw results: summaries, wins/losses, average ranks, Friedman + Holm.

A *setting* is one column of comparison: a budget of the grid ("25 questions"), or "as cobra-25", where COBRA's rows
meet every other method's rows at the number of questions COBRA asked in the same fold (its paper's protocol).
Ranks and tests follow Demšar (JMLR 2006): methods ranked per dataset on the mean score, the Friedman test over
datasets, and Holm's step-down correction of each method's z-test against the best-ranked one.
"""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

from linkwise._extras import requires
from linkwise._validation import StrOptions, check_value, validate_args
from linkwise.bench._protocol import METRICS
from linkwise.bench._results import KEY, load_config, load_results, read_errors

with requires("bench", "linkwise.bench"):
    import pandas as pd

__all__ = ["Report", "report", "comparison_frame", "average_ranks", "friedman_holm", "wins_losses"]

ALPHA = 0.05


# built by report(): its fields are documented as attributes, not as constructor parameters
@dataclass
class Report:  # numpydoc ignore=PR01
    """What :func:`report` computed and wrote.

    Attributes
    ----------
    out : Path
        The run directory.
    config : dict
        The run's settings (``run.json``), including ``elapsed_seconds``.
    metric : str
        The metric of the tables (``"ari"``, ``"nmi"`` or ``"f"``).
    results : DataFrame
        Raw results, one row per (method, dataset, repeat, fold, budget).
    summary : DataFrame
        Mean and std of the metric over folds and repeats per setting,
        dataset and method, with the mean number of questions asked and the
        mean seconds (``summary.csv``).
    curves : DataFrame
        The learning curves: mean and std per dataset, method and budget of
        the grid; methods that choose their own number of questions appear
        with ``budget`` <NA> at their mean number of questions.
    ranks : DataFrame
        Average rank of each method per setting (1 = best; ``ranks.csv``).
    tests : DataFrame
        Friedman statistic and p-value per setting, and each method's Holm-
        corrected p-value against the best-ranked method (``tests.csv``).
    wins : DataFrame
        For each setting and pair of methods, the datasets where the first has
        the higher mean score (wins), the lower (losses), or equal (``wins.csv``).
    errors : list of dict
        Cells that failed (method, dataset, repeat, fold, error).
    figures : dict
        Dataset -> path of its learning-curve PNG.
    html : Path
        ``index.html``, showing all of the above.

    Examples
    --------
    >>> import tempfile
    >>> from linkwise.bench import run
    >>> with tempfile.TemporaryDirectory() as out:
    ...     rep = run(["iris", "wine", "glass"], ["kmeans", "cobras", "pckmeans-minmax"], [20], folds=2, out=out)
    >>> rep.settings
    ['20 questions']
    >>> float(rep.ranks["rank"].sum()), int(rep.ranks["n_datasets"].iloc[0])  # ranks 1, 2, 3 on each dataset
    (6.0, 3)
    >>> sorted(rep.figures)
    ['glass', 'iris', 'wine']
    """

    out: Path
    config: dict
    metric: str
    results: pd.DataFrame
    summary: pd.DataFrame
    curves: pd.DataFrame
    ranks: pd.DataFrame
    tests: pd.DataFrame
    wins: pd.DataFrame
    errors: list = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    html: Path = None

    @property
    def settings(self):
        """Setting labels in display order (grid budgets, then matched ones)."""
        return list(dict.fromkeys(self.summary["setting"]))


def _own_and_grid(results, config):
    """The methods that choose their own number of questions, whose rows they are, and the others' grid rows."""
    own = [m for m, meta in config["methods"].items() if meta["kind"] == "own"]
    is_own = results["method"].isin(own)
    return own, is_own, results[~is_own & results["budget"].isin(config["budgets"])]


def comparison_frame(results, config, metric):
    """Long frame (setting, method, dataset, repeat, fold, n_queries, score, seconds) of every comparison."""
    own, is_own, grid = _own_and_grid(results, config)
    cols = KEY + ["n_queries", "seconds"]
    parts = [grid[grid["budget"] == budget][cols + [metric]].assign(setting=f"{budget} questions")
             for budget in config["budgets"]]
    others = results[~is_own]
    for name in own:
        mine = results[results["method"] == name]
        if mine.empty:
            continue
        cell = mine[["dataset", "repeat", "fold", "n_queries"]].rename(columns={"n_queries": "budget"})
        cell["budget"] = cell["budget"].astype("Int64")
        matched = others.merge(cell, on=["dataset", "repeat", "fold", "budget"])
        parts += [part[cols + [metric]].assign(setting=f"as {name}") for part in (mine, matched)]
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols + [metric, "setting"])
    return frame.rename(columns={metric: "score"})


def _summary(frame, settings, config):
    summary = frame.groupby(["setting", "dataset", "method"], sort=False).agg(
        mean=("score", "mean"), std=("score", "std"), n=("score", "size"), queries=("n_queries", "mean"),
        seconds=("seconds", "mean")).reset_index()
    summary["std"] = summary["std"].fillna(0.0)  # a single fold has no spread
    return _in_order(summary, {"setting": settings, "dataset": config["datasets"], "method": list(config["methods"])})


def _in_order(frame, orders):
    """Sort ``frame`` by the given column orders (settings, then the run's dataset and method order)."""
    ranks = {column: {v: i for i, v in enumerate(order)} for column, order in orders.items()}
    return frame.sort_values(list(orders), key=lambda c: c.map(ranks[c.name]), kind="stable")


def average_ranks(matrix):
    """Average rank of each column (method) over rows (datasets); 1 = highest score, ties share ranks.

    Examples
    --------
    >>> m = pd.DataFrame({"a": [0.9, 0.8], "b": [0.5, 0.8], "c": [0.1, 0.2]})
    >>> average_ranks(m).to_dict()
    {'a': 1.25, 'b': 1.75, 'c': 3.0}
    """
    ranks = np.apply_along_axis(stats.rankdata, 1, -matrix.to_numpy())
    return pd.Series(ranks.mean(axis=0), index=matrix.columns)


def friedman_holm(matrix, alpha=ALPHA):
    """Friedman test over datasets and Holm's post-hoc test against the best-ranked method.

    Returns
    -------
    friedman : tuple (statistic, p_value)
        NaN when it is not defined (fewer than 3 methods or 2 datasets, or
        every method tied on every dataset).
    posthoc : DataFrame
        Per method: average rank, z against the best-ranked method, raw and
        Holm-adjusted p-values, and whether the difference is significant at
        ``alpha`` (Demšar, JMLR 2006, section 3.2.2).

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> m = pd.DataFrame({"a": rng.rand(8) + 1, "b": rng.rand(8), "c": rng.rand(8)})
    >>> (stat, p), posthoc = friedman_holm(m)
    >>> bool(p < 0.05), float(posthoc.loc["a", "rank"])
    (True, 1.0)
    """
    n, k = matrix.shape
    ranks = average_ranks(matrix) if n else pd.Series(np.nan, index=matrix.columns)
    posthoc = pd.DataFrame({"rank": ranks, "z": np.nan, "p": np.nan, "p_holm": np.nan, "significant": False})
    if k < 3 or n < 2 or np.all(matrix.to_numpy() == matrix.to_numpy()[:, :1]):
        return (np.nan, np.nan), posthoc
    statistic, p_value = stats.friedmanchisquare(*matrix.to_numpy().T)
    control = ranks.idxmin()
    others = ranks.drop(control)
    z = (others - ranks[control]) / np.sqrt(k * (k + 1) / (6.0 * n))
    p = 2 * stats.norm.sf(np.abs(z))
    order = np.argsort(p)
    # Holm: the i-th smallest p-value is multiplied by (m - i); adjusted values never decrease
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    for column, values in (("z", z.to_numpy()), ("p", p), ("p_holm", adjusted), ("significant", adjusted < alpha)):
        posthoc.loc[others.index, column] = values
    return (float(statistic), float(p_value)), posthoc


def wins_losses(matrix):
    """Long frame (method, opponent, wins, losses, ties) over the datasets of ``matrix``.

    Examples
    --------
    >>> m = pd.DataFrame({"a": [0.9, 0.8], "b": [0.5, 0.8]})
    >>> wins_losses(m).iloc[0].to_dict()
    {'method': 'a', 'opponent': 'b', 'wins': 1, 'losses': 0, 'ties': 1}
    """
    rows = []
    values = matrix.round(12)  # equal up to float noise counts as a tie
    for a in matrix.columns:
        for b in matrix.columns:
            if a != b:
                wins, losses = int((values[a] > values[b]).sum()), int((values[a] < values[b]).sum())
                rows.append({"method": a, "opponent": b, "wins": wins, "losses": losses,
                             "ties": len(matrix) - wins - losses})
    return pd.DataFrame(rows, columns=["method", "opponent", "wins", "losses", "ties"])


def _curves(results, config, metric):
    _, is_own, grid = _own_and_grid(results, config)
    frame = pd.concat([grid, results[is_own]], ignore_index=True)
    frame["budget"] = frame["budget"].astype("Int64")
    curves = frame.groupby(["dataset", "method", "budget"], dropna=False, sort=True).agg(
        mean=(metric, "mean"), std=(metric, "std"), queries=("n_queries", "mean")).reset_index().fillna({"std": 0.0})
    return _in_order(curves, {"dataset": config["datasets"], "method": list(config["methods"])})


@validate_args({"metric": [StrOptions(set(METRICS)), None]})
def report(out, *, metric=None, write=True):
    """Build the tables, statistics, plots and HTML report of a run directory.

    Parameters
    ----------
    out : str or Path
        A directory written by :func:`linkwise.bench.run` (``linkwise bench --out``).
    metric : {"ari", "nmi", "f"}, optional
        Metric of the tables and plots; default: the one the run was started with.
    write : bool, default=True
        Write ``summary.csv``, ``ranks.csv``, ``tests.csv``, ``wins.csv``, the
        learning-curve PNGs, ``report.md`` and ``index.html`` into ``out``.

    Returns
    -------
    Report
        The tables, statistics and the paths written.

    References
    ----------
    J. Demšar. Statistical comparisons of classifiers over multiple data sets.
    Journal of Machine Learning Research 7, 2006 (average ranks, Friedman test,
    post-hoc tests against a control method).

    S. Holm. A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6, 1979.

    Examples
    --------
    >>> import tempfile
    >>> from linkwise.bench import run, report
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = run(["iris", "wine"], ["kmeans"], budgets=[0], folds=2, out=out, write_report=False)
    ...     nmi = report(out, metric="nmi", write=False)
    >>> nmi.summary[["dataset", "method", "n"]].values.tolist()
    [['iris', 'kmeans', 2], ['wine', 'kmeans', 2]]
    """
    out = Path(out)
    results, config = load_results(out), load_config(out)
    if metric is None:  # the run's: its config was written by run, or by hand
        metric = check_value(config.get("metric", "ari"), [StrOptions(set(METRICS))], "metric", f"the config in {out}",
                             role="entry")
    frame = comparison_frame(results, config, metric)
    settings = list(dict.fromkeys(frame["setting"]))
    summary = _summary(frame, settings, config)
    ranks, tests, wins = [], [], []
    for setting in settings:  # datasets x methods of mean scores, keeping only datasets every method has
        matrix = summary[summary["setting"] == setting].pivot(index="dataset", columns="method", values="mean").dropna()
        (statistic, p_value), posthoc = friedman_holm(matrix)
        ranks.append(posthoc["rank"].rename("rank").reset_index().assign(setting=setting, n_datasets=len(matrix)))
        tests.append(posthoc.drop(columns="rank").reset_index().assign(setting=setting, friedman=statistic,
                                                                         friedman_p=p_value))
        wins.append(wins_losses(matrix).assign(setting=setting))
    rep = Report(
        out=out, config=config, metric=metric, results=results, summary=summary.reset_index(drop=True),
        curves=_curves(results, config, metric),
        ranks=_concat(ranks, ["method", "rank", "setting", "n_datasets"]),
        tests=_concat(tests, ["method", "z", "p", "p_holm", "significant", "setting", "friedman", "friedman_p"]),
        wins=_concat(wins, ["method", "opponent", "wins", "losses", "ties", "setting"]), errors=read_errors(out))
    if write:
        from linkwise.bench._html import write_report

        write_report(rep)
    return rep


def _concat(parts, columns):
    if parts := [p for p in parts if len(p)]:
        return pd.concat(parts, ignore_index=True).rename(columns={"index": "method"})
    return pd.DataFrame(columns=columns)
