"""Cluster feedback in a human session: the clusters as strips, marking one pure (and complete), moving an item."""

import dataclasses

import numpy as np
import pytest

import linkwise as lw
from linkwise._validation import InvalidParameterError
from linkwise.session import HumanSession, Refused
from tests.e2e.helpers import answer_from


@pytest.fixture
def session(iris_data, tmp_path):
    """Iris with COBRAS after 8 true answers: a few clusters."""
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    answer_from(session, y, 8)
    yield session
    session.close()


def members(session, cluster):
    return np.flatnonzero(session.numbers() == cluster)


def test_clusters_are_strips_largest_first_with_central_representatives(session):
    view = session.clusters(per=3)
    labels, X = session.labels(), session.data.X
    strips = view["strips"]
    assert len(strips) == labels.max() + 1 >= 2 and view["n_more"] == view["n_rows_more"] == 0
    assert [s["size"] for s in strips] == sorted(np.bincount(labels), reverse=True)
    assert view["position"] == session.position and view["revision"] == session.revision
    for strip in strips:
        rows = members(session, strip["cluster"])
        assert strip["size"] == len(rows) and strip["mark"] is None and len(strip["items"]) == min(3, len(rows))
        distance = ((X[rows] - X[rows].mean(axis=0)) ** 2).sum(axis=1)
        assert strip["items"][0]["row"] == rows[np.argmin(distance)]
        assert strip["items"][0] == session.data.item(strip["items"][0]["row"])
    assert session.clusters(per=3) == view  # deterministic
    capped = session.clusters(limit=1)
    assert len(capped["strips"]) == 1 and capped["n_more"] == len(strips) - 1
    assert capped["n_rows_more"] == session.data.n_rows - strips[0]["size"]


def test_a_mark_is_stored_with_its_kind_replayed_and_undone(session, iris_data, tmp_path):
    data, _ = iris_data
    before = session.state()
    # a cluster no earlier "same" answer links outside (COBRAS may show one mid-merge), so "complete" holds
    components = session._replay.session.constraints.component_labels()
    cluster = next(c for c in np.unique(session.numbers()).tolist()
                   if not np.isin(components[members(session, c)], components[session.numbers() != c]).any())
    rows = members(session, cluster)
    state = session.mark(before.position, cluster, confirmed=True)
    assert state.n_answered == before.n_answered and state.position != before.position
    stored = session.store.answers()[-1]
    assert (stored.kind, stored.members) == ("pure", tuple(rows.tolist()))
    marked = {s["cluster"]: s["mark"] for s in session.clusters()["strips"]}
    assert marked[int(session.numbers()[rows[0]])] == "pure"
    with pytest.raises(Refused, match="already marked pure"):
        session.mark(session.position, int(session.numbers()[rows[0]]))
    # pure -> complete
    state = session.mark(session.position, int(session.numbers()[rows[0]]), complete=True, confirmed=True)
    assert session.store.answers()[-1].kind == "complete"
    assert state.conflict is None
    assert session._replay.session.constraints.relation(int(rows[0]), int(np.setdiff1d(np.arange(data.n_rows), rows)[0])) is False
    frame = session.answers_frame()
    assert frame["kind"].tolist()[-2:] == ["pure", "complete"]
    assert frame["answer"].iloc[-2:].isna().all()  # a mark is no same/different answer: its kind says what it is
    assert frame["members"].iloc[-1] == str(data.ids.to_numpy()[rows].tolist()).replace("'", '"')
    view, labels = session.clusters(), session.labels()
    session.close()

    again = HumanSession(tmp_path / "s.db", data)  # replayed: the same clusters and feedback
    assert again.state() == dataclasses.replace(state, revision=again.state().revision)
    assert again.clusters() == {**view, "revision": again.revision}
    assert (again.labels() == labels).all()
    again.undo(again.position)  # removes the last action: the complete mark
    assert [a.kind for a in again.store.answers()][-1] == "pure"
    assert [r["kind"] for r in again.store.retracted()] == ["complete"]
    again.undo(again.position)
    assert again.position == before.position and {a.kind for a in again.store.answers()} == {"question"}
    again.close()


def test_a_move_lands_the_item_in_its_target_and_is_one_undoable_action(session, iris_data, tmp_path):
    before = session.state()
    strips = session.clusters()["strips"]
    source, target = strips[0], strips[1]
    row = source["items"][0]["row"]
    state = session.move(before.position, row, target["cluster"])
    labels = session.numbers()
    moved = members(session, labels[row])
    assert state.n_answered == before.n_answered
    rows = session.store.answers()[-2:]
    assert [(r.kind, r.answer) for r in rows] == [("move", True), ("move", False)] and rows[0].action == rows[1].action
    partner, old = ({r.i, r.j} - {row} for r in rows)
    assert labels[row] == labels[partner.pop()] and labels[row] != labels[old.pop()]
    assert len(moved) == target["size"] + 1  # the item joined the target; nothing else moved
    frame = session.answers_frame()
    assert frame["kind"].tolist()[-2:] == ["move", "move"]
    session.close()

    again = HumanSession(tmp_path / "s.db", iris_data[0])
    assert (again.numbers() == labels).all() and again.position == state.position
    again.undo(again.position)  # the whole move
    assert again.position == before.position and [r["kind"] for r in again.store.retracted()] == ["move", "move"]
    again.close()


