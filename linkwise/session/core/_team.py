"""One session answered by a team: who gets which question, overlap, agreement (issue 17).

This module holds the team's rules as pure functions of the stored rows (settings, names, overlap, agreement and
kappa, what replay leaves out, which pairs want another annotator); the session's part that hands the questions
out and keeps the shadow is :class:`~linkwise.session.core._desk.TeamDesk`.

An active method is one sequential question generator, so it has one question at a time (its *pending* pair).
Several annotators are kept busy by a fallback that works with every method:

1. The pending pair goes to one annotator.
2. The others get the questions the method would ask next if the questions in flight were answered as the
   current clustering predicts: a *shadow* :class:`~linkwise.ActiveSession` replays the session's statements,
   then answers each question already handed out with that prediction, and hands out the next ones. It is
   rebuilt once per change of the session (a full replay: measured in ``benchmarks/bench_session_team.py``).
3. An answer to a pair that is not pending reaches the method as knowledge (``ActiveSession.inform``): when the
   method comes to ask that pair, it is known and skipped. A wrong prediction only makes that answer less useful,
   never wrong.

A pair is handed to one annotator at a time and never asked again once answered, except for *overlap*: a
share of the answered pairs (drawn from the pair and the session's seed, so the same after a restart) goes
to a second annotator. Agreement and Cohen's kappa are computed from those pairs. A disagreement goes, as
configured (``disagreement``):

- ``"third"`` (default, with three or more annotators): to a third annotator; until then the pair is left out
  of what the method knows, then the majority answer stands (the minority's stays in the file and counts in the
  agreement).
- ``"repair"``: both answers reach the method. A method that tolerates wrong answers (``NoiseRobustCOBRAS``)
  keeps both as evidence and its repair decides; for a strict method the contradiction opens as any other does,
  and a person says which answer was wrong. With two annotators ``"third"`` works as ``"repair"``.

An *open* team (``annotators="open"``) has no list: anyone with the session's link joins by giving a name, which
is kept in the file; names are trusted as given (the link is the secret), as in any sign-up sheet.

Questions handed out live only in memory: after a restart every question is handed out afresh, and an answer
quoting one no longer held is refused, so nothing is answered twice.
"""

import hashlib
import re

import numpy as np

from linkwise._validation import InvalidParameterError

__all__ = ["DISAGREEMENT", "check_name", "check_team", "cohen_kappa", "agreement", "overlap_drawn", "plan", "wanted"]

DISAGREEMENT = ("third", "repair")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")  # not '-x' (read as an option) nor '.x' (a hidden file)
_RESERVED = ("open", "all")  # the --annotators value of an open team; the agreement table's row of everyone


