"""Stable cluster numbers: a cluster keeps its number across answers that split or merge others, and the page,
the terminal and the exported labels show the same number."""

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession
from linkwise.session.core._numbers import carry_numbers
from tests.e2e.helpers import answer_from


def clusters_of(numbers):
    """number -> the frozenset of its rows."""
    return {int(c): frozenset(np.flatnonzero(numbers == c).tolist()) for c in np.unique(numbers)}


@pytest.mark.parametrize("seed", range(6))
def test_split_and_merge_keep_the_numbers_of_what_stays(seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 5, size=200)
    first, fresh = carry_numbers(labels, None, 1)
    assert sorted(np.unique(first)) == list(range(1, fresh))
    # the method renames its clusters (any permutation): nothing changes
    renamed, same_fresh = carry_numbers(rng.permutation(5)[labels], first, fresh)
    assert (renamed == first).all() and same_fresh == fresh
    # split one cluster in two (shuffled rows), merge two others
    split, (a, b) = rng.integers(0, 5), rng.choice(5, size=2, replace=False)
    while split in (a, b):
        split = rng.integers(0, 5)
    members = rng.permutation(np.flatnonzero(labels == split))
    changed = labels.copy()
    changed[members[: len(members) // 3]] = 5  # the smaller part is new
    changed[changed == b] = a
    numbers, after = carry_numbers(rng.permutation(6)[changed], first, fresh)
    before, now = clusters_of(first), clusters_of(numbers)
    for c, rows in before.items():  # untouched clusters keep their numbers
        if int(labels[next(iter(rows))]) not in (split, a, b):
            assert now[c] == rows
    big = first[members[-1]]
    assert now[big] == frozenset(members[len(members) // 3:].tolist())  # the larger part keeps the number
    assert now[after - 1] == frozenset(members[: len(members) // 3].tolist()) and after == fresh + 1
    merged = {first[labels == a][0], first[labels == b][0]}
    assert len(merged & set(now)) == 1  # the merged cluster keeps one of the two numbers; the other is gone
    # a number gone is never reused, even when a cluster comes back
    again, _ = carry_numbers(labels, numbers, after)
    assert set(np.unique(again)) - set(np.unique(numbers)) <= set(range(after, after + 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_session_keeps_numbers_everywhere(iris_data, tmp_path, seed):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed))
    previous, used, history = clusters_of(session.numbers()), set(), [session.numbers()]
    for _ in range(14):
        used |= set(previous)
        answer_from(session, y, 1)
        numbers = session.numbers()
        history.append(numbers)
        now = clusters_of(numbers)
        for c, rows in now.items():
            if rows in previous.values():  # the same members: the same number
                assert previous.get(c) == rows
            elif c not in previous:  # a new number: never used before
                assert c not in used
        assert (session.labels_frame()["cluster"].to_numpy() == numbers).all()
        strips = session.clusters(limit=50)["strips"]
        assert {s["cluster"]: s["size"] for s in strips} == {c: len(r) for c, r in now.items()}
        assert lw.metrics.ari(session.labels(), numbers) == 1.0  # labels() is the same partition
        previous = now
    assert len(used) > 3  # the answers split clusters: numbers were added
    # undo gives back the numbers before the undone answer
    session.undo(session.position)
    assert (session.numbers() == history[-2]).all()
    numbers = session.numbers()
    session.close()
    # the numbers follow from the file: reopened and exported, the same ones
    again = HumanSession(tmp_path / "s.db", data, read_only=True)
    assert (again.numbers() == numbers).all()
    again.close()
    printed = CliRunner().invoke(main, ["export", str(tmp_path / "s.db")])
    assert printed.exit_code == 0, printed.output
    written = pd.read_csv(io.StringIO(printed.output))
    assert (written["cluster"].to_numpy() == numbers).all()
