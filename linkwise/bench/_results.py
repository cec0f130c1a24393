"""The files of a run directory: the runner writes them, the report and the command line read them.

``results.csv`` holds the raw results, one row per (cell, budget), appended in
one write as each cell finishes; ``run.json`` the settings (the protocol a
resumed run must keep); ``errors.jsonl`` the tracebacks of failed cells.
"""

import json
import os
from pathlib import Path

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.bench._protocol import METRICS

with requires("bench", "linkwise.bench"):
    import pandas as pd

__all__ = ["RESULTS", "CONFIG", "ERRORS", "KEY", "COLUMNS", "PROTOCOL_KEYS", "load_results", "read_config"]

RESULTS = "results.csv"
CONFIG = "run.json"
ERRORS = "errors.jsonl"
KEY = ["method", "dataset", "repeat", "fold"]
COLUMNS = KEY + ["budget", "n_queries", *METRICS, "seconds"]
# settings that must not change when a run is resumed (methods and datasets may be added)
PROTOCOL_KEYS = ("budgets", "folds", "repeats", "seed", "scale", "noise", "data_dir")


def load_results(out):
    """Read the raw results of a run directory.

    A last line cut short by a killed run is removed from the file.

    Parameters
    ----------
    out : str or Path
        A directory written by :func:`linkwise.bench.run`.

    Returns
    -------
    pandas.DataFrame
        One row per (cell, budget) with the questions asked (``n_queries``),
        the test-fold ``ari``, ``nmi`` and pairwise ``f``, and ``seconds``;
        sorted by method, dataset, repeat, fold, budget.

    Raises
    ------
    InvalidParameterError
        If ``out`` holds no results file.

    Examples
    --------
    >>> import tempfile
    >>> from linkwise.bench import run
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = run(["wine"], ["cobras"], budgets=[5, 20], folds=2, out=out, write_report=False)
    ...     frame = load_results(out)
    >>> frame[["fold", "budget", "n_queries"]].values.tolist()
    [[0, 5, 5], [0, 20, 20], [1, 5, 5], [1, 20, 20]]
    """
    path = Path(out) / RESULTS
    if not path.is_file():
        raise InvalidParameterError(f"{out} holds no {RESULTS}: run `linkwise bench --out {out}` first.")
    with open(path, "rb+") as f:  # cut a last line a kill interrupted (cells are appended whole: at most one)
        if (data := f.read()) and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)
    frame = pd.read_csv(path, dtype={"method": str, "dataset": str})
    frame["budget"] = frame["budget"].astype("Int64")
    return frame.sort_values(KEY + ["budget"], na_position="first", kind="stable").reset_index(drop=True)


def results_so_far(out):
    """:func:`load_results`, or no rows when the run has not written any yet."""
    if (Path(out) / RESULTS).exists():
        return load_results(out)
    return pd.DataFrame({c: pd.Series(dtype="Int64" if c == "budget" else None) for c in COLUMNS})


def append_rows(out, rows):
    """Append the rows of one finished cell to ``results.csv``."""
    path = Path(out) / RESULTS
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["budget"] = frame["budget"].astype("Int64")
    text = frame.to_csv(header=not path.exists(), index=False)
    # one write per cell, then fsync: a kill can lose only cells that had not finished
    with open(path, "a", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def drop_cells(out, frame, keys):
    """Rewrite the results (``frame``) without the rows of ``keys`` (cells to be run again whole)."""
    drop = frame.set_index(KEY).index.isin(list(keys))
    if drop.any():
        path = Path(out) / RESULTS
        tmp = path.with_suffix(".tmp")
        frame[~drop].to_csv(tmp, index=False)
        os.replace(tmp, path)


def load_config(out):
    """The settings of the run in ``out`` (its ``run.json``) as they were written."""
    return json.loads((Path(out) / CONFIG).read_text())


def read_config(out):
    """The settings of the run to resume in ``out``, refused when there is none or its ``run.json`` is damaged."""
    path = Path(out) / CONFIG
    if not path.is_file():
        raise InvalidParameterError(f"Nothing to resume in {out}: it holds no {CONFIG}. Start the run without resume "
                                    "(--resume), or name the directory of an earlier run.")
    try:
        config = load_config(out)
        missing = [k for k in (*PROTOCOL_KEYS, "datasets", "methods", "metric") if k not in config]
    except (ValueError, TypeError):  # not JSON, or JSON that is not an object
        config, missing = None, ["(unreadable)"]
    if missing:
        raise InvalidParameterError(f"{path} is damaged (missing or unreadable: {', '.join(missing)}); it cannot be "
                                    "resumed. Start a new run in another directory.")
    return config


def save_config(out, config):
    tmp = Path(out) / (CONFIG + ".tmp")
    tmp.write_text(json.dumps(config, indent=2) + "\n")
    os.replace(tmp, Path(out) / CONFIG)


def read_errors(out):
    """The failed cells recorded in ``errors.jsonl``: dicts of method, dataset, repeat, fold and error."""
    path = Path(out) / ERRORS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def append_error(out, key, error):
    """Record the traceback of the failed cell ``key`` (method, dataset, repeat, fold)."""
    with open(Path(out) / ERRORS, "a") as f:
        f.write(json.dumps({**dict(zip(KEY, key)), "error": error}) + "\n")


def forget_errors(out, keys):
    """Drop the recorded failures of the cells about to run again; keep those of every other cell."""
    kept = [record for record in read_errors(out) if tuple(record[k] for k in KEY) not in keys]
    (Path(out) / ERRORS).write_text("".join(json.dumps(record) + "\n" for record in kept))