def test_a_stale_position_is_refused_and_changes_nothing(session):
    old = session.position
    cluster = session.clusters()["strips"][0]["cluster"]
    session.mark(old, cluster, confirmed=True)
    n = len(session.store.answers())
    with pytest.raises(Refused, match="already been answered"):
        session.mark(old, cluster, complete=True, confirmed=True)
    with pytest.raises(Refused, match="already been answered"):
        session.move(old, 0, 1)
    assert len(session.store.answers()) == n


def test_a_move_that_contradicts_a_mark_opens_the_contradiction_and_can_be_withdrawn(session):
    strips = session.clusters()["strips"]
    source = strips[0]
    session.mark(session.position, source["cluster"], confirmed=True)
    row = source["items"][0]["row"]
    state = session.move(session.position, row, strips[1]["cluster"])
    conflict = state.conflict
    assert conflict is not None and {a.kind for a in conflict.answers} == {"pure", "move"}
    with pytest.raises(Refused, match="Resolve the contradiction"):
        session.mark(session.position, 0)
    move = next(a.seq for a in conflict.answers if a.kind == "move")
    state = session.resolve(conflict.id, move)  # the move was wrong: withdrawn whole, not flipped
    assert state.conflict is None and [a.kind for a in session.store.answers()][-1] == "pure"
    assert [r["kind"] for r in session.store.retracted()] == ["move", "move"]


@pytest.mark.parametrize("call, match", [
    (lambda s, p: s.mark(p, 99), "'cluster' argument of HumanSession.mark must be a cluster number"),
    (lambda s, p: s.mark(p, True), "'cluster' argument of HumanSession.mark must be a cluster number"),
    (lambda s, p: s.mark(p, [0, 999]), "'cluster' argument of HumanSession.mark holds index 999"),
    (lambda s, p: s.mark(p, 0, complete="yes"), "^The 'complete' argument of HumanSession.mark must be an instance of 'bool' or an instance of "
     "'numpy.bool'. Got 'yes' instead.$"),
    (lambda s, p: s.move(p, -1, 0), "'row' argument of HumanSession.move must be a row number from 0 to 146"),
    (lambda s, p: s.move(p, 0, -1), "'to' argument of HumanSession.move must be a cluster number"),
    (lambda s, p: s.move(p, 0, int(s.numbers()[0])), "already is; name another cluster"),
    (lambda s, p: s.clusters(limit=0), r"^The 'limit' argument of HumanSession.clusters must be an int in the range \[1, inf\). Got 0 instead.$"),
])
def test_bad_input_is_refused_naming_the_argument(session, call, match):
    n = len(session.store.answers())
    with pytest.raises(InvalidParameterError, match=match):
        call(session, session.position)
    assert len(session.store.answers()) == n


def test_the_reported_clustering_honours_feedback_the_method_ignores():
    from linkwise.session import Answer
    from linkwise.session.core._feedback import honour

    def row(seq, i, j, answer, kind, members=None, action=None):
        return Answer(seq, i, j, answer, "", None, kind, members, action or seq)

    method = [0, 0, 0, 1, 1, 2]
    assert honour(method, [row(1, 0, 0, None, "complete", (0, 1))]).tolist() == [0, 0, 1, 2, 2, 3]
    assert honour(method, [row(1, 3, 3, None, "pure", (3, 4, 5))]).tolist() == [0, 0, 0, 1, 1, 1]
    # out of a single-item cluster a move is one must-link: the item alone joins the other, either way round
    assert honour(method, [row(1, 0, 5, True, "move")]).tolist() == [0, 0, 0, 1, 1, 0]
    assert honour(method, [row(1, 2, 3, True, "move"), row(2, 0, 2, False, "move", action=1)]).tolist() == [
        0, 0, 1, 1, 1, 2]


