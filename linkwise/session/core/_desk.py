"""A team's desk in a human session: who holds which question, the speculative shadow, joining, agreement.

:class:`TeamDesk` is the team part of :class:`~linkwise.session.HumanSession`: it is given the session's
:class:`~linkwise.session.core._replay.Replay` (what was applied, the change count), the store and the lock, and hands
the replay its ``planner`` (which of a team's answers to hold back). The team's rules, as pure functions, and why it
works so are in :mod:`linkwise.session.core._team`.
"""

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.graph import pair_key
from linkwise.loop import ActiveSession
from linkwise.session.core._replay import state_row
from linkwise.session.core._state import TeamView
from linkwise.session.core._store import Refused
from linkwise.session.core._team import agreement, check_name, plan, wanted

with requires("session", "linkwise.session"):
    import pandas as pd

__all__ = ["TeamDesk"]


class TeamDesk:
    """The team of a :class:`~linkwise.session.HumanSession`: a question per annotator.

    Parameters
    ----------
    team : dict or None
        The team (see :func:`linkwise.session.core._team.check_team`); None: the session's one person.
    replay : Replay
        The session's replay; the desk sets its ``planner``.
    store : SessionStore
    lock : threading.RLock
        The session's lock.
    read_only : bool
    """

    def __init__(self, team, replay, store, lock, read_only):
        self.team, self._replay, self._store, self._lock, self._read_only = team, replay, store, lock, read_only
        # annotator -> the pair handed to them, the speculative questions, who answered what (per change) and the
        # outdated shadow the next hand-out may still use, with the change it was left at (see prepare)
        self.held, self.shadow, self._stale, self._task_cache = {}, None, (None, None), None
        replay.planner = self._plan

    def _plan(self, rows):
        return plan(rows, self.disagreement) if self.team else (set(), set())

    @property
    def disagreement(self):
        """Where a disagreement goes; "third" needs a third annotator, so a team of two repairs."""
        return self.team["disagreement"] if len(self.team["annotators"]) > 2 else "repair"

    def check_annotator(self, annotator, method):
        """Refuse an ``annotator`` that is not one of the team (or, without a team, not a name nor None)."""
        team = None if self.team is None else self.team["annotators"]
        if annotator is not None and not isinstance(annotator, str) or team is not None and annotator not in team:
            raise InvalidParameterError(f"The 'annotator' argument of HumanSession.{method} must be "
                                        + ("a name (str) or None" if team is None else
                                           f"one of the team ({', '.join(team) or 'nobody has joined yet'})")
                                        + f", got {annotator!r}.")

    def _tasks(self):
        """Who answered each pair (any answer), and the answered pairs wanting another annotator; per change."""
        replay = self._replay
        if self._task_cache is None or self._task_cache[0] != replay.changes:
            answered = {}
            for row in replay.rows:
                if row.kind == "question":
                    answered.setdefault((row.i, row.j), set()).add(row.annotator)
            self._task_cache = (replay.changes, answered, wanted(replay.rows, replay.estimator.random_state,
                                                                 self.team["overlap"], self.disagreement))
        return self._task_cache[1:]

    def question_for(self, who):
        """The pair handed to annotator ``who``, handing one out if they hold none open; None: nothing for now.

        In order: an answered pair wanting another annotator (a tie, an overlap), the method's pending question
        (a recheck of an answered pair goes to someone who has not answered it), the shadow's next question."""
        replay = self._replay
        if replay.conflict is not None or who not in self.team["annotators"]:
            return None
        stale = self._stale[1] if self._stale[0] == replay.changes else None
        answered, second = self._tasks()
        session, pending = replay.session, replay.session.ask()
        pending = None if pending is None else pair_key(*pending)

        def fresh(pair):  # a pair nobody answered that the method does not know yet
            return pair not in answered and not session.done and session.constraints.relation(*pair) is None

        pair = self.held.get(who)
        if pair is not None and who not in answered.get(pair, ()) and (pair in second or pair == pending
                                                                        or fresh(pair)):
            return pair
        held = {p for w, p in self.held.items() if w != who}
        pair = next((p for p in second if p not in held and who not in answered[p]), None)
        if pair is None and pending is not None and pending not in held and who not in answered.get(pending, ()):
            pair = pending
        if pair is None:
            pair = next((p for p in self._shadow_questions(stale) if p not in held and fresh(p)), None)
        self.held[who] = pair
        return pair

    def _shadow_questions(self, stale):
        """The shadow's next questions: its own while they stand (or ``stale``'s, the shadow current before the
        latest answer), else a shadow speculated afresh now."""
        shadow, self._stale = self.shadow, (None, None)
        if shadow is None or shadow[0] != self._replay.changes and shadow is not stale:  # outdated: replay now
            shadow = self.shadow = self._speculate()
        return shadow[1]

    def _speculate(self):
        """The questions the method would ask next if each of them were answered as its clustering predicts: a
        shadow session replays what the session was told (the costly part, done now), then answers its questions
        with that prediction. Returns ``[change, questions, guess]``: ``guess(pair)`` is the shadow's answer
        for a pair (kept once given); while real answers match it, the shadow's next questions stand."""
        replay = self._replay
        shadow, unsure, predicted = ActiveSession(replay.estimator, replay.data.X, stability=False), set(), {}
        for row in replay.used:
            state_row(shadow, row, unsure)

        def guess(pair):
            labels = shadow.labels_
            return predicted.setdefault(pair_key(*pair), bool(labels[pair[0]] == labels[pair[1]]))

        def questions():
            while (pair := shadow.ask()) is not None:
                yield pair_key(*pair)
                shadow.tell(pair, guess(pair))

        return [replay.changes, questions(), guess]

    def prepare(self):
        """Replay the shadow of speculative questions now if an answer made it outdated.

        The web page calls this after sending its reply, so that nobody waits
        for it: the hand-out right after such an answer takes the outdated
        shadow's next question, a later one would replay. Nothing happens
        outside a team's session.
        """
        with self._lock:
            if self.team is not None and self.shadow is not None and self.shadow[0] != self._replay.changes:
                self.shadow, self._stale = self._speculate(), (None, None)

    def ticket(self, who):
        """A team member's position: the pair handed to them (or that none is), and who they are."""
        replay = self._replay
        if replay.conflict is not None:
            return replay.position
        pair = self.question_for(who)
        name = "" if who is None else who
        return f"{'end' if replay.session.done else 'wait'}@{name}" if pair is None else f"{pair[0]}-{pair[1]}@{name}"

    def team_state(self, who):
        """``who``'s :class:`~linkwise.session.core._state.TeamView`, for ``HumanSession.state``."""
        rows = self._replay.rows
        return TeamView(who, self.team["annotators"], self.team.get("open", False), self.team["overlap"],
                        self.disagreement, agreement(rows),
                        sum(r.kind == "question" and r.annotator == who for r in rows))

    def answer(self, who, answer):
        """Record ``who``'s answer to the pair handed to them and apply it as the team's rules say."""
        pair = self.held.get(who)
        if pair is None:
            raise Refused("There is no question for you now: the others' answers are awaited.")
        row = self._store.record(pair[0], pair[1], answer, annotator=who)  # a failed write leaves the question theirs
        del self.held[who]
        replay = self._replay
        replay.rows.append(row)
        skip, replay.later = plan(replay.rows, self.disagreement)
        shadow = self.shadow
        if skip - {row.seq} != replay.skip:  # a tie opened or broke: the method's view of that pair changes
            replay.rebuild()
        elif row.seq in skip:  # agrees with the answer the method has
            replay.skip.add(row.seq)
            replay.changed()
        else:
            replay.commit([row])
            if shadow is not None and shadow[0] == replay.changes - 1:  # it was current before this answer
                if shadow[2](pair) == answer:
                    shadow[0] = replay.changes  # the answer the shadow assumed: its next questions stand
                else:  # its next questions serve one more hand-out: the reply need not wait for a replay
                    self._stale = (replay.changes, shadow)

    def hand_back(self, who, row):
        """Give ``who`` the pair of their answer ``row`` again (it was undone)."""
        self.held[who] = (row.i, row.j)

    def join(self, name):
        """Add ``name`` to an open team (see ``HumanSession.join``)."""
        check_name(name, "name")
        with self._lock:
            if self._read_only or not (self.team or {}).get("open"):
                raise Refused("Only an open team's session takes new annotators (--annotators open).")
            if name not in self.team["annotators"]:
                policy = self.disagreement
                self.team = {**self.team, "annotators": [*self.team["annotators"], name]}
                self._store.write_meta({**self._store.meta, "team": self.team})
                if policy != self.disagreement:  # a third member: ties now wait for them
                    self._replay.rebuild()

    def agreement_frame(self):
        """Return how far the annotators agree, on the pairs asked of two.

        Returns
        -------
        pandas.DataFrame
            One row per annotator: ``n_answers``, ``n_overlap``,
            ``agreement`` and Cohen's ``kappa`` against the others; the last
            row (``all``) compares every pair's first two answers.
        """
        with self._lock:
            return pd.DataFrame(agreement(self._store.answers()),
                                columns=["annotator", "n_answers", "n_overlap", "agreement", "kappa"])
