"""The terminal prompt of a human session: one key per answer.

Keys: ``s`` same group, ``d`` different groups, ``?`` don't know, ``u`` undo,
``q`` quit (the labels are written; every answer is already saved). When two
answers contradict each other, the prompt lists them and a digit picks the
wrong one.
"""

import os
import sys
from contextlib import contextmanager

import click
from rich.console import Console
from rich.table import Table

from linkwise.session._controller import Refused

__all__ = ["run_terminal"]

_KEYS = {"s": True, "d": False, "?": None}
_CELL = 60  # characters of a value shown in the table


def _short(value):
    value = " ".join(str(value).split())
    return value if len(value) <= _CELL else value[: _CELL - 1] + "…"


def _pair_table(items):
    a, b = items
    table = Table()
    table.add_column("")
    table.add_column("A", overflow="fold")
    table.add_column("B", overflow="fold")
    table.add_row("id", a["id"], b["id"])
    for (name, va), (_, vb) in zip(a["fields"], b["fields"]):
        table.add_row(name, _short(va), _short(vb))
    if a["text"] is not None:
        table.add_row("text", _short(a["text"]), _short(b["text"]))
    if a["image"] or a["image_error"] or b["image"] or b["image_error"]:
        table.add_row("image", "shown in the web page" if a["image"] else _short(a["image_error"]),
                      "shown in the web page" if b["image"] else _short(b["image_error"]))
    return table


@contextmanager
def _keys():
    """Read single key presses. On a POSIX terminal it stays in cbreak mode for the whole
    session, so keys typed ahead wait in the terminal's queue instead of being flushed."""
    try:
        import termios
        import tty
    except ImportError:  # Windows
        termios = None
    if termios is None or not sys.stdin.isatty():
        yield click.getchar
        return
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)  # Ctrl+C still interrupts
    try:
        yield lambda: os.read(fd, 1).decode(errors="replace")
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def run_terminal(session, labels_path, *, console=None, getchar=None):
    """Ask the session's questions in the terminal until the person quits.

    Parameters
    ----------
    session : HumanSession
    labels_path : str or Path
        Where the labels CSV (``id``, ``cluster``) is written on quit.
    console : rich.console.Console, optional
    getchar : callable, optional
        Returns one key press (default: read the terminal).

    Returns
    -------
    n_clusters : int
        Clusters in the labels written.

    Examples
    --------
    Scripted keys instead of a person: answer "same", then quit.

    >>> import os, tempfile
    >>> import pandas as pd
    >>> import linkwise as lw
    >>> from io import StringIO
    >>> from rich.console import Console
    >>> from linkwise.session import HumanSession, load_data
    >>> folder = tempfile.mkdtemp()
    >>> pd.DataFrame(lw.datasets.load("iris")[0]).to_csv(os.path.join(folder, "iris.csv"), index=False)
    >>> session = HumanSession(os.path.join(folder, "s.db"), load_data(os.path.join(folder, "iris.csv")))
    >>> keys = iter("sq")
    >>> k = run_terminal(session, os.path.join(folder, "labels.csv"), console=Console(file=StringIO()),
    ...                  getchar=lambda: next(keys))
    >>> session.state()["n_answered"]
    1
    >>> session.close()
    """
    console = console or Console(highlight=False)
    first = session.state()
    about = f"{first['data']} ({first['n_rows']} items) · {first['method']}"
    if first["embedding"]:
        about += f" · text: {first['embedding']}"
    console.print(f"[bold]linkwise[/bold] {about}", markup=True)
    console.print(f"Session file: {session.store.path} (every answer is saved at once)")
    if getchar is None:
        with _keys() as getchar:
            return _ask(session, labels_path, console, getchar)
    return _ask(session, labels_path, console, getchar)


def _ask(session, labels_path, console, getchar):
    while True:
        state = session.state()
        console.print(f"\n{state['n_answered']} answered · {state['n_clusters']} clusters")
        conflict = state["conflict"]
        if conflict is not None:
            console.print("[bold]Your answers disagree[/bold]", markup=True)
            console.print(_pair_table(conflict["items"]))
            where = "in the same group" if conflict["clustering"] == "same" else "in different groups"
            console.print(f"Your earlier answers imply '{conflict['believed']}' for A and B; the clustering "
                          f"linkwise holds now puts them {where}. Which answer is wrong?", markup=False)
            for k, a in enumerate(conflict["answers"], 1):
                when = "just now" if a["new"] else a["answered_at"]
                console.print(f"  [{k}] {a['ids'][0]} and {a['ids'][1]}: {a['answer']} ({when})", markup=False)
            console.print("Press its number, u to undo the latest answer, q to quit.", markup=False)
        elif state["question"] is not None:
            q = state["question"]
            console.print(f"[bold]Question {q['number']}:[/bold] do A and B belong to the same group?", markup=True)
            console.print(_pair_table(q["items"]))
            console.print("[s] same  [d] different  [?] don't know  [u] undo  [q] quit", markup=False)
        else:
            console.print("No more questions. [u] undo  [q] quit and save the labels", markup=False)
        key = _read_key(getchar)
        try:
            if key == "q":
                break
            if key == "u":
                session.undo(state["position"])
            elif conflict is not None and key.isdigit() and 1 <= int(key) <= len(conflict["answers"]):
                session.resolve(conflict["id"], conflict["answers"][int(key) - 1]["seq"])
            elif key in _KEYS and state["question"] is not None:
                session.answer(state["position"], _KEYS[key])
            elif key.isprintable():
                console.print(f"Key {key!r} does nothing here.", markup=False)
        except Refused as exc:  # say why; the loop shows the current state
            console.print(str(exc), markup=False)
    k = session.write_labels(labels_path)
    console.print(f"Saved {state['n_rows']} labels in {k} clusters to {labels_path}.", markup=False)
    return k


def _read_key(getchar):
    try:
        key = getchar()
    except (KeyboardInterrupt, EOFError):
        return "q"
    return key.lower() if key else "q"  # no more input: quit
