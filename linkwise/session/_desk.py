"""A team's desk in a human session: who holds which question, the speculative shadow, joining, agreement.

:class:`TeamDesk` is :class:`~linkwise.session.HumanSession`'s team part (a mixin: it uses the session's lock,
replay, state and store); the team's rules, as pure functions, and why it works so are in
:mod:`linkwise.session._team`. :func:`state_row` is one step of a replay, shared by the session and its shadow.
"""

from linkwise._extras import requires
from linkwise._validation import InvalidParameterError
from linkwise.graph import pair_key
from linkwise.loop import ActiveSession
from linkwise.session._store import Refused
from linkwise.session._team import agreement, check_name, plan, wanted

with requires("session", "linkwise.session"):
    import pandas as pd

__all__ = ["TeamDesk", "state_row"]


def state_row(session, row, unsure):
    """State one stored row to ``session``: told if it answers the pending question, else informed (a cluster's
    feedback: marked); "don't know" about a pair not pending is kept in ``unsure`` and told when it comes up.
    Returns False when that row said nothing now."""
    pending = session.ask()
    if row.members is not None:
        session.mark(row.members, complete=row.kind == "complete")
    elif row.kind == "question" and pending is not None and pair_key(*pending) == (row.i, row.j):
        session.tell(pending, row.answer)
    elif row.answer is not None:
        session.inform(row.i, row.j, row.answer, move=row.kind == "move")
    else:
        unsure.add((row.i, row.j))
        return False
    while (pending := session.ask()) is not None and pair_key(*pending) in unsure:
        session.tell(pending, None)
    return True


