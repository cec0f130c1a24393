"""What a person sees of a session at one moment, as one declared value: :class:`SessionState`.

:meth:`HumanSession.state <linkwise.session.HumanSession.state>` builds it, and every action (an answer, an undo, a
mark, ...) returns it. The terminal renders it from its fields; the web page and the notebook widget from
:meth:`SessionState.to_json`, its one serialisation (the JSON their scripts read). A field added here is declared,
documented and serialised in this module alone.
"""

from dataclasses import dataclass

from linkwise.session.core._counts import Counts, describe, describe_statements
from linkwise.stability import Stability

__all__ = ["Contradiction", "ContradictionAnswer", "Question", "SessionState", "TeamView"]


@dataclass(frozen=True, slots=True)
class Question:
    """The pair the person is asked about.

    Parameters
    ----------
    pair : tuple of (int, int)
        The two rows.
    number : int
        Its number among the questions (the questions answered so far, plus one).
    items : tuple of (dict, dict)
        What is shown of each row (:meth:`Dataset.item <linkwise.session.Dataset.item>`).
    check : str or None
        Why a pair the earlier answers settle is asked (a check of them), in one line; None for any other question.
    """

    pair: tuple
    number: int
    items: tuple
    check: str | None

    def to_json(self):
        """The question as the page and the widget read it.

        Returns
        -------
        dict
            ``pair``, ``number``, ``items``, ``check``: JSON values.
        """
        return {"pair": list(self.pair), "number": self.number, "items": list(self.items), "check": self.check}


@dataclass(frozen=True, slots=True)
class ContradictionAnswer:
    """One stored statement of a contradiction: the earlier ones that imply a relation, or the new one against it.

    Parameters
    ----------
    seq : int
        Its place in the session file (what :meth:`HumanSession.resolve <linkwise.session.HumanSession.resolve>` takes).
    rows : tuple of (int, int)
        The pair it relates.
    ids : tuple of (str, str)
        The ids of those rows.
    kind : str
        How it was stated ('question', 'imported', 'pure', 'complete', 'move').
    by : str
        Its annotator ("" outside a team).
    answer : str
        'same' or 'different'.
    answered_at : str
        When it was stored (ISO 8601).
    new : bool
        The statement that opened the contradiction.
    """

    seq: int
    rows: tuple
    ids: tuple
    kind: str
    by: str
    answer: str
    answered_at: str
    new: bool

    def to_json(self):
        """The statement as the page and the widget read it.

        Returns
        -------
        dict
            Its fields as JSON values (``rows`` and ``ids`` as lists).
        """
        return {"seq": self.seq, "rows": list(self.rows), "ids": list(self.ids), "kind": self.kind, "by": self.by,
                "answer": self.answer, "answered_at": self.answered_at, "new": self.new}


@dataclass(frozen=True, slots=True)
class Contradiction:
    """Answers that disagree: the earlier ones imply a relation of a pair, the latest states the other.

    Parameters
    ----------
    id : int
        The contradicting statement's place in the session file.
    pair : tuple of (int, int)
        The pair.
    items : tuple of (dict, dict)
        What is shown of its two rows.
    believed : str
        What the earlier answers imply: 'same' or 'different'.
    clustering : str
        Whether the clustering held now puts the pair together ('same') or not ('different').
    answers : tuple of ContradictionAnswer
        The earlier statements that imply ``believed``, then the new one.
    """

    id: int
    pair: tuple
    items: tuple
    believed: str
    clustering: str
    answers: tuple

    def to_json(self):
        """The contradiction as the page and the widget read it.

        Returns
        -------
        dict
            Its fields as JSON values, ``answers`` a list of theirs.
        """
        return {"id": self.id, "pair": list(self.pair), "items": list(self.items), "believed": self.believed,
                "clustering": self.clustering, "answers": [a.to_json() for a in self.answers]}


