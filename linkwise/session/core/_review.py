"""Reviewing the stored answers of a human session: every one listed (both items, who, when, what kind), searchable,
and any one changed or withdrawn, not only the latest (undo). A change or withdrawal keeps the original in the
session file's ``retracted`` table (reason 'changed' or 'withdrawn') and the session replays the file, so the
clustering follows as if the answer had been given that way.
"""

import dataclasses
from numbers import Integral

import numpy as np

from linkwise._validation import Interval, InvalidParameterError, validate_args
from linkwise.session.core._store import ANSWER_WORDS, Refused

__all__ = ["AnswerReview", "described"]

_MAX_PAGE = 200  # answers per page
_MARKS = ("pure", "complete")
_DESCRIBED = {True: "same group", False: "different groups", None: "don't know"}


def described(row, ids):
    """A recorded action in a few words ("a and b same group", "12 items marked pure", "a moved"); ``ids``: the
    rows' ids."""
    if row.members is not None:
        return f"{len(row.members)} items marked {'pure and complete' if row.kind == 'complete' else 'pure'}"
    if row.kind == "move":
        return f"{ids.iat[row.i]} moved"
    return f"{ids.iat[row.i]} and {ids.iat[row.j]} {_DESCRIBED[row.answer]}"


class AnswerReview:
    """The review part of a :class:`~linkwise.session.HumanSession`: its recorded answers listed, changed, withdrawn.

    Parameters
    ----------
    data : Dataset
    store : SessionStore
    lock : threading.RLock
        The session's lock.
    replay : Replay
        The session's replay, rebuilt after a change.
    read_only : bool
    state : callable
        ``state()``: the session's state.
    """

    def __init__(self, data, store, lock, replay, read_only, state):
        self._data, self._store, self._lock, self._replay, self._read_only = data, store, lock, replay, read_only
        self._state = state

    @validate_args({"page": [Interval(Integral, 0, None, closed="left")],
                    "size": [Interval(Integral, 1, _MAX_PAGE, closed="both")], "q": [str, None]},
                   owner="HumanSession.review")
    def review(self, page=0, size=50, q=None):
        """One page of every stored statement in effect, newest first: what a review screen lists (a move once).

        Parameters
        ----------
        page : int, default=0
            The page, from 0.
        size : int, default=50
            Statements per page (1 to 200).
        q : str, optional
            Keep the statements with this text (any case) in an item's id, the annotator, the answer (same,
            different, don't know) or the kind.

        Returns
        -------
        dict
            ``answers`` (each ``seq``, ``kind`` — question, imported, pure, complete, move —, ``rows`` and
            ``ids`` of its two items, ``answer``: same / different / don't know, None for a mark, ``n_members``
            of a mark, ``by``, ``answered_at``, ``can_change``), ``n_matching``, ``page``, ``n_pages``,
            ``page_size``, ``q``, ``revision``.

        Raises
        ------
        InvalidParameterError
            ``page`` or ``size`` is out of range, or ``q`` is not text.
        """
        ids = self._data.ids
        with self._lock:
            # a move is one statement: listed once, by its must-link with the new cluster (withdrawing it withdraws
            # the cannot-link with the old one too), so the list counts as the header and the summary do
            listed = [self._reviewed(row, ids) for row in reversed(self._store.answers())
                      if not (row.kind == "move" and row.action is not None and row.action != row.seq)]
            if q:
                needle = q.casefold()
                listed = [a for a in listed if any(needle in str(v).casefold()
                                                   for v in (*a["ids"], a["by"], a["answer"], a["kind"]))]
            n_pages = max(-(-len(listed) // size), 1)
            if page >= n_pages:
                raise InvalidParameterError(f"The 'page' argument of HumanSession.review must be from 0 to "
                                            f"{n_pages - 1} (the matching answers fill {n_pages}), got {page!r}.")
            return {"answers": listed[page * size:(page + 1) * size], "n_matching": len(listed), "page": int(page),
                    "n_pages": n_pages, "page_size": int(size), "q": q, "revision": self._replay.revision}

    @staticmethod
    def _reviewed(row, ids):
        mark = row.kind in _MARKS
        return {"seq": row.seq, "kind": row.kind, "rows": [row.i, row.j],
                "ids": [str(ids.iat[row.i]), str(ids.iat[row.j])],
                "answer": None if mark else ANSWER_WORDS[row.answer],
                "n_members": len(row.members) if mark else None, "by": row.annotator,
                "answered_at": row.answered_at, "can_change": row.kind in ("question", "imported")}

    def _stored(self, seq, owner):
        """The stored statement ``seq`` in effect (refused when read-only or when it is gone)."""
        if not isinstance(seq, (int, np.integer)) or isinstance(seq, bool):
            raise InvalidParameterError(f"The 'seq' argument of HumanSession.{owner} must be an answer's number "
                                        f"(review()'s seq), got {seq!r:.80}.")
        if self._read_only:
            raise Refused("This session was opened read-only; nothing can be changed in it.")
        row = next((r for r in self._store.answers() if r.seq == seq), None)
        if row is None:
            raise Refused(f"Answer #{seq} is no longer in effect (changed, withdrawn or undone, perhaps in another "
                          "window); the answers are shown again.")
        return row

    @validate_args({"answer": ["boolean", None]}, owner="HumanSession.change")
    def change(self, seq, answer):
        """Change the stored answer ``seq`` (a question's or an imported pair's) to ``answer``, then replay.

        Parameters
        ----------
        seq : int
            The answer's number (``review()``'s ``seq``).
        answer : bool or None
            True (same group), False (different groups), None (don't know; not for an imported pair).

        Returns
        -------
        SessionState
            The new :meth:`state`, its ``changed`` saying what changed, in words.

        Raises
        ------
        InvalidParameterError
            ``seq`` is no answer's number, or ``answer`` is not True, False or None.
        Refused
            The answer is no longer in effect, is feedback on a cluster, already
            has that value, or the session is read-only.
        SessionWriteError
            The change could not be written: nothing changed.
        """
        with self._lock:
            row = self._stored(seq, "change")
            if row.kind not in ("question", "imported"):
                raise Refused(f"Answer #{seq} is feedback on a cluster ({row.kind}): withdraw it instead.")
            if answer is None and row.kind == "imported":
                raise Refused(f"Answer #{seq} is an imported pair: it can be same or different, or withdrawn.")
            if row.answer == (None if answer is None else bool(answer)):
                raise Refused(f"Answer #{seq} is already {ANSWER_WORDS[row.answer]!r}.")
            self._store.change(seq, None if answer is None else bool(answer))
            before = described(row, self._data.ids)
            self._replay.rebuild()
            return dataclasses.replace(self._state(), changed=f"{before} -> {ANSWER_WORDS[answer]}")

    def withdraw(self, seq):
        """Withdraw the stored statement ``seq`` and the rest of its action (a move's two pairs), then replay.

        Parameters
        ----------
        seq : int
            The statement's number (``review()``'s ``seq``).

        Returns
        -------
        SessionState
            The new :meth:`state`, its ``withdrawn`` saying what was removed, in words.

        Raises
        ------
        InvalidParameterError
            ``seq`` is no statement's number.
        Refused
            The statement is no longer in effect, or the session is read-only.
        SessionWriteError
            The change could not be written: nothing changed.
        """
        with self._lock:
            row = self._stored(seq, "withdraw")
            self._store.retract(seq, "withdrawn")
            self._replay.rebuild()
            return dataclasses.replace(self._state(), withdrawn=described(row, self._data.ids))
