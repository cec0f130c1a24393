"""Files of a report: CSV tables, learning-curve PNGs, ``report.md`` and ``index.html``."""

import html
from pathlib import Path

import numpy as np

from linkwise._extras import requires

with requires("bench", "linkwise.bench"):
    import pandas as pd

__all__ = ["write_report", "learning_curve", "markdown_table"]

_METRIC_NAMES = {"ari": "ARI", "nmi": "NMI", "f": "pairwise F-measure"}


def learning_curve(curves, dataset, metric, path):
    """Plot one dataset's learning curves (mean ± std over folds and repeats) to a PNG."""
    with requires("bench", "linkwise.bench plots"):
        import matplotlib

        matplotlib.use("Agg")  # files only, never a window
        import matplotlib.pyplot as plt

    data = curves[curves["dataset"] == dataset]
    colors = plt.get_cmap("tab20").colors  # dark shades for the first ten methods, light ones after
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for n, (method, mine) in enumerate(data.groupby("method", sort=False)):
        color = colors[(2 * n) % 20 + (n >= 10)]
        if mine["budget"].isna().all():  # own number of questions: one point with its spread
            ax.errorbar(mine["queries"], mine["mean"], yerr=mine["std"], fmt="D", color=color, capsize=3, label=method)
            continue
        mine = mine.dropna(subset=["budget"])
        x = mine["budget"].to_numpy(dtype=float)
        ax.plot(x, mine["mean"], marker="o", markersize=3, color=color, linestyle="-" if n < 10 else "--", label=method)
        band = 0.12 if data["method"].nunique() <= 6 else 0.05  # many overlapping bands would hide the lines
        ax.fill_between(x, mine["mean"] - mine["std"], mine["mean"] + mine["std"], color=color, alpha=band)
    ax.set_xlabel("questions asked")
    ax.set_ylabel(f"{_METRIC_NAMES[metric]} on the test folds")
    ax.set_title(dataset)
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown_table(frame):
    """A DataFrame as a GitHub markdown table (its index is left out).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": [1], "b": ["x"]})))
    | a | b |
    |---|---|
    | 1 | x |
    """
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def _text(mean, std):
    return f"{mean:.3f} ± {std:.3f}"


def _curve_table(rep, dataset):
    """Methods x budgets of "mean ± std" for one dataset; own-question methods as "score @ questions"."""
    data = rep.curves[rep.curves["dataset"] == dataset]
    rows = []
    for method, mine in data.groupby("method", sort=False):
        if mine["budget"].isna().all():
            score = _text(mine["mean"].iloc[0], mine["std"].iloc[0])
            row = {"own questions": f"{score} @ {mine['queries'].iloc[0]:.1f}"}
        else:
            row = {f"{int(b)} q": _text(m, sd) for b, m, sd in zip(mine["budget"], mine["mean"], mine["std"])}
        rows.append({"method": method, **row})
    columns = ["method"] + [f"{b} q" for b in rep.config["budgets"]]
    table = pd.DataFrame(rows)
    columns += [c for c in table.columns if c not in columns]
    return table.reindex(columns=columns).fillna("")


def _summary_table(rep, setting, with_ranks):
    """Datasets x methods of "mean ± std" for one setting, best per dataset in bold, average ranks below."""
    data = rep.summary[rep.summary["setting"] == setting]
    cells = data.assign(text=[_text(m, s) for m, s in zip(data["mean"], data["std"])])
    table = cells.pivot(index="dataset", columns="method", values="text")
    best = data.loc[data.groupby("dataset")["mean"].idxmax(), ["dataset", "method"]]
    for dataset, method in best.itertuples(index=False):
        table.loc[dataset, method] = f"**{table.loc[dataset, method]}**"
    if setting.startswith("as "):  # how many questions the matched method asked, on average
        queries = data[data["method"] == setting[3:]].set_index("dataset")["queries"]
        table.insert(0, "questions", queries.reindex(table.index).map(lambda q: f"{q:.1f}"))
    ranks = rep.ranks[rep.ranks["setting"] == setting].set_index("method")["rank"]
    if with_ranks and len(ranks):
        row = {m: f"{ranks[m]:.2f}" for m in table.columns if m in ranks.index}
        table = pd.concat([table, pd.DataFrame([row], index=["average rank"])])
    return table.fillna("").rename_axis(index="dataset", columns=None).reset_index()


