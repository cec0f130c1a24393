"""A mark the earlier answers contradict names every item in its way at once (and the cluster), and a confirmed mark
undone is not asked about again while its cluster's members are unchanged (issue 39, point 3)."""

import numpy as np
import pytest

import linkwise as lw
from linkwise.session import HumanSession, NeedsConfirmation
from linkwise.session.core._feedback import CONFIRM_SIZE, NAMED_MAX, MarkConflict


def apart_pairs(seed, n_pairs, rows):
    """``n_pairs`` disjoint random pairs of ``rows``, answered "different" before the session's first question."""
    drawn = np.random.default_rng(seed).choice(rows, 2 * n_pairs, replace=False)
    return [(int(a), int(b), False) for a, b in drawn.reshape(-1, 2)]


@pytest.mark.parametrize(("seed", "n_pairs", "n_same"), [(0, 1, 0), (1, 4, 0), (2, 7, 2), (3, 60, 0)])
def test_a_contradicted_mark_names_every_item_in_its_way(iris_data, tmp_path, seed, n_pairs, n_same):
    data, _ = iris_data
    known = apart_pairs(seed, n_pairs, np.arange(data.n_rows))
    # a must-link from a pair's item to a fresh row: that row is in the way too (it is apart from the pair's other)
    fresh = np.setdiff1d(np.arange(data.n_rows), [r for p in known for r in p[:2]])[:n_same]
    known += [(known[k][0], int(r), True) for k, r in enumerate(fresh)]
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0), known=known)
    (cluster,) = np.unique(session.numbers()).tolist()  # no question answered: one cluster holds every row
    n = len(session.store.answers())
    with pytest.raises(MarkConflict) as refused:
        session.mark(session.position, cluster, confirmed=True)
    exc, ids = refused.value, data.ids.to_numpy()
    in_way = sorted({r for p in known for r in p[:2]})
    assert exc.rows == in_way[:NAMED_MAX]  # at most NAMED_MAX shown, the message counts them all
    message = str(exc)
    assert message.startswith(f"Cluster {cluster} is not one group by your answers: {len(in_way)} of its items ")
    assert "\n" not in message and len(session.store.answers()) == n  # one line; nothing stored
    partner = {a: b for a, b, same in known if not same} | {b: a for a, b, same in known if not same}
    for row in exc.rows:  # each item says which item it is kept apart from (its pair's, when no must-link is near)
        assert exc.notes[row] == f"apart from {ids[partner[row]]}" if not n_same else \
            exc.notes[row].startswith("apart from ")
    # a few of the pairs spelled out, and how many more there are
    listed = message[message.index("(") + 1:message.index(")")].split("; ")
    more = [f"{n_pairs - 3} more"] if n_pairs > 3 else []
    pairs = {frozenset(ids[[a, b]]) for a, b, same in known if not same}
    assert listed[len(listed) - len(more):] == more and len(listed) == min(n_pairs, 3) + len(more)
    for pair in listed[:min(n_pairs, 3)]:  # a pair by the first items of its two groups
        named = frozenset(pair.split(" and "))
        assert named in pairs if not n_same else named <= set(ids[in_way])
    session.close()


@pytest.mark.parametrize("n_tied", [1, 3, 5])
def test_a_contradicted_complete_mark_names_every_item_outside_that_belongs_in(iris_data, tmp_path, n_tied):
    data, _ = iris_data
    inside = list(range(10))
    outside = list(range(100, 100 + n_tied))
    known = [(inside[k % len(inside)], r, True) for k, r in enumerate(outside)]
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0), known=known)
    with pytest.raises(MarkConflict) as refused:
        session.mark(session.position, inside, complete=True, confirmed=True)
    exc, ids = refused.value, data.ids.to_numpy()
    assert sorted(exc.rows) == outside
    assert str(exc).startswith(f"The group of {len(inside)} items is not complete by your answers: {n_tied} item")
    assert all(exc.notes[r] == f"belongs with {ids[inside[k % len(inside)]]}" for k, r in enumerate(outside))
    session.close()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_confirmed_mark_undone_is_not_asked_again_until_its_members_change(iris_data, tmp_path, seed):
    data, _ = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed))
    for _ in range(8):  # "don't know": several clusters, and no answer that a mark could contradict
        session.answer(session.position, None)
    strips = session.clusters(limit=50)["strips"]
    large = next(s for s in strips if s["size"] > CONFIRM_SIZE)
    cluster = large["cluster"]
    members = np.flatnonzero(session.numbers() == cluster)
    with pytest.raises(NeedsConfirmation):
        session.mark(session.position, cluster)
    session.mark(session.position, cluster, confirmed=True)
    session.undo(session.position)
    assert (np.flatnonzero(session.numbers() == cluster) == members).all()
    session.mark(session.position, cluster)  # the same members: confirmed before, not asked again
    assert session.store.answers()[-1].kind == "pure"
    session.undo(session.position)

    # one member moved out: other members, so the confirmation is asked for again (unless all were seen anyway)
    other = next(s["cluster"] for s in strips if s["cluster"] != cluster)
    session.move(session.position, int(members[0]), other)
    now = np.flatnonzero(session.numbers() == cluster)
    assert len(now) and not np.array_equal(now, members)
    with pytest.raises(NeedsConfirmation):
        session.mark(session.position, cluster)
    session.close()
