"""A human session inside a notebook (JupyterLab, Notebook 7, VS Code): an anywidget over :class:`HumanSession`.

The widget shows what the web page shows, from the same controller: the question pair (or the contradiction), the
clusters with their members and marks, and, when the true labels are given, the ARI after each answer as a line
chart. The front end (``static/widget.js``, plain JavaScript, no build step) sends actions as custom messages; each is
one call of the session, which writes the session file before the synced state changes, so the same file resumes
in ``linkwise cluster`` and back. Items' images travel inside the state as ``data:`` URLs (no server to fetch them
from), read through :meth:`Dataset.image_content`'s checks.
"""

import base64
from pathlib import Path

import numpy as np

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.metrics import ari
from linkwise.session.core._feedback import NeedsConfirmation
from linkwise.session.core._store import Refused, SessionWriteError
from linkwise.session.core._summary import summary
from linkwise.session.data._data import IMAGE_TYPES, UnsafePathError
from linkwise.session.data._series import cluster_sample

with requires("notebook", "linkwise.widget"):
    import anywidget
    import traitlets

__all__ = ["SessionWidget", "widget"]

_STATIC = Path(__file__).parent / "static"
# message -> its fields and their types: an answer is true, false or null (don't know), as HumanSession.answer takes
# it; JSON numbers arrive as int, and a bool is refused where an int is meant
_ACTIONS = {"answer": {"position": str, "answer": (bool, type(None))}, "undo": {"position": str},
            "mark": {"position": str, "cluster": int, "complete": bool, "confirmed": bool},
            "move": {"position": str, "row": int, "to": int},
            "resolve": {"conflict": int, "wrong": int}}
_TYPE_WORDS = {str: "a string", int: "a whole number", bool: "true or false", (bool, type(None)): "true, false or null"}


def _fields(content):
    """The action a front end sent and its values, checked (an InvalidParameterError names what is wrong)."""
    if not isinstance(content, dict) or not isinstance(content.get("action"), str) or content["action"] not in _ACTIONS:
        raise InvalidParameterError(f"A widget message must name an action among {', '.join(_ACTIONS)}.")
    kinds = _ACTIONS[content["action"]]
    if set(content) != {"action", *kinds}:
        raise InvalidParameterError(f"The action {content['action']!r} takes the fields {', '.join(kinds)}.")
    for name, kind in kinds.items():
        if not isinstance(content[name], kind) or (kind is int and isinstance(content[name], bool)):
            raise InvalidParameterError(f"The field {name!r} of {content['action']!r} must be {_TYPE_WORDS[kind]}, "
                                        f"got {content[name]!r}.")
    return content["action"], [content[name] for name in kinds]