def _tests_text(rep, setting):
    tests = rep.tests[rep.tests["setting"] == setting]
    ranks = rep.ranks[rep.ranks["setting"] == setting]
    n = int(ranks["n_datasets"].iloc[0]) if len(ranks) else 0
    if tests.empty or np.isnan(tests["friedman_p"].iloc[0]):
        return f"Friedman test not defined here ({len(ranks)} methods, {n} complete datasets; it needs 3 and 2).", None
    statistic, p_value = tests["friedman"].iloc[0], tests["friedman_p"].iloc[0]
    control = ranks.loc[ranks["rank"].idxmin(), "method"]
    text = (f"Friedman χ² = {statistic:.2f}, p = {p_value:.3g} over {n} datasets. "
            f"Holm post-hoc against the best-ranked method, {control} (α = 0.05):")
    table = tests.dropna(subset=["z"]).sort_values("p")[["method", "z", "p", "p_holm", "significant"]]
    return text, table.assign(z=table["z"].map("{:.2f}".format), p=table["p"].map("{:.3g}".format),
                              p_holm=table["p_holm"].map("{:.3g}".format),
                              significant=table["significant"].map(lambda v: "yes" if v else "no"))


def _wins_table(rep, setting):
    wins = rep.wins[rep.wins["setting"] == setting]
    cells = wins.assign(text=[f"{w}/{l}" for w, l in zip(wins["wins"], wins["losses"])])
    table = cells.pivot(index="method", columns="opponent", values="text").fillna("–")
    return table.rename_axis(index="method", columns=None).reset_index()


def _runtime_table(rep):
    """Mean seconds per run at the largest budget (own-question methods: their whole run)."""
    largest = f"{rep.config['budgets'][-1]} questions"
    own = [m for m, meta in rep.config["methods"].items() if meta["kind"] == "own"]
    data = rep.summary[(rep.summary["setting"] == largest) | (rep.summary["method"].isin(own))]
    table = data.drop_duplicates(["dataset", "method"]).pivot(index="dataset", columns="method", values="seconds")
    table = table.map("{:.2f}".format)
    return table.fillna("").rename_axis(index="dataset", columns=None).reset_index()


_RUNS = {"own": "own number of questions", "anytime": "anytime: one run gives the curve",
         "nested": "one run gives the curve (questions do not depend on the budget)", "budget": "one run per budget",
         "constrained": "random questions, one fit per budget", "baseline": "no questions"}


def _methods_table(rep):
    return pd.DataFrame([{"method": name, "runs": _RUNS[meta["kind"]],
                          "K": "given the true K" if meta["needs_k"] else "finds K", "description": meta["description"]}
                         for name, meta in rep.config["methods"].items()])


def _settings_table(rep):
    c = rep.config
    done = rep.results.groupby(["method", "dataset", "repeat", "fold"]).ngroups
    scaling = {"minmax": "min-max to [0, 1] (as the COBRA and COBS papers)", "standard": "standardised (z-scores)",
               None: "raw features"}
    rows = [
        ("datasets", ", ".join(c["datasets"])),
        ("budgets (questions)", ", ".join(map(str, c["budgets"]))),
        ("protocol", f"stratified {c['folds']}-fold CV × {c['repeats']} repeat(s), seed {c['seed']}; "
                     "questions only about training rows, scores on the test fold"),
        ("scaling", scaling[c["scale"]]),
        ("answers", "simulated from the labels" + (f", {c['noise']:.0%} of them wrong" if c["noise"] else "")),
        ("metric", _METRIC_NAMES[rep.metric]),
        ("cells finished", f"{done}" + (f" ({len(rep.errors)} failed)" if rep.errors else "")),
        ("run time", f"{c.get('elapsed_seconds', 0.0):.0f} s of wall-clock time"),
    ]
    return pd.DataFrame(rows, columns=["", "value"])


