"""``linkwise demo``: a one-minute benchmark of the main methods on shipped data (:func:`linkwise.bench.run_demo`)."""

import click

__all__ = ["demo"]


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
    from linkwise.bench import DEMO_METHODS, run_demo
    from linkwise.bench.command import _split, print_summary

    rep = run_demo(  # bad input becomes one "Error:" line in the cli's funnel
        out,
        datasets=_split(datasets),
        methods=_split(methods) or DEMO_METHODS,
        budgets=_split(budgets, int),
        folds=folds,
        n_jobs=n_jobs,
        progress=True,
    )
    print_summary(rep)