@dataclass(frozen=True, slots=True)
class TeamView:
    """One annotator's view of a team's session.

    Parameters
    ----------
    annotator : str or None
        Whose view (None: nobody's, e.g. the page before someone joins an open team).
    annotators : list of str
        The team.
    open : bool
        Whether anyone may join by name.
    overlap : float
        The share of questions given to two annotators.
    disagreement : str
        What a disagreement leads to ('repair', 'third', ...).
    agreement : list of dict
        Per annotator, then ``"all"``: agreement and Cohen's kappa on the pairs answered twice
        (``linkwise.session.core._team.agreement``).
    n_mine : int
        The questions this annotator answered.
    """

    annotator: str | None
    annotators: list
    open: bool
    overlap: float
    disagreement: str
    agreement: list
    n_mine: int

    def to_json(self):
        """The view as the page reads it.

        Returns
        -------
        dict
            Its fields as JSON values.
        """
        return {"annotator": self.annotator, "annotators": list(self.annotators), "open": self.open,
                "overlap": self.overlap, "disagreement": self.disagreement, "agreement": self.agreement,
                "n_mine": self.n_mine}


@dataclass(frozen=True, slots=True)
class SessionState:
    """Everything a front end shows of a session at one moment: the question (or contradiction), counts, progress.

    Parameters
    ----------
    position : str
        Names this state: an answer or an undo quotes it, so one given to a state seen before is refused.
    revision : str
        Changes with every change of state (what a client polls).
    question : Question or None
        The question; None when the session is done or while a contradiction is open.
    conflict : Contradiction or None
        The open contradiction, if any.
    done : bool
        No question is left (the budget is spent or the method has nothing to ask) and nothing is open.
    done_reason : str or None
        'budget' when the budget is spent, 'method' when the method has nothing left to ask; None while not done.
    n_answered : int
        The questions answered ("don't know" too); in a team's session everyone's.
    budget : int or None
        The method's ``max_queries`` (None: no limit).
    n_asked : int
        The method's questions answered so far: what the budget counts.
    outlook : str
        What more answers are expected to change, in one line ("" before any answer).
    n_clusters : int
        Clusters in the clustering shown.
    can_undo : bool
        Whether there is something to undo (an open contradiction can always be undone).
    method : str
        The method's class name.
    embedding : str or None
        The text embedding the features came from, if any.
    data : str
        The data file's name.
    n_rows : int
        Rows of the data.
    stability : Stability
        Whether the clustering shown has settled (see :class:`linkwise.StabilityMonitor`).
    notice : str or None
        ``SessionStore.notice``: the session file was deleted or moved and the session went on in a recovery
        file; else None.
    counts : Counts
        The stored questions answered, moves, marks and imports (``session.core._counts``): what every view says.
    team : TeamView or None
        In a team's session, this annotator's view of the team.
    undone, changed, withdrawn : str or None
        What the action that returned this state did, in a few words: the statement an undo removed, the answer a
        change corrected ("same -> different"), the statement withdrawn; None for every other state.
    """

    position: str
    revision: str
    question: Question | None
    conflict: Contradiction | None
    done: bool
    done_reason: str | None
    n_answered: int
    budget: int | None
    n_asked: int
    outlook: str
    n_clusters: int
    can_undo: bool
    method: str
    embedding: str | None
    data: str
    n_rows: int
    stability: Stability
    notice: str | None
    counts: Counts
    team: TeamView | None = None
    undone: str | None = None
    changed: str | None = None
    withdrawn: str | None = None

    def to_json(self):
        """The state as the page and the notebook widget read it.

        Returns
        -------
        dict
            Every field as JSON values; ``counts`` carries ``text`` (them in words) and ``statements`` (the moves,
            marks and imports in words: what the views show beside the questions); ``team``, ``undone``,
            ``changed`` and ``withdrawn`` appear only when set.
        """
        counts = self.counts
        json = {"position": self.position, "revision": self.revision,
                "question": None if self.question is None else self.question.to_json(),
                "conflict": None if self.conflict is None else self.conflict.to_json(),
                "done": self.done, "done_reason": self.done_reason, "n_answered": self.n_answered,
                "budget": self.budget, "n_asked": self.n_asked, "outlook": self.outlook, "n_clusters": self.n_clusters,
                "can_undo": self.can_undo, "method": self.method, "embedding": self.embedding, "data": self.data,
                "n_rows": self.n_rows, "stability": self.stability._asdict(), "notice": self.notice,
                "counts": {**counts._asdict(), "text": describe(counts), "statements": describe_statements(counts)}}
        if self.team is not None:
            json["team"] = self.team.to_json()
        for done in ("undone", "changed", "withdrawn"):
            if getattr(self, done) is not None:
                json[done] = getattr(self, done)
        return json