def _sections(rep):
    """The report as a list of (kind, payload): "h2"/"h3"/"p" text, "table" frames, "img" paths."""
    parts = [("h2", "Run"), ("table", _settings_table(rep)), ("h2", "Methods"), ("table", _methods_table(rep))]
    metric = _METRIC_NAMES[rep.metric]
    parts.append(("h2", f"Learning curves ({metric} on the test folds, mean ± std over folds and repeats)"))
    for dataset, path in rep.figures.items():
        parts += [("h3", dataset), ("table", _curve_table(rep, dataset)), ("img", path)]
    several = rep.summary["dataset"].nunique() > 1
    parts.append(("h2", "Comparison across datasets" if several else "Comparison at equal numbers of questions"))
    for setting in rep.settings:
        parts += [("h3", setting), ("table", _summary_table(rep, setting, with_ranks=several))]
        if several:
            text, holm = _tests_text(rep, setting)
            parts += [("p", text)] + ([] if holm is None else [("table", holm)]) + [
                ("p", "Wins/losses over datasets (row method against column method):"),
                ("table", _wins_table(rep, setting))]
    parts += [("h2", "Run time (mean seconds per run at the largest budget)"), ("table", _runtime_table(rep))]
    if rep.errors:
        errors = [{**{k: e[k] for k in ("method", "dataset", "repeat", "fold")},
                   "error": e["error"].strip().splitlines()[-1]} for e in rep.errors]
        parts += [("h2", "Failed cells (run again with --resume)"), ("table", pd.DataFrame(errors))]
    return parts


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; }
th { background: #f3f3f3; }
img { max-width: 100%; margin: 0.5em 0; border: 1px solid #eee; }
"""


def write_report(rep):
    """Write every report file into ``rep.out`` and set ``rep.figures`` and ``rep.html``."""
    out = rep.out
    for name in ("summary", "ranks", "tests", "wins"):
        getattr(rep, name).to_csv(out / f"{name}.csv", index=False)
    (out / "curves").mkdir(exist_ok=True)
    rep.figures = {dataset: out / "curves" / f"{dataset}.png" for dataset in dict.fromkeys(rep.curves["dataset"])}
    for dataset, path in rep.figures.items():
        learning_curve(rep.curves, dataset, rep.metric, path)
    title = "linkwise bench report"
    md, body = [f"# {title}", ""], [f"<h1>{title}</h1>"]
    for kind, payload in _sections(rep):
        if kind in ("h2", "h3"):
            md += [f"{'#' * int(kind[1])} {payload}", ""]
            body.append(f"<{kind}>{html.escape(payload)}</{kind}>")
        elif kind == "p":
            md += [payload, ""]
            body.append(f"<p>{html.escape(payload)}</p>")
        elif kind == "table":
            md += [markdown_table(payload), ""]
            html_table = payload.to_html(escape=True, border=0, index=False)  # with the summary's bold marks
            body.append(html_table.replace("<td>**", "<td><b>").replace("**</td>", "</b></td>"))
        else:
            rel = Path(payload).relative_to(out).as_posix()
            md += [f"![{Path(payload).stem}]({rel})", ""]
            body.append(f'<img src="{html.escape(rel)}" alt="{html.escape(Path(payload).stem)}">')
    files = "raw results: results.csv · tables: summary.csv, ranks.csv, tests.csv, wins.csv · settings: run.json"
    md.append(files)
    body.append(f"<p>{html.escape(files)}</p>")
    (out / "report.md").write_text("\n".join(md) + "\n")
    rep.html = out / "index.html"
    rep.html.write_text(f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>"
                        f"<style>{_CSS}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")