class TeamDesk:
    """:class:`HumanSession`'s team: a question per annotator (a mixin: it uses the session's lock, replay,
    state and store)."""

    @property
    def _disagreement(self):
        """Where a disagreement goes; "third" needs a third annotator, so a team of two repairs."""
        return self.team["disagreement"] if len(self.team["annotators"]) > 2 else "repair"

    def _check_annotator(self, annotator, method):
        team = None if self.team is None else self.team["annotators"]
        if annotator is not None and not isinstance(annotator, str) or team is not None and annotator not in team:
            raise InvalidParameterError(f"The 'annotator' argument of HumanSession.{method} must be "
                                        + ("a name (str) or None" if team is None else
                                           f"one of the team ({', '.join(team) or 'nobody has joined yet'})")
                                        + f", got {annotator!r}.")

    def _tasks(self):
        """Who answered each pair (any answer), and the answered pairs wanting another annotator; per revision."""
        if self._task_cache is None or self._task_cache[0] != self._changes:
            answered = {}
            for row in self._rows:
                if row.kind == "question":
                    answered.setdefault((row.i, row.j), set()).add(row.annotator)
            self._task_cache = (self._changes, answered, wanted(self._rows, self.estimator.random_state,
                                                                 self.team["overlap"], self._disagreement))
        return self._task_cache[1:]

    def _question_for(self, who):
        """The pair handed to annotator ``who``, handing one out if they hold none open; None: nothing for now.

        In order: an answered pair wanting another annotator (a tie, an overlap), the method's pending question
        (a recheck of an answered pair goes to someone who has not answered it), the shadow's next question."""
        if self._conflict is not None or who not in self.team["annotators"]:
            return None
        stale = self._stale
        answered, second = self._tasks()
        session, pending = self._session, self._session.ask()
        pending = None if pending is None else pair_key(*pending)

        def fresh(pair):  # a pair nobody answered that the method does not know yet
            return pair not in answered and not session.done and session.constraints.relation(*pair) is None

        pair = self._desk.get(who)
        if pair is not None and who not in answered.get(pair, ()) and (pair in second or pair == pending
                                                                        or fresh(pair)):
            return pair
        held = {p for w, p in self._desk.items() if w != who}
        pair = next((p for p in second if p not in held and who not in answered[p]), None)
        if pair is None and pending is not None and pending not in held and who not in answered.get(pending, ()):
            pair = pending
        if pair is None:
            shadow, self._stale = self._shadow, None
            if shadow is None or shadow[0] != self._changes and shadow is not stale:  # outdated: replay now
                shadow = self._shadow = self._speculate()
            pair = next((p for p in shadow[1] if p not in held and fresh(p)), None)
        self._desk[who] = pair
        return pair

    def _speculate(self):
        """The questions the method would ask next if each of them were answered as its clustering predicts: a
        shadow session replays what the session was told (the costly part, done now), then answers its questions
        with that prediction. Returns ``[revision, questions, guess]``: ``guess(pair)`` is the shadow's answer
        for a pair (kept once given); while real answers match it, the shadow's next questions stand."""
        shadow, unsure, predicted = ActiveSession(self.estimator, self.data.X, stability=False), set(), {}
        for row in self._used:
            state_row(shadow, row, unsure)

        def guess(pair):
            labels = shadow.labels_
            return predicted.setdefault(pair_key(*pair), bool(labels[pair[0]] == labels[pair[1]]))

        def questions():
            while (pair := shadow.ask()) is not None:
                yield pair_key(*pair)
                shadow.tell(pair, guess(pair))

        return [self._changes, questions(), guess]

    def prepare(self):
        """Replay the shadow of speculative questions now if an answer made it outdated (the web page calls this
        after sending its reply, so that nobody waits for it): the hand-out right after such an answer takes the
        outdated shadow's next question, a later one would replay."""
        with self._lock:
            if self.team is not None and self._shadow is not None and self._shadow[0] != self._changes:
                self._shadow, self._stale = self._speculate(), None

    def _ticket(self, who):
        """A team member's position: the pair handed to them (or that none is), and who they are."""
        if self._conflict is not None:
            return self.position
        pair = self._question_for(who)
        name = "" if who is None else who
        return f"{'end' if self._session.done else 'wait'}@{name}" if pair is None else f"{pair[0]}-{pair[1]}@{name}"

    def _team_state(self, who):
        rows = self._rows
        return {"annotator": who, "annotators": self.team["annotators"], "open": self.team.get("open", False),
                "overlap": self.team["overlap"],
                "disagreement": self._disagreement, "agreement": agreement(rows),
                "n_mine": sum(r.kind == "question" and r.annotator == who for r in rows)}

    def _team_answer(self, who, answer):
        pair = self._desk.get(who)
        if pair is None:
            raise Refused("There is no question for you now: the others' answers are awaited.")
        row = self.store.add(pair[0], pair[1], answer, annotator=who)  # a failed write leaves the question theirs
        del self._desk[who]
        self._rows.append(row)
        skip, self._later = plan(self._rows, self._disagreement)
        shadow = self._shadow
        if skip - {row.seq} != self._skip:  # a tie opened or broke: the method's view of that pair changes
            self._rebuild()
        elif row.seq in skip:  # agrees with the answer the method has
            self._skip.add(row.seq)
            self._changed()
        else:
            self._applied([row])
            if shadow is not None and shadow[0] == self._changes - 1:  # it was current before this answer
                if shadow[2](pair) == answer:
                    shadow[0] = self._changes  # the answer the shadow assumed: its next questions stand
                else:  # its next questions serve one more hand-out: the reply need not wait for a replay
                    self._stale = shadow
        return self.state(who)

    def join(self, name):
        """Add ``name`` to an open team (see ``annotators="open"``); returns their :meth:`state`."""
        check_name(name, "name")
        with self._lock:
            if self._read_only or not (self.team or {}).get("open"):
                raise Refused("Only an open team's session takes new annotators (--annotators open).")
            if name not in self.team["annotators"]:
                policy = self._disagreement
                self.team = {**self.team, "annotators": [*self.team["annotators"], name]}
                self.store.write_meta({**self.store.meta, "team": self.team})
                if policy != self._disagreement:  # a third member: ties now wait for them
                    self._rebuild()
            return self.state(name)

    def agreement_frame(self):
        """Per annotator, on the pairs asked of two: ``n_answers``, ``n_overlap``, ``agreement`` and Cohen's
        ``kappa`` against the others; the last row (``all``) compares every pair's first two answers."""
        with self._lock:
            return pd.DataFrame(agreement(self.store.answers()),
                                columns=["annotator", "n_answers", "n_overlap", "agreement", "kappa"])