def check_name(name, argument="annotators"):
    """``name`` if it is a valid annotator's name (shown on pages, kept in files)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in _RESERVED:
        raise InvalidParameterError(f"The '{argument}' argument takes names of 1 to 40 letters, digits, '_', '.' "
                                    "and '-' that start with a letter or digit (not 'open' or 'all'), e.g. alice,bob; "
                                    f"got {name!r}.")
    return name


def check_team(annotators, overlap=0.0, disagreement="third"):
    """The team settings as stored in a session's meta, checked; ``annotators="open"``: people join with a name.

    Examples
    --------
    >>> check_team(["alice", "bob"], 0.1)
    {'annotators': ['alice', 'bob'], 'open': False, 'overlap': 0.1, 'disagreement': 'third'}
    """
    is_open = annotators == "open"
    if not is_open and (not isinstance(annotators, (list, tuple)) or len(annotators) < 2):
        raise InvalidParameterError("The 'annotators' argument must list two or more names, e.g. alice,bob (or be "
                                    f"'open': people join with a name); got {annotators!r}.")
    annotators = [] if is_open else [check_name(a) for a in annotators]
    if len(set(annotators)) < len(annotators):
        raise InvalidParameterError(f"The 'annotators' argument names someone twice: {annotators!r}.")
    if isinstance(overlap, bool) or not isinstance(overlap, (int, float)) or not 0 <= overlap <= 1:
        raise InvalidParameterError(f"The 'overlap' argument must be a share between 0 and 1 (e.g. 0.1), got "
                                    f"{overlap!r}.")
    if disagreement not in DISAGREEMENT:
        raise InvalidParameterError(f"The 'disagreement' argument must be one of {', '.join(DISAGREEMENT)}, got "
                                    f"{disagreement!r}.")
    return {"annotators": annotators, "open": is_open, "overlap": float(overlap), "disagreement": disagreement}


def overlap_drawn(seed, pair, share):
    """Whether ``pair`` is asked to a second annotator: a hash of the seed and the pair, below ``share``."""
    digest = hashlib.blake2b(f"{seed}:{pair[0]}:{pair[1]}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") < share * 2.0**64


def cohen_kappa(a, b):
    """Cohen's kappa of two raters' same/different answers ``a`` and ``b`` (NaN when there are none).

    Cohen, "A coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20(1), 1960. 1 when the chance agreement is 1
    and they agree fully (one answer only).

    Examples
    --------
    >>> cohen_kappa([True, True, False, False], [True, False, False, False])
    0.5
    """
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.size == 0:
        return float("nan")
    observed = np.mean(a == b)
    chance = a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean())
    return 1.0 if chance == 1 else float((observed - chance) / (1 - chance))


def _answered(rows):
    """Per pair, the same/different answers to questions ``(annotator, answer)`` in stored order."""
    by_pair = {}
    for row in rows:
        if row.kind == "question" and row.answer is not None:
            by_pair.setdefault((row.i, row.j), []).append((row.annotator, row.answer))
    return by_pair


def agreement(rows):
    """Per annotator, on the pairs someone else answered too: agreement and Cohen's kappa against the others.

    Returns a list of dicts (``annotator``, ``n_answers``, ``n_overlap``, ``agreement``, ``kappa``), one per
    annotator, then ``"all"``: the first two answers of every pair answered twice (kappa of first vs second).
    Values are None where there is nothing to compare.

    Examples
    --------
    >>> from linkwise.session.core._store import Answer
    >>> rows = [Answer(1, 0, 1, True, "t", "ann"), Answer(2, 0, 1, False, "t", "bo"), Answer(3, 2, 3, True, "t", "bo")]
    >>> [(r["annotator"], r["n_answers"], r["n_overlap"], r["agreement"]) for r in agreement(rows)]
    [('ann', 1, 1, 0.0), ('bo', 2, 1, 0.0), ('all', 3, 1, 0.0)]
    """
    mine, counts, first, second = {}, {}, [], []
    for answers in _answered(rows).values():
        for who, _ in answers:
            counts[who] = counts.get(who, 0) + 1
        if len(answers) < 2:
            continue
        first.append(answers[0][1])
        second.append(answers[1][1])
        for k, (who, answer) in enumerate(answers):
            for other_who, other in answers[:k] + answers[k + 1:]:
                if other_who != who:
                    mine.setdefault(who, ([], []))[0].append(answer)
                    mine[who][1].append(other)

    def summary(name, a, b, n_answers):
        return {"annotator": name, "n_answers": n_answers, "n_overlap": len(a),
                "agreement": float(np.mean(np.equal(a, b))) if a else None,
                "kappa": cohen_kappa(a, b) if a else None}

    return ([summary(who, *mine.get(who, ([], [])), n) for who, n in sorted(counts.items(), key=lambda x: str(x[0]))]
            + [summary("all", first, second, sum(counts.values()))])


def plan(rows, disagreement):
    """Which stored rows replay leaves out, and which are later answers to a pair another annotator answered.

    With ``"third"``, a pair answered by several annotators is told to the method once, at its first row with
    the majority answer; a pair without a majority (a tie) is left out until someone breaks it.
    With ``"repair"`` every row is told.

    Returns
    -------
    skip, later : set of int, set of int
        ``seq`` of the rows to leave out; ``seq`` of the rows of a pair an earlier row answered.
    """
    skip, later, by_pair = set(), set(), {}
    for row in rows:
        if row.kind == "question" and row.answer is not None:
            by_pair.setdefault((row.i, row.j), []).append(row)
    for answers in by_pair.values():
        later.update(r.seq for r in answers[1:])
        if disagreement != "third" or len(answers) < 2:
            continue
        n_same = sum(r.answer for r in answers)
        verdict = None if 2 * n_same == len(answers) else 2 * n_same > len(answers)
        told = next((r for r in answers if r.answer == verdict), None)
        skip.update(r.seq for r in answers if r is not told)
    return skip, later


def wanted(rows, seed, share, disagreement):
    """Answered pairs that want another annotator, in stored order: tied ones first (``"third"``), then those
    drawn for overlap that one annotator alone has answered."""
    tied, second = [], []
    for pair, answers in _answered(rows).items():
        if disagreement == "third" and 2 * sum(a for _, a in answers) == len(answers):
            tied.append(pair)
        elif share and len({who for who, _ in answers}) == 1 and overlap_drawn(seed, pair, share):
            second.append(pair)
    return tied + second