class SessionWidget(anywidget.AnyWidget):
    """A notebook view of a :class:`HumanSession`: answer with buttons or keys, undo, mark clusters.

    Build it with :meth:`~linkwise.session.HumanSession.widget` or :func:`linkwise.widget`. Keys (with the widget
    focused): S same, D different, ? (or K) don't know, U undo.

    Parameters
    ----------
    session : HumanSession
        A session opened for writing (the widget answers in it). Closing
        the widget closes it.
    y : array-like of shape (n_rows,), optional
        The true labels, when known (teaching, a demo): the widget draws the
        ARI of the session's clustering after each answer.

    Attributes
    ----------
    session : HumanSession
    state : dict
        :meth:`~linkwise.session.HumanSession.state`, its items with their images inline.
    clusters : dict
        :meth:`~linkwise.session.HumanSession.clusters`, likewise.
    curve : list of [int, float]
        ``[n_answered, ARI]`` since the widget was made (empty without ``y``).
    message : str
        Why the last action was refused ("" when it was not).
    refused : dict
        The items that refusal names (``items``, each with its ``cluster``), as the page shows them; for a mark on a
        large cluster whose least typical members were not all seen, also the ``mark`` to send again with
        ``confirmed`` true ({} when nothing is named).
    """

    # one module: the page's item rendering (render.js, a plain script of functions), then the widget's own code
    _esm = (_STATIC / "render.js").read_text(encoding="utf-8") + (_STATIC / "widget.js").read_text(encoding="utf-8")
    _css = _STATIC / "widget.css"
    state = traitlets.Dict().tag(sync=True)
    clusters = traitlets.Dict().tag(sync=True)
    curve = traitlets.List().tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    refused = traitlets.Dict().tag(sync=True)

    def __init__(self, session, y=None):
        # a HumanSession (not imported here: _controller imports this module for HumanSession.widget)
        if getattr(session, "read_only", True) is not False or not hasattr(session, "clusters"):
            raise InvalidParameterError("The 'session' argument of SessionWidget must be a HumanSession opened for "
                                        "writing (not read_only).")
        if session.team is not None:
            raise InvalidParameterError("A team's session is answered in its web pages, one link per annotator "
                                        "(linkwise cluster --annotators); open it without a team for the widget.")
        if y is not None:
            y = np.asarray(y)
            if y.ndim != 1 or len(y) != session.data.n_rows:
                raise InvalidParameterError(f"The 'y' argument of SessionWidget must hold one label per row "
                                            f"({session.data.n_rows}), got shape {y.shape}.")
        super().__init__()
        self.session, self._y = session, y
        self.on_msg(self._on_message)
        self._refresh(session.state())

    def _item(self, item, context=False):
        """An item as the front end shows it: its image inline; with ``context``, a time series with a few members
        of its cluster (drawn faintly behind it, as on the page)."""
        image = None
        if item["image"]:
            try:
                path, content = self.session.data.image_content(item["row"])
                image = f"data:{IMAGE_TYPES[path.suffix.lower()]};base64,{base64.b64encode(content).decode()}"
            except UnsafePathError as exc:  # changed since it was checked: shown as the reason
                item = {**item, "image_error": str(exc)}
        charts = self.session.data.charts
        if context and charts is not None:
            item = {**item, "context": charts[cluster_sample(self.session.labels(), item["row"])].transpose(0, 2, 1)
                    .tolist()}
        return {**item, "image": image}

    def _refresh(self, state, message="", refused=None):
        """Sync the session's ``state`` (a ``SessionState``; and its clusters, the curve, ``message``, the
        ``refused`` action's items) to the front end, as one update."""
        state = state.to_json()
        for part in ("question", "conflict"):
            if state[part] is not None:
                state[part] = {**state[part], "items": [self._item(it, True) for it in state[part]["items"]]}
        view = self.session.clusters()
        view["strips"] = [{**strip, "items": [self._item(it) for it in strip["items"]],
                           "doubtful": [self._item(it) for it in strip["doubtful"]]} for strip in view["strips"]]
        with self.hold_sync():
            if self._y is not None:  # a point per number of answers: an undo drops the later ones
                n, score = state["n_answered"], round(float(ari(self._y, self.session.labels())), 4)
                self.curve = [p for p in self.curve if p[0] < n] + [[n, score]]
            self.state, self.clusters, self.message, self.refused = state, view, message, refused or {}

    def _refusal(self, exc, action, values):
        """What the front end shows of a refusal naming items (as the page does): those items with their clusters,
        and for a mark that asks to be confirmed, the mark to send again with ``confirmed``."""
        if not exc.rows:
            return None
        labels = self.session.numbers()
        items = [{**self._item(self.session.data.item(r)), "cluster": int(labels[r])} for r in exc.rows]
        mark = dict(zip(("position", "cluster", "complete"), values)) if isinstance(exc, NeedsConfirmation) else None
        return {"items": items, "mark": mark and {**mark, "position": self.session.position}}

    def _on_message(self, _, content, buffers):
        try:
            action, values = _fields(content)
            # answer, undo, mark, move, resolve: the session's methods, taking the message's values in order (but a
            # mark's confirmation, which HumanSession.mark takes after the annotator a widget never names)
            method = getattr(self.session, action)
            self._refresh(method(*values[:3], confirmed=values[3]) if action == "mark" else method(*values))
        except Refused as exc:  # a stale view catches up with the session, and sees the items a refusal names
            self._refresh(self.session.state(), str(exc), self._refusal(exc, action, values))
        except (SessionWriteError, InvalidParameterError) as exc:
            self._refresh(self.session.state(), str(exc))
        finally:
            self.send({"done": True})  # the front end takes the next action

    def close(self):
        """Close the widget and its session file (which can then be opened elsewhere: the web page, ...).

        The widget's view goes with it; the lines printed instead (in the cell that closes it) say where the
        answers are and how to resume, in the notebook or with ``linkwise cluster``.
        """
        was_open = self.comm is not None
        super().close()
        if was_open and "session" in self.__dict__:  # not when __init__ refused its arguments: that session stays open
            lines = summary(self.session)
            self.session.close()
            resume = f"To resume here: lw.session.open_session({str(self.session.store.path)!r}).widget()"
            print("\n".join([lines[0], resume, *lines[1:]]))


def widget(session, y=None):
    """Show a human session in a notebook: the question, the clusters, and the ARI when ``y`` is known.

    Parameters
    ----------
    session : HumanSession
        Opened for writing; e.g. from :func:`~linkwise.session.open_session`.
    y : array-like of shape (n_rows,), optional
        The true labels, for a live learning curve (ARI after each answer).

    Returns
    -------
    SessionWidget
        Display it (the last expression of a cell). Answers are written to
        the session file as they are given.

    Examples
    --------
    >>> import os, tempfile
    >>> import linkwise as lw
    >>> X, y = lw.datasets.load("iris")
    >>> session = lw.session.open_session(os.path.join(tempfile.mkdtemp(), "iris.db"), X, lw.COBRAS(random_state=0))
    >>> w = lw.widget(session, y=y)
    >>> w.state["n_answered"], w.curve
    (0, [[0, 0.0]])
    >>> w.close()  # doctest: +ELLIPSIS
    Saved in ...iris.db: 0 questions answered.
    To resume here: lw.session.open_session('...iris.db').widget()
    To resume: linkwise cluster ...iris.parquet --session ...iris.db
    To export them: linkwise export ...
    """
    return SessionWidget(session, y)