def test_the_routes_show_mark_and_move_and_refuse_bad_or_stale_requests(iris_data, live):
    data, y = iris_data
    server, session = live(data)
    answer_from(session, y, 8)
    client = server.client()
    view = client.get("/api/clusters").json()
    assert view["position"] == session.position and all(it["image"] is None for s in view["strips"] for it in s["items"])
    first, second = view["strips"][:2]
    position = view["position"]
    reply = client.post("/api/mark", json={"position": position, "cluster": first["cluster"], "mark": "pure",
                                           "confirmed": True})
    assert reply.status_code == 200 and session.store.answers()[-1].kind == "pure"
    state = reply.json()["state"]
    assert len(state["labels"]) == data.n_rows  # a full state, as the page renders it
    stale = client.post("/api/move", json={"position": position, "row": 0, "to": 0})
    assert stale.status_code == 409 and stale.json()["state"]["position"] == state["position"]
    row = second["items"][0]["row"]
    reply = client.post("/api/move", json={"position": state["position"], "row": row, "to": first["cluster"]})
    assert reply.status_code == 200 and [a.kind for a in session.store.answers()][-2:] == ["move", "move"]
    assert client.get("/api/clusters").json()["revision"] == reply.json()["state"]["revision"]
    for route, body, message in [
        ("/api/mark", {"position": "x", "cluster": 0, "mark": "maybe"}, "'mark' must be one of pure, complete"),
        ("/api/mark", {"position": "x", "cluster": "0", "mark": "pure"}, "'cluster' must be a whole number"),
        ("/api/move", {"position": "x", "row": 0}, "lacks the field 'to'"),
        ("/api/move", {"position": "x", "row": True, "to": 1}, "'row' must be a whole number"),
    ]:
        bad = client.post(route, json=body)
        assert bad.status_code == 400 and message in bad.json()["error"], bad.text


def test_an_item_moved_into_a_marked_cluster_keeps_it_marked(session):
    strips = session.clusters()["strips"]
    session.mark(session.position, strips[0]["cluster"], confirmed=True)
    anchor, relation = strips[0]["items"][0]["row"], session._replay.session.constraints.relation
    row = next(it["row"] for s in strips[1:] for it in s["items"] if relation(anchor, it["row"]) is None)
    assert session.move(session.position, row, strips[0]["cluster"]).conflict is None
    (strip,) = [s for s in session.clusters()["strips"] if row in np.flatnonzero(session.numbers() == s["cluster"])]
    assert strip["mark"] == "pure" and strip["size"] == strips[0]["size"] + 1


def test_the_terminal_lists_the_clusters_marks_one_and_moves_an_item(session, tmp_path):
    from io import StringIO

    from rich.console import Console

    from linkwise.session import run_terminal

    strips = session.clusters(limit=9, per=8)["strips"]
    largest = tuple(members(session, strips[0]["cluster"]).tolist())
    out = StringIO()
    # a cluster is picked by its own number and Enter: mark the largest pure (confirmed once its least typical
    # members are shown); move the second's first item to the third; c x: back; q
    first, second, third = (str(s["cluster"]) for s in strips[:3])
    keys = iter(["c", *first, "\r", "p", "y", "c", *second, "\r", "m", "a", *third, "\r", "c", "x", "q"])
    run_terminal(session, tmp_path / "labels.csv", console=Console(file=out, width=120), getchar=lambda: next(keys))
    mark, must, cannot = session.store.answers()[-3:]
    assert (mark.kind, mark.members, must.kind, must.answer, cannot.kind) == ("pure", largest, "move", True, "move")
    row, labels = strips[1]["items"][0]["row"], session.numbers()
    (partner,) = {must.i, must.j} - {row}
    assert session.state().conflict is None and labels[row] == labels[partner]
    assert partner in members(session, labels[strips[2]["items"][0]["row"]])
    text = out.getvalue()
    doubtful = session.members(int(session.numbers()[largest[0]]), size=12, sort="atypical")["items"]
    assert "least typical members" in text and all(it["id"] in text for it in doubtful)
    assert "[c] clusters" in text and f"[{first}] cluster {first} · {strips[0]['size']} items" in text
    assert "marked pure" in text and f"Move {strips[1]['items'][0]['id']} to which cluster?" in text


@pytest.mark.parametrize("complete", [False, True])
def test_a_mark_the_answers_contradict_is_refused_naming_two_items(session, complete):
    ids, constraints, labels = session.data.ids.to_numpy(), session._replay.session.constraints, session.labels()
    if complete:  # around one item of a pair answered "same": the other belongs with it
        i, j = constraints.must_link_pairs()[0]
        rows, named = [i], [ids[j], ids[i]]
    else:  # around a pair answered "different"
        i, j = constraints.cannot_link_pairs()[0]
        rows, named = [i, j], [ids[i], ids[j]]
    n = len(session.store.answers())
    with pytest.raises(Refused, match="not (one group|complete) by your answers") as refused:
        session.mark(session.position, rows, complete=complete, confirmed=True)
    assert all(name in str(refused.value) for name in named) and len(session.store.answers()) == n
    assert (session.labels() == labels).all()
