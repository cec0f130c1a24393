"""The terminal prompt of a human session: one key per answer.

Keys: ``s`` same group, ``d`` different groups, ``?`` don't know, ``u`` undo, ``q`` (or Ctrl+D) quit (the labels
are written; every answer is already saved), ``h`` the hint of each item (the digits demo: its digit; again: hidden),
``f`` both items in full, a screen at a time (the table wraps every value to the terminal's width, labelled by the
data's column names, and cuts the longest when the pair would not fit the screen), ``b`` raise the question budget
(a number, then Enter), ``c`` the clusters: a digit picks one of the nine largest, then ``p`` marks it pure, ``c``
pure and complete, ``m`` moves one of its shown items (a letter) to another cluster (a digit). When two answers
contradict each other, the prompt lists them and a digit picks the wrong one. Arrow and function keys do nothing.
When standard input is not a terminal, answers are read from it one key per line, so a session can be scripted.

Everything shown that comes from the data is plain text: rich markup is not
interpreted and control characters (which could move the cursor, clear the
screen or hide a link) are shown as "�".
"""

import codecs
import os
import re
import select
import signal
import sys
import threading
from contextlib import contextmanager

import click
import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.session.core._controller import Refused
from linkwise.session.core._counts import describe_statements
from linkwise.session.core._feedback import NeedsConfirmation
from linkwise.session.core._store import SessionWriteError
from linkwise.session.core._summary import labels_line
from linkwise.session.data._series import cluster_sample

with requires("session", "linkwise.session"):
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

__all__ = ["run_terminal"]

_KEYS = {"s": True, "d": False, "?": None}
_MENU = 9  # clusters the "c" key lists
_LETTERS = "abcdefgh"  # a listed cluster's items
_DOUBTFUL = 3  # of them, the least typical (the last letters)
_BLOCKS = "▁▂▃▄▅▆▇█"
_QUIT = {"", "q", "\x04"}  # end of input, q, Ctrl+D
_AROUND = 12  # screen lines beside the pair table: the counts, a check, the question, its frame, the keys, ...
_LEAST = 2  # lines of a value cut to fit the screen
_ENTRY = 2  # lines of an item in the cluster list
_CHART_ROWS = ("series", "cluster")  # a time series: the item's own, the median of its cluster
_ESC = 0x1B
_SEQUENCE_GAP = 0.1  # seconds: the bytes of one escape sequence arrive together; a lone Escape has none after it
# C0 and C1 controls (ESC starts terminal commands, 0x9B is an 8-bit CSI) and the bidirectional overrides
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NO_INPUT = ("--ui terminal needs a terminal, or answers on standard input (one key per line: s, d, ?, u, q); "
             "standard input {}. Run it in a terminal, pipe the answers in, or use --ui web.")


def _plain(value):
    """``value`` as inert text: no markup, no emoji codes, no control characters."""
    return Text(_CONTROL.sub("�", str(value)))


def _lines(console, value, width):
    """``value`` as inert text on one line per ``width`` columns (its runs of white space as one space)."""
    return _plain(" ".join(str(value).split())).wrap(console, width)


def _cut(lines, most, width):
    """The first ``most`` of ``lines`` (each at most ``width`` wide) as one Text, the last ending in "…" when some
    are left out."""
    if len(lines) > most:
        lines = lines[:most]
        last = lines[-1]
        last.rstrip()
        last.truncate(width - 1)
        last.append("…")
    return Text("\n").join(lines)


def _sparkline(points, width):
    """Values in [0, 1] as at most ``width`` block characters (each the mean of its stretch)."""
    return "".join(_BLOCKS[min(7, int(v.mean() * 8))] for v in np.array_split(points, min(width, len(points))))


def _series_rows(session, items, width):
    """Table rows drawing two time series as sparklines at most ``width`` wide, and under each the median of a few
    members of its current cluster; none for other data."""
    charts = session.data.charts
    if charts is None:
        return []
    width = max(8, min(48, width))

    def lines(values, style=None, note=""):  # values: (points, channels)
        return Text("\n".join(_sparkline(c, width) for c in values.T) + note, style=style, no_wrap=True,
                    overflow="ellipsis")

    cluster = []
    for item in items:
        members = cluster_sample(session.labels(), item["row"])
        cluster.append(lines(np.median(charts[members], axis=0), "dim", f"\nmedian of {len(members)} members")
                       if len(members) else Text("alone", style="dim"))
    own = [lines(charts[item["row"]]) for item in items]
    return [(name, *row) for name, row in zip(_CHART_ROWS, (own, cluster))]


