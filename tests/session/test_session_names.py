"""Cluster names: kept in the session file with the cluster's stable number, shown by clusters(), the terminal
and the exported labels; hostile names refused in one line without a write."""

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import linkwise as lw
from linkwise.cli import main
from linkwise.session import HumanSession, Refused
from linkwise.session.core._controller import read_meta
from tests.e2e.helpers import answer_from


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_name_follows_its_cluster_and_is_exported(iris_data, tmp_path, seed):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=seed))
    answer_from(session, y, 3)
    strip = session.clusters()["strips"][0]
    revision = session.revision
    state = session.name(strip["cluster"], "  Garden ")
    assert state.revision != revision and session.names() == {strip["cluster"]: "Garden"}
    members = set(np.flatnonzero(session.numbers() == strip["cluster"]).tolist())
    answer_from(session, y, 10)  # clusters split and merge; the named one keeps its number while it exists
    numbers = session.numbers()
    if strip["cluster"] in numbers:
        now = set(np.flatnonzero(numbers == strip["cluster"]).tolist())
        assert len(now & members) > 0
        named = [s for s in session.clusters(limit=50)["strips"] if s["name"] == "Garden"]
        assert [s["cluster"] for s in named] == [strip["cluster"]]
        assert session.members(strip["cluster"])["name"] == "Garden"
    frame = session.labels_frame()
    assert (frame["name"] == "Garden").to_numpy().tolist() == (numbers == strip["cluster"]).tolist()
    session.close()
    assert read_meta(tmp_path / "s.db")["names"] == {str(strip["cluster"]): "Garden"}
    printed = CliRunner().invoke(main, ["export", str(tmp_path / "s.db")])
    written = pd.read_csv(io.StringIO(printed.output), keep_default_na=False)
    pd.testing.assert_frame_equal(written, frame)
    # renamed, then the name removed
    session = HumanSession(tmp_path / "s.db", data)
    cluster = session.clusters()["strips"][-1]["cluster"]
    session.name(cluster, "Rocks")
    assert session.names()[cluster] == "Rocks"
    session.name(cluster, "")
    assert cluster not in session.names()
    session.close()


@pytest.mark.parametrize("cluster, text, message", [
    (999, "x", "'cluster' argument of HumanSession.name must be a cluster number"),
    (True, "x", "'cluster' argument of HumanSession.name must be a cluster number"),
    ("1", "x", "'cluster' argument of HumanSession.name must be a cluster number"),
    (1, 3, "'text' argument of HumanSession.name must be text"),
    (1, None, "'text' argument of HumanSession.name must be text"),
    (1, "x" * 61, "at most 60 printable characters"),
    (1, "a\nb", "at most 60 printable characters"),
    (1, "bell\x07", "at most 60 printable characters"),
])
def test_bad_names_are_one_line_errors_and_write_nothing(iris_data, tmp_path, cluster, text, message):
    session = HumanSession(tmp_path / "s.db", iris_data[0], lw.COBRAS(random_state=0))
    with pytest.raises(lw.exceptions.InvalidParameterError, match=message) as caught:
        session.name(cluster, text)
    assert "\n" not in str(caught.value) and "names" not in session.store.meta
    session.close()
    viewer = HumanSession(tmp_path / "s.db", iris_data[0], read_only=True)
    with pytest.raises(Refused, match="read-only"):
        viewer.name(1, "Garden")
    viewer.close()


def test_a_damaged_names_entry_is_refused(iris_data, tmp_path):
    import json
    import sqlite3

    from linkwise.session import SessionFileError

    HumanSession(tmp_path / "s.db", iris_data[0], lw.COBRAS(random_state=0)).close()
    with sqlite3.connect(tmp_path / "s.db") as db:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('names', ?)", (json.dumps({"x": 3}),))
    db.close()
    with pytest.raises(SessionFileError, match="its meta 'names' is"):
        HumanSession(tmp_path / "s.db", iris_data[0])


@pytest.mark.parametrize("body, message", [
    ({"cluster": 1}, "lacks the field 'name'"),
    ({"cluster": "1", "name": "x"}, "'cluster'"),
    ({"cluster": 1, "name": ["x"]}, "'name'"),
    ({"cluster": 999, "name": "x"}, "must be a cluster number"),
    ({"cluster": 1, "name": "<script>" * 10}, "at most 60 printable characters"),
    ({"cluster": 1, "name": "x", "position": "0.end"}, "Unknown field 'position'"),
])
def test_hostile_names_over_http_are_refused_with_one_line(live, iris_data, body, message):
    server, session = live(iris_data[0])
    response = server.client().post("/api/name", json=body)
    assert response.status_code == 400 and message in response.json()["error"]
    assert "\n" not in response.json()["error"] and session.names() == {}


def test_a_name_over_http_is_shown_with_the_strips(live, iris_data):
    server, session = live(iris_data[0])
    client = server.client()
    strip = client.get("/api/clusters").json()["strips"][0]
    cluster = strip["cluster"]
    reply = client.post("/api/name", json={"cluster": cluster, "name": "Garden"})
    assert reply.status_code == 200 and reply.json()["state"]["revision"] == session.revision
    assert client.get("/api/clusters").json()["strips"][0]["name"] == "Garden"
    labels = pd.read_csv(io.StringIO(client.get("/labels.csv").text), keep_default_na=False)
    assert (labels["name"] == "Garden").sum() == strip["size"] and (labels["cluster"] == cluster).sum() == strip["size"]


def test_the_terminal_lists_a_cluster_with_its_name(iris_data, tmp_path):
    from rich.console import Console

    from linkwise.session import run_terminal

    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=0))
    answer_from(session, y, 4)
    strip = session.clusters()["strips"][0]
    session.name(strip["cluster"], "Garden")
    out, keys = io.StringIO(), iter(["c", "x", "q"])
    run_terminal(session, tmp_path / "labels.csv", console=Console(file=out, width=120), getchar=lambda: next(keys))
    assert f"[{strip['cluster']}] cluster {strip['cluster']} Garden · {strip['size']} items" in out.getvalue()
    written = pd.read_csv(tmp_path / "labels.csv", keep_default_na=False)
    assert (written["name"] == "Garden").sum() == strip["size"]
    session.close()
