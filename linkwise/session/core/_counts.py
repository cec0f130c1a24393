"""What a person has said in a session, counted one way for every place that shows it: the questions answered, and
the statements made outside the questions (moves of an item, marks on a cluster, imported relations).

The page's header, the terminal, the widget, the messages of ``linkwise cluster`` and the summary printed when a
session stops all count the stored rows through :func:`count_statements` and say it with :func:`describe`, so
"74 questions answered" reads the same everywhere. A move is one statement though it is stored as two relations (the
must-link with its new cluster and the cannot-link with its old one).
"""

from typing import NamedTuple

__all__ = ["Counts", "count_statements", "describe", "describe_statements"]


class Counts(NamedTuple):
    """How many questions were answered ("don't know" too) and how many statements of each other kind were made."""

    questions: int = 0
    moves: int = 0
    marks: int = 0
    imports: int = 0

    @property
    def statements(self):
        """Everything said outside the questions."""
        return self.moves + self.marks + self.imports


def count_statements(rows):
    """The :class:`Counts` of stored rows (:class:`~linkwise.session.Answer`), each move counted once.

    Examples
    --------
    >>> from linkwise.session import Answer
    >>> rows = [Answer(1, 0, 1, True, ""), Answer(2, 2, 3, None, ""),
    ...         Answer(3, 1, 4, True, "", kind="move", action=3), Answer(4, 0, 4, False, "", kind="move", action=3),
    ...         Answer(5, 5, 5, None, "", kind="pure", members=(5, 6), action=5)]
    >>> count_statements(rows)
    Counts(questions=2, moves=1, marks=1, imports=0)
    """
    questions = marks = imports = 0
    moves = set()
    for row in rows:
        if row.kind == "question":
            questions += 1
        elif row.kind == "move":
            moves.add(row.seq if row.action is None else row.action)
        elif row.kind in ("pure", "complete"):
            marks += 1
        else:
            imports += 1
    return Counts(questions, len(moves), marks, imports)


def _plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def describe_statements(counts):
    """The statements of ``counts`` in words ("2 moves, 1 mark"), "" when there are none.

    Examples
    --------
    >>> describe_statements(Counts(74, 2, 1, 0)), describe_statements(Counts(5))
    ('2 moves, 1 mark', '')
    """
    return ", ".join(_plural(n, word) for n, word in ((counts.moves, "move"), (counts.marks, "mark"),
                                                      (counts.imports, "imported relation")) if n)


def describe(counts):
    """``counts`` in words: "74 questions answered", then the statements if any ("; 2 moves, 1 mark").

    Examples
    --------
    >>> describe(Counts(74, 2, 1, 0))
    '74 questions answered; 2 moves, 1 mark'
    >>> describe(Counts(1))
    '1 question answered'
    """
    said = describe_statements(counts)
    return f"{_plural(counts.questions, 'question')} answered" + (f"; {said}" if said else "")
