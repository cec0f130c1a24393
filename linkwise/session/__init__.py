"""Human sessions: a person answers an active method's questions in a web page or a terminal.

:func:`load_data` reads the person's table (CSV or Parquet) into features and
displayable rows; :class:`HumanSession` drives an
:class:`~linkwise.ActiveSession` and saves every answer in a SQLite session
file before the next question is shown, so a session survives crashes, can be
resumed, undone and exported; :func:`read_known` reads answers a person brings (constraints, partial labels) and
:func:`constraints_frame` writes a session's answers back in that format. :func:`serve` shows it as a web page on
127.0.0.1, :func:`run_terminal` as a terminal prompt, :func:`widget` in a notebook (the ``notebook`` extra);
:func:`open_session` starts or resumes one from an array or a DataFrame. The command line verbs
are ``linkwise cluster`` and ``linkwise export``. Needs the ``session`` extra
(``pip install 'linkwise[session]'``); without it, importing this package
raises an ``ImportError`` naming it.
"""

import importlib

from linkwise.intake import Dataset, UnsafePathError, embed_text, load_frame
from linkwise.session.core._import import constraints_frame, read_known
from linkwise.session.core._store import Answer, SessionFileError, SessionStore, SessionWriteError
from linkwise.session.data._data import load_data

__all__ = ["Answer", "Contradiction", "ContradictionAnswer", "Dataset", "HumanSession", "MarkConflict", "NeedsConfirmation",
           "Question", "Refused", "SessionFileError", "SessionOpening", "SessionState", "SessionStore", "SessionWidget",
           "SessionWriteError", "TeamView", "UnsafePathError", "constraints_frame", "create_app", "embed_text", "load_data",
           "load_frame", "open_session", "read_known", "run_terminal", "serve", "widget"]

# the web server, the terminal prompt and the notebook widget are imported only when used; the session itself too
_LAZY = {"create_app": "front._web", "serve": "front._web", "SessionOpening": "front._web",
         "run_terminal": "front._terminal", "SessionWidget": "front._widget", "widget": "front._widget",
         "HumanSession": "core._controller", "Refused": "core._controller", "NeedsConfirmation": "core._feedback",
         "MarkConflict": "core._feedback", "open_session": "core._open", "SessionState": "core._state",
         "Question": "core._state", "Contradiction": "core._state", "ContradictionAnswer": "core._state",
         "TeamView": "core._state"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f"linkwise.session.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'linkwise.session' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
