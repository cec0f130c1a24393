"""Every member of a cluster (paged, searched, least typical first) and the confirmation a mark on a large cluster
needs: in the session (HumanSession.members, .mark) and over HTTP against a live server."""

import numpy as np
import pandas as pd
import pytest

import linkwise as lw
from linkwise._validation import InvalidParameterError
from linkwise.session import HumanSession, NeedsConfirmation, Refused
from linkwise.session.core._feedback import CONFIRM_SEEN, CONFIRM_SIZE
from tests.e2e.helpers import answer_from


def distances(session, cluster):
    """The cluster's members and their squared distances to its centre, in the clustered feature space."""
    rows = np.flatnonzero(session.numbers() == cluster)
    X = session.data.X[rows].reshape(len(rows), -1)
    return rows, ((X - X.mean(axis=0)) ** 2).sum(axis=1)


@pytest.fixture(params=[0, 1, 2])
def session(request, iris_data, tmp_path):
    """Iris with COBRAS (three seeds) after 8 true answers: a few clusters."""
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=request.param))
    answer_from(session, y, 8)
    yield session
    session.close()


def test_pages_cover_every_member_once_in_order_of_distance(session):
    for cluster in np.unique(session.numbers()).tolist():
        rows, distance = distances(session, cluster)
        for sort, sign in (("typical", 1), ("atypical", -1)):
            first = session.members(cluster, size=7, sort=sort)
            pages = [session.members(cluster, page=p, size=7, sort=sort) for p in range(first["n_pages"])]
            seen = [it["row"] for p in pages for it in p["items"]]
            assert sorted(seen) == rows.tolist() and first["n_pages"] == -(-len(rows) // 7)
            d = dict(zip(rows.tolist(), distance))
            assert np.all(np.diff([sign * d[r] for r in seen]) >= -1e-12)  # nearest (or farthest) first
            assert first["size"] == first["n_matching"] == len(rows) and first["revision"] == session.revision


def test_strips_show_the_least_typical_members_too(session):
    for strip in session.clusters(per=3, doubtful=3)["strips"]:
        rows, distance = distances(session, strip["cluster"])
        far = rows[np.lexsort((rows, -distance))]
        shown = [it["row"] for it in strip["doubtful"]]
        assert len(shown) == min(3, max(len(rows) - 3, 0))
        assert set(shown).isdisjoint(it["row"] for it in strip["items"])
        assert shown == [r for r in far if r not in {it["row"] for it in strip["items"]}][:len(shown)]


def test_search_keeps_the_members_holding_the_text(session):
    data = session.data
    cluster = session.clusters()["strips"][0]["cluster"]
    rows = set(np.flatnonzero(session.numbers() == cluster).tolist())
    for q, column in (("flower-1", "id"), ("4.", "petal_length"), ("VIRGINICA", "species"), ("5.1", None)):
        view = session.members(cluster, size=200, q=q, column=column)
        found = {it["row"] for it in view["items"]}
        cells = {r: {"id": data.item(r)["id"], **dict(data.item(r)["fields"])} for r in rows}
        expected = {r for r, c in cells.items()
                    if any(q.lower() in str(v).lower() for k, v in c.items() if column in (None, k))}
        assert found == expected and view["n_matching"] == len(expected) and view["q"] == q
    nothing = session.members(cluster, q="no such text anywhere")
    assert nothing["items"] == [] and nothing["n_pages"] == 1 and nothing["n_matching"] == 0


@pytest.mark.parametrize("kwargs, message", [
    ({"cluster": 99}, "'cluster' argument of HumanSession.members must be a cluster number"),
    ({"cluster": True}, "'cluster' argument of HumanSession.members must be a cluster number"),
    ({"cluster": 1, "page": -1}, r"^The 'page' argument of HumanSession.members must be an int in the range \[0, inf\)\. Got -1 instead\.$"),
    ({"cluster": 1, "page": 10_000}, "'page' argument of HumanSession.members must be from 0 to"),
    ({"cluster": 1, "size": 0}, r"'size' argument of HumanSession.members must be an int in the range \[1, 200\]\. Got 0"),
    ({"cluster": 1, "size": 201}, r"'size' argument of HumanSession.members must be an int in the range \[1, 200\]"),
    ({"cluster": 1, "size": 2.5}, "'size' argument of HumanSession.members must be an int"),
    ({"cluster": 1, "sort": "random"}, "'sort' argument of HumanSession.members must be a str among .+ Got 'random' instead"),
    ({"cluster": 1, "q": 3}, "^The 'q' argument of HumanSession.members must be an instance of 'str' or None. Got 3 instead.$"),
    ({"cluster": 1, "column": "colour"}, "'column' argument of HumanSession.members must be one of id,"),
])
def test_bad_member_arguments_are_one_line_errors(iris_data, tmp_path, kwargs, message):
    session = HumanSession(tmp_path / "s.db", iris_data[0], lw.COBRAS(random_state=0))
    with pytest.raises(InvalidParameterError, match=message):
        session.members(**kwargs)
    session.close()


def test_a_mark_on_a_large_cluster_waits_for_its_least_typical_members_or_a_confirmation(session):
    strips = session.clusters(limit=50)["strips"]
    large = next(s for s in strips if s["size"] > CONFIRM_SIZE)
    n = len(session.store.answers())
    with pytest.raises(NeedsConfirmation, match=f"has {large['size']} items, more than you have seen") as asked:
        session.mark(session.position, large["cluster"])
    rows, distance = distances(session, large["cluster"])
    assert asked.value.rows == rows[np.lexsort((rows, -distance))][:CONFIRM_SEEN].tolist()
    assert len(session.store.answers()) == n  # nothing stored
    # once its least typical members were shown (a page of the member view), no confirmation is needed
    session.members(large["cluster"], size=CONFIRM_SEEN, sort="atypical")
    marked_without_asking(session, large["cluster"])
    small = [s for s in session.clusters(limit=50)["strips"] if s["size"] <= CONFIRM_SIZE and not s["mark"]]
    for strip in small[:1]:  # a small cluster: judged from its strip, never asked
        marked_without_asking(session, strip["cluster"])


def marked_without_asking(session, cluster):
    """Mark ``cluster`` pure: stored, or refused by the answers (COBRAS may show one mid-merge), never asked."""
    n = len(session.store.answers())
    try:
        session.mark(session.position, cluster)
    except NeedsConfirmation:
        pytest.fail(f"the mark on cluster {cluster} asked for a confirmation")
    except Refused as exc:
        assert "by your answers" in str(exc) and len(exc.rows) == 2
    else:
        assert session.store.answers()[-1].kind == "pure" and len(session.store.answers()) == n + 1


def test_the_member_route_pages_searches_and_sorts(iris_data, live):
    data, y = iris_data
    server, session = live(data)
    answer_from(session, y, 8)
    client = server.client()
    cluster = client.get("/api/clusters").json()["strips"][0]["cluster"]
    reply = client.get(f"/api/cluster/{cluster}/members", params={"page": 1, "size": 5, "sort": "atypical"})
    assert reply.status_code == 200, reply.text
    expected = session.members(cluster, page=1, size=5, sort="atypical")
    body = reply.json()
    assert [it["row"] for it in body["items"]] == [it["row"] for it in expected["items"]]
    assert body["page"] == 1 and body["n_pages"] == expected["n_pages"] and body["sort"] == "atypical"
    found = client.get(f"/api/cluster/{cluster}/members", params={"q": "setosa", "column": "species"}).json()
    assert found["n_matching"] == session.members(cluster, q="setosa", column="species")["n_matching"]
    assert all(dict(it["fields"])["species"] == "setosa" for it in found["items"])
    assert client.get(f"/api/cluster/{cluster}/members", params={"q": "", "column": ""}).status_code == 200


@pytest.mark.parametrize("path, params, status, message", [
    ("/api/cluster/1/members", {"page": "-1"}, 400, "'page' must be a whole number"),
    ("/api/cluster/1/members", {"page": "1e3"}, 400, "'page' must be a whole number"),
    ("/api/cluster/1/members", {"size": "9" * 40}, 400, "'size' must be a whole number"),
    ("/api/cluster/1/members", {"size": "0"}, 400, "'size' argument of HumanSession.members must be an int in the range [1, 200]"),
    ("/api/cluster/1/members", {"size": "100000"}, 400, "must be an int in the range [1, 200]. Got 100000 instead"),
    ("/api/cluster/1/members", {"page": "50"}, 400, "'page' argument of HumanSession.members must be from 0 to"),
    ("/api/cluster/1/members", {"sort": "<script>"}, 400, "'sort' argument of HumanSession.members must be a str among"),
    ("/api/cluster/1/members", {"column": "../etc"}, 400, "'column' argument of HumanSession.members must be one of"),
    ("/api/cluster/1/members", {"q": "x" * 201}, 400, "'q' must be at most 200 characters"),
    ("/api/cluster/1/members", {"order": "typical"}, 400, "Unknown parameter 'order'"),
    ("/api/cluster/1/members", [("page", "0"), ("page", "1")], 400, "'page' is given 2 times"),
    ("/api/cluster/999/members", {}, 400, "'cluster' argument of HumanSession.members must be a cluster number"),
])
def test_hostile_member_parameters_are_refused_with_one_line(iris_data, live, path, params, status, message):
    server, session = live(iris_data[0])
    reply = server.client().get(path, params=params)
    assert reply.status_code == status and message in reply.json()["error"], reply.text
    assert "\n" not in reply.json()["error"] and server.client().get("/api/state").status_code == 200


def test_a_negative_or_non_numeric_cluster_is_not_found(iris_data, live):
    server, _ = live(iris_data[0])
    client = server.client()
    assert client.get("/api/cluster/-1/members").status_code == 404
    assert client.get("/api/cluster/x/members").status_code == 404


def test_the_mark_route_asks_to_confirm_with_the_least_typical_members(iris_data, live):
    data, y = iris_data
    server, session = live(data)
    client = server.client()
    view = client.get("/api/clusters").json()  # one cluster of 147 before any answer
    (strip,) = view["strips"]
    body = {"position": view["position"], "cluster": strip["cluster"], "mark": "pure"}
    asked = client.post("/api/mark", json=body)
    assert asked.status_code == 409 and asked.json()["confirm"] is True and session.store.answers() == []
    rows, distance = distances(session, strip["cluster"])
    assert [it["row"] for it in asked.json()["items"]] == rows[np.lexsort((rows, -distance))][:CONFIRM_SEEN].tolist()
    assert all(it["cluster"] == strip["cluster"] for it in asked.json()["items"])
    bad = client.post("/api/mark", json={**body, "confirmed": "yes"})
    assert bad.status_code == 400 and "'confirmed' must be a true or false" in bad.json()["error"]
    done = client.post("/api/mark", json={**body, "confirmed": True})
    assert done.status_code == 200 and session.store.answers()[-1].kind == "pure"


def test_a_refused_mark_names_its_two_items_with_their_clusters(iris_data, live):
    data, y = iris_data
    server, session = live(data)
    client = server.client()
    state = client.get("/api/state").json()
    i, j = state["question"]["pair"]
    state = client.post("/api/answer", json={"position": state["position"], "answer": "different"}).json()["state"]
    labels = session.numbers()
    together = [c for c in np.unique(labels).tolist() if labels[i] == labels[j] == c]
    assert together  # COBRAS (seed 0) keeps the pair in one cluster until it splits that cluster
    refused = client.post("/api/mark", json={"position": state["position"], "cluster": together[0], "mark": "pure"})
    assert refused.status_code == 409 and refused.json()["confirm"] is False
    named = refused.json()["items"]
    assert {it["row"] for it in named} == {i, j} and all(it["id"] in refused.json()["error"] for it in named)
    assert all(it["cluster"] == together[0] for it in named) and len(session.store.answers()) == 1


def test_every_item_the_cluster_routes_send_has_its_image_address(live, tmp_path):
    """Strips (typical and least typical), member pages and a confirmation's items: each image is served."""
    from linkwise.session import load_data
    from tests.e2e.helpers import PNG

    (tmp_path / "img").mkdir()
    rng = np.random.RandomState(0)
    frame = pd.DataFrame({"x": rng.rand(40), "y": rng.rand(40), "picture": [f"img/{k}.png" for k in range(40)]})
    for k in range(40):
        (tmp_path / "img" / f"{k}.png").write_bytes(PNG)
    frame.to_csv(tmp_path / "d.csv", index=False)
    server, session = live(load_data(tmp_path / "d.csv", image_column="picture"))
    client = server.client()
    view = client.get("/api/clusters").json()
    (strip,) = view["strips"]
    asked = client.post("/api/mark", json={"position": view["position"], "cluster": strip["cluster"],
                                           "mark": "pure"}).json()
    page = client.get(f"/api/cluster/{strip['cluster']}/members", params={"size": 40}).json()
    items = strip["items"] + strip["doubtful"] + page["items"] + asked["items"]
    assert len(strip["doubtful"]) == 3 and len(page["items"]) == 40 and len(asked["items"]) == CONFIRM_SEEN
    for item in items:
        assert item["image"] == f"/item/{item['row']}/image"
        assert client.get(item["image"]).content == PNG


def test_search_reads_a_text_column_and_each_column_on_its_own(tmp_path):
    from linkwise.session import load_data

    words = ["apple pie", "Apple tart", "pear crumble", "plum cake", "APPLE juice", "cherry pie"] * 5
    frame = pd.DataFrame({"name": [f"dish-{k}" for k in range(30)], "note": words,
                          "score": np.random.RandomState(1).rand(30).round(3)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    data = load_data(tmp_path / "d.csv", id_column="name", text_column="note")
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    try:
        assert session.members(1)["columns"] == ["id", "note", "score"]
        found = session.members(1, size=200, q="apple", column="note")["items"]
        assert sorted(it["row"] for it in found) == [k for k in range(30) if "apple" in words[k].lower()]
        assert {it["text"] for it in found} == {"apple pie", "Apple tart", "APPLE juice"}
        by_id = session.members(1, size=200, q="dish-1", column="id")["items"]
        assert sorted(it["id"] for it in by_id) == sorted(f"dish-{k}" for k in range(30) if f"{k}".startswith("1"))
        assert session.members(1, q="apple", column="score")["n_matching"] == 0
    finally:
        session.close()
