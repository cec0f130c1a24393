"""What ``linkwise cluster`` prints when a session stops (Finish, quit or Ctrl+C): what is saved, where, and how to
go on."""

import shlex

from linkwise.session.core._counts import count_statements, describe

__all__ = ["labels_line", "summary"]


def labels_line(n_rows, n_clusters, path):
    """The line saying where the labels were written."""
    return f"Saved {n_rows} labels in {n_clusters} clusters to {path}."


def summary(session):
    """The lines printed after a session stops, below :func:`labels_line`.

    Parameters
    ----------
    session : HumanSession

    Returns
    -------
    list of str
        What is kept (``session._counts.describe``) and where, the command that resumes the session
        and the one that exports it as JSON.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> import linkwise as lw
    >>> from linkwise.session import HumanSession, load_data
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame(lw.datasets.load("iris")[0]).to_csv(os.path.join(folder, "iris.csv"), index=False)
    >>> session = HumanSession(os.path.join(folder, "s.db"), load_data(os.path.join(folder, "iris.csv")))
    >>> summary(session)[0].startswith("Saved in ") and summary(session)[0].endswith(": 0 questions answered.")
    True
    >>> session.close()
    """
    file = session.store.path
    data = "" if session.data.path is None else f" {shlex.quote(str(session.data.path))}"
    return [f"Saved in {file}: {describe(count_statements(session.store.answers()))}.",
            f"To resume: linkwise cluster{data} --session {shlex.quote(str(file))}",
            f"To export them: linkwise export {shlex.quote(str(file))} --format json -o labels.json "
            "(or csv, jsonl; --answers and --constraints too)"]