def _shown(data, item):
    """What the person sees of ``item``, as (name, value): its id and text under the data's own column names, its
    other columns, its image."""
    text_column = data.options["text_column"]
    shown = [(data.options["id_column"] or "id", item["id"])]
    if text_column is not None:
        shown.append((text_column, "" if item["text"] is None else item["text"]))
    shown += [(name, value) for name, value in item["fields"]]
    if item["image"] or item["image_error"]:
        shown.append(("image", "shown in the web page" if item["image"] else item["image_error"]))
    return shown


def _pair_table(console, session, items, more=()):
    """The two items side by side, every value wrapped to its column, then the rows ``more`` ((name, a, b) each);
    when that would not fit the screen, the longest values are cut to a number of lines that fits. Returns the table
    and whether a value was cut."""
    a, b = (_shown(session.data, item) for item in items)
    a, b = a + [(name, va) for name, va, _ in more], b + [(name, vb) for name, _, vb in more]
    names = [name for name, _ in a] + (list(_CHART_ROWS) if session.data.charts is not None else [])
    label_width = min(max(map(len, names)), max(6, console.width // 5))
    width = max(8, (console.width - label_width - 10) // 2)  # 10: the borders and padding of three columns
    cells = [[_lines(console, v, w) for v, w in ((name, label_width), (va, width), (vb, width))]
             for (name, va), (_, vb) in zip(a, b)]
    extra = _series_rows(session, items, width)
    need = [max(map(len, row)) for row in cells]
    room = console.height - _AROUND - sum(max(str(c).count("\n") + 1 for c in row[1:]) for row in extra)
    most = max(need)
    while most > _LEAST and sum(min(n, most) for n in need) > room:
        most -= 1
    table = Table()
    table.add_column("", width=label_width)
    table.add_column("A", width=width)
    table.add_column("B", width=width)
    for k, row in enumerate(cells):
        table.add_row(*(_cut(lines, most, w) for lines, w in zip(row, (label_width, width, width))))
        if k == 0:  # the charts right after the ids
            for chart in extra:
                table.add_row(*chart)
    return table, most < max(need)


def _full(console, getchar, session, items):
    """The "f" key: both items with every value in full, a screen at a time."""
    lines = []
    for letter, item in zip("AB", items):
        lines.append(Text(letter, style="bold"))
        for name, value in _shown(session.data, item):
            lines += [Text.assemble("  ", (_plain(name).plain, "bold"))]
            lines += [Text.assemble("    ", line) for line in _lines(console, value, max(8, console.width - 4))]
    step = max(1, console.height - 2)
    for start in range(0, len(lines), step):
        for line in lines[start:start + step]:
            console.print(line)
        more = start + step < len(lines)
        _say(console, "Any key: more  [q] back to the question" if more else "Any key: back to the question.")
        if _read_key(getchar) == "q":
            return


class _TerminalKeys:
    """Key presses from a terminal in cbreak mode, one character each (UTF-8 decoded).

    Arrow and function keys send escape sequences (CSI ``ESC [ params final``,
    SS3 ``ESC O final``; Alt+key sends ``ESC key``): they are read whole and
    skipped, so none of their bytes is taken for an answer.
    """

    def __init__(self, fd, gap=_SEQUENCE_GAP):
        self.fd, self.gap = fd, gap

    def _byte(self, timeout=None):
        if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
            return None
        data = os.read(self.fd, 1)
        return data[0] if data else None  # None: end of input

    def __call__(self):
        while (byte := self._byte()) == _ESC:
            self._skip_sequence()
        return "" if byte is None else self._char(byte)

    def _char(self, byte):
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = decoder.decode(bytes([byte]))
        while not text:  # the rest of a multi-byte character
            byte = self._byte(self.gap)
            text = decoder.decode(b"" if byte is None else bytes([byte]), final=byte is None)
        return text

    def _skip_sequence(self):
        byte = self._byte(self.gap)
        if byte == ord("["):  # parameter and intermediate bytes up to a final byte in @..~
            while (byte := self._byte(self.gap)) is not None and not 0x40 <= byte <= 0x7E:
                pass
        elif byte == ord("O"):
            self._byte(self.gap)
        elif byte == _ESC:  # Alt+arrow: ESC ESC [ ...
            self._skip_sequence()
        elif byte is not None:  # Alt+key
            self._char(byte)


def _line_keys(stdin):
    """Answers from a pipe or a file: one key per line, blank lines skipped; '' at the end."""
    stream = getattr(stdin, "buffer", stdin)

    def getchar():
        while True:
            try:
                line = stream.readline()
            except OSError as exc:  # e.g. standard input opened for writing only
                raise click.ClickException(_NO_INPUT.format(f"cannot be read ({exc.strerror or exc})")) from None
            if isinstance(line, bytes):
                line = line.decode(errors="replace")
            if not line or line.strip():
                return line.strip()

    return getchar


@contextmanager
def _keys():
    """Read key presses. On a POSIX terminal it stays in cbreak mode for the whole session, so keys
    typed ahead wait in the terminal's queue instead of being flushed; any other standard input is
    read one key per line."""
    try:
        import termios
        import tty
    except ImportError:  # Windows
        termios = None
    if sys.stdin is None:  # Python found file descriptor 0 closed
        raise click.ClickException(_NO_INPUT.format("is closed"))
    try:
        fd = sys.stdin.fileno()
        interactive = os.isatty(fd)
    except (OSError, ValueError):  # replaced by an object without a file descriptor
        interactive = False
    if not interactive:
        yield _line_keys(sys.stdin)
        return
    if termios is None:
        yield click.getchar  # the Windows console
        return
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)  # Ctrl+C still interrupts
    try:
        yield _TerminalKeys(fd)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def run_terminal(session, labels_path, *, console=None, getchar=None, hints=None):
    """Ask the session's questions in the terminal until the person quits.

    Parameters
    ----------
    session : HumanSession
        The session to answer, opened for writing.
    labels_path : str or Path
        Where the labels CSV (``id``, ``cluster``) is written on quit.
    console : rich.console.Console, optional
        Where the questions are shown (default: a new console on the terminal).
    getchar : callable, optional
        Returns one key press, '' at the end of input (default: the
        terminal, or standard input one key per line when it is not a
        terminal).
    hints : sequence of str, optional
        A hint per row (the digits demo: each image's digit), shown beside
        the pair only once the person presses h (again: hidden), until the
        pair is answered.

    Returns
    -------
    int
        Clusters in the labels written.

    Raises
    ------
    click.ClickException
        There is neither a terminal nor a readable standard input.

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
    >>> session.state().n_answered
    1
    >>> session.close()
    """
    console, hints = console or Console(highlight=False), _Hints(hints)
    if getchar is None:
        with _keys() as getchar, _ctrl_c_quits(getchar) as getchar:
            return _ask(session, labels_path, console, getchar, hints)
    return _ask(session, labels_path, console, getchar, hints)


class _Hints:
    """The rows' hints (``values``; None: none) and whether the person asked to see them (``shown``, h toggles)."""

    def __init__(self, values):
        self.values, self.shown = values, False

    def rows(self, items):
        """The table row of the hints of ``items``, when shown."""
        return [("hint", *(self.values[item["row"]] for item in items))] if self.shown else []


class _CtrlC:
    """``getchar`` where Ctrl+C reads as a key that quits. Pressed while a key is awaited it quits at once;
    pressed while an answer is stored or the next question computed, it waits for that work to finish (an
    interruption there would leave the clustering in memory behind the stored answers, and the labels written
    on quit would not match them) and quits at the next key read."""

    def __init__(self, getchar):
        self.getchar, self.waiting, self.pending = getchar, False, False

    def __call__(self):
        self.waiting = True  # before looking at pending: a Ctrl+C in between then raises here, none is lost
        try:
            if self.pending:
                raise KeyboardInterrupt
            return self.getchar()
        finally:
            self.waiting = False

    def interrupt(self, signum, frame):
        if self.waiting:
            raise KeyboardInterrupt
        self.pending = True


@contextmanager
def _ctrl_c_quits(getchar):
    if threading.current_thread() is not threading.main_thread():  # only the main thread can handle signals
        yield getchar
        return
    keys = _CtrlC(getchar)
    saved = signal.signal(signal.SIGINT, keys.interrupt)
    try:
        yield keys
    finally:
        signal.signal(signal.SIGINT, saved)


def _text(*parts):
    """One Text of ``parts``: each text (shown as is, never as markup) or (text, style)."""
    return Text.assemble(*(part if isinstance(part, tuple) else _plain(part) for part in parts))


def _say(console, *parts):
    """Print one line of ``parts`` (as :func:`_text` takes them)."""
    console.print(_text(*parts))


def _ask(session, labels_path, console, getchar, hints):
    state = session.state()
    about = f"{state.data} ({state.n_rows} items) · {state.method}"
    if state.embedding:
        about += f" · text: {state.embedding}"
    _say(console, ("linkwise ", "bold"), about)
    for column, reason in session.data.dropped_columns.items():
        _say(console, f"Not clustered on {column}: {reason}")
    _say(console, f"Session file: {session.store.path} (every answer is saved at once)")
    shown = False
    while True:
        if not shown:  # after a key that changed nothing the question stays on screen
            state = session.state()
            _show(console, state, session, hints)
            shown = True
        key = _read_key(getchar)
        if key == "q":
            break
        try:
            if not _act(session, console, getchar, state, key, hints):
                continue
        except (Refused, SessionWriteError, InvalidParameterError) as exc:  # say why; the loop shows the current state (the same question)
            _say(console, str(exc))
        shown = False
    k = session.write_labels(labels_path)
    _say(console, labels_line(state.n_rows, k, labels_path))
    return k


def _act(session, console, getchar, state, key, hints):
    """Do what ``key`` does in ``state`` (any key but "q"); False when it does nothing there (said so if printable)."""
    conflict = state.conflict
    if key == "u":
        session.undo(state.position)
    elif conflict is not None and key.isdigit() and 1 <= int(key) <= len(conflict.answers):
        session.resolve(conflict.id, conflict.answers[int(key) - 1].seq)
    elif key in _KEYS and state.question is not None:
        session.answer(state.position, _KEYS[key])
        hints.shown = False  # a hint is for the pair it was asked for
    elif key == "h" and hints.values is not None:
        hints.shown = not hints.shown
    elif key == "f" and (conflict or state.question):
        _full(console, getchar, session, (conflict or state.question).items)
    elif key == "c" and conflict is None:
        _cluster_feedback(session, console, getchar)  # then the question is shown again
    elif key == "b" and state.budget is not None:
        _say(console, f"New budget (more than {state.budget} questions): type it and Enter.")
        budget = _read_number(getchar)
        if budget is not None:
            session.raise_budget(budget)
    else:
        if key.isprintable():
            _say(console, f"Key {key!r} does nothing here.")
        return False
    return True


def _entry(console, item, *before):
    """Print ``before`` (as :func:`_say` takes them), then the item's id and its text or first columns, wrapped to
    the screen's width and cut at ``_ENTRY`` lines."""
    about = item["text"] if item["text"] is not None else ", ".join(f"{k}: {v}" for k, v in item["fields"][:3])
    line = _text(*before, f"{item['id']}  {' '.join(about.split())}")
    console.print(_cut(line.wrap(console, console.width), _ENTRY, console.width))


def _cluster_feedback(session, console, getchar):
    """The "c" key: list the largest clusters, take one feedback on one of them (any unexpected key: back)."""
    view = session.clusters(limit=_MENU, per=len(_LETTERS) - _DOUBTFUL, doubtful=_DOUBTFUL)
    strips = view["strips"]
    _say(console, ("Clusters", "bold"), f" (the {len(strips)} largest)" if view["n_more"] else "")
    listed = {s["cluster"]: s for s in strips}  # the key is the cluster's own number, as on the page
    for strip in strips:
        mark = f" · marked {strip['mark'].replace('complete', 'pure and complete')}" if strip["mark"] else ""
        name = f" {strip['name']}" if strip["name"] else ""
        _entry(console, strip["items"][0],
               f"  [{strip['cluster']}] cluster {strip['cluster']}{name} · {strip['size']} "
               f"item{'' if strip['size'] == 1 else 's'}{mark} · ")
    _say(console, "Type a cluster's number and Enter, any other key to go back.")
    strip = listed.get(_read_number(getchar))
    if strip is None:
        return
    shown = strip["items"] + strip["doubtful"]
    for letter, item in zip(_LETTERS, shown):
        doubt = ("least typical · ", "dim") if item in strip["doubtful"] else ""
        _entry(console, item, f"  ({letter}) ", doubt)
    _say(console, "[p] pure  [c] pure and complete  [m] move an item  any other key: back")
    key = _read_key(getchar)
    if key in ("p", "c"):
        _mark(session, console, getchar, view["position"], strip["cluster"], complete=key == "c")
        return
    if key != "m":
        return
    _say(console, "Which item? Press its letter.")
    key = _read_key(getchar)
    items = dict(zip(_LETTERS, shown))
    if key not in items:
        return
    _say(console, f"Move {items[key]['id']} to which cluster? Type its number and Enter.")
    to = listed.get(_read_number(getchar))
    if to is not None and to is not strip:
        session.move(view["position"], items[key]["row"], to["cluster"])


def _mark(session, console, getchar, position, cluster, complete):
    """Mark ``cluster`` pure (and ``complete``); for a large one, show its least typical members first and mark
    it only if the person then says yes."""
    try:
        session.mark(position, cluster, complete=complete)
    except NeedsConfirmation as exc:
        _say(console, str(exc))
        for row in exc.rows:
            _entry(console, session.data.item(row), "    ")
        _say(console, "Mark it anyway? [y] yes  any other key: no")
        if _read_key(getchar) == "y":
            session.mark(position, cluster, complete=complete, confirmed=True)


def _progress(state):
    """The counts line: "N of M answered" (N answered without a budget), clusters, stability, outlook."""
    budget = state.budget
    answered = f"{state.n_answered} answered"
    if budget is not None:  # a team's count is everyone's answers; the budget counts the method's questions
        answered = (f"{state.n_answered} of {budget} answered" if state.team is None else
                    f"{answered} (question {state.n_asked} of {budget})")
    if state.counts.statements:  # moves, marks and imports beside the questions, as everywhere
        answered += f"; {describe_statements(state.counts)}"
    return " · ".join(part for part in (answered, f"{state.n_clusters} clusters", state.stability.message,
                                        state.outlook) if part)


def _keys_line(console, *keys):
    """Print the keys ("[s] same", ...) on as many lines as the screen's width needs, none split across two."""
    line = ""
    for key in keys:
        if line and len(line) + 2 + len(key) > console.width:
            _say(console, line)
            line = ""
        line = f"{line}  {key}" if line else key
    _say(console, line)


def _pair(console, session, items, hints):
    """Print the pair's table (with the ``hints`` shown), and under it how to see what was cut to fit the screen
    (True: something was)."""
    table, cut = _pair_table(console, session, items, hints.rows(items))
    console.print(table)
    if cut:
        _say(console, "Cut to fit the screen (…): f shows A and B in full.")
    return cut


def _show(console, state, session, hints):
    console.print(f"\n{_progress(state)}")
    if state.notice:
        _say(console, (state.notice, "bold"))
    conflict = state.conflict
    if conflict is not None:
        _say(console, ("Your answers disagree", "bold"))
        _pair(console, session, conflict.items, hints)
        where = "in the same group" if conflict.clustering == "same" else "in different groups"
        _say(console, f"Your earlier answers imply '{conflict.believed}' for A and B; the clustering "
                      f"linkwise holds now puts them {where}. Which answer is wrong?")
        for k, a in enumerate(conflict.answers, 1):
            when = "just now" if a.new else a.answered_at
            _say(console, f"  [{k}] {a.ids[0]} and {a.ids[1]}: {a.answer} ({when})")
        _say(console, "Press its number, u to undo the latest answer, q to quit.")
    elif state.question is not None:
        q = state.question
        if q.check:
            _say(console, (q.check, "bold"))
        _say(console, (f"Question {q.number}:", "bold"), " do A and B belong to the same group?")
        cut = _pair(console, session, q.items, hints)
        _keys_line(console, "[s] same", "[d] different", "[?] don't know", "[u] undo", "[c] clusters",
                   *(["[b] budget"] if state.budget is not None else []), *(["[f] in full"] if cut else []),
                   *([f"[h] {'hide the ' if hints.shown else ''}hint"] if hints.values is not None else []), "[q] quit")
    elif state.done_reason == "budget":
        _say(console, (f"Budget spent: {state.n_asked} of {state.budget} questions answered.", "bold"),
             " [b] raise the budget  [u] undo  [c] clusters  [q] quit and save the labels")
    else:
        _say(console, "No more questions: the method has what it needs. [u] undo  [c] clusters  [q] quit and save "
                      "the labels")


def _read_number(getchar):
    """Digits typed up to Enter, as an int; None when another key comes first (or none before Enter)."""
    digits = ""
    while (key := _read_key(getchar)).isdigit():
        digits += key
    return int(digits) if digits and key in ("\r", "\n") else None


def _read_key(getchar):
    try:
        key = getchar()
    except (KeyboardInterrupt, EOFError):
        return "q"
    return "q" if key in _QUIT else key.lower()
