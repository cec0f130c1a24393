"""The notebook widget's model, without a front end: the messages its JavaScript sends, answered by a real session.

Every action goes through the handler the front end's messages reach (``_on_message``), into a real SQLite session
file, read back with sqlite3; the same file then resumes in a :class:`HumanSession`, the web page (over HTTP) and a
widget again. The browser half (a real JupyterLab) is tests/e2e/test_notebook_widget.py.
"""

import base64
import sqlite3

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("anywidget", reason="the notebook extra (anywidget) is not installed")

import linkwise as lw  # noqa: E402
from linkwise.exceptions import InvalidParameterError  # noqa: E402
from linkwise.session import HumanSession, SessionWidget, load_data, open_session  # noqa: E402
from tests.e2e.helpers import PNG, LiveServer, iris_csv, truth_answer  # noqa: E402

INLINE_PNG = "data:image/png;base64," + base64.b64encode(PNG).decode()


def send(w, **content):
    """What the front end's ``model.send`` delivers to the kernel."""
    w._on_message(w, content, [])


def stored(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT i, j, answer, kind FROM answers ORDER BY seq").fetchall()


def answer_truly(w, y, n):
    """Answer ``n`` questions from ``y`` as a person clicking would; the pairs asked."""
    asked = []
    for _ in range(n):
        state = w.state
        pair = state["question"]["pair"]
        send(w, action="answer", position=state["position"], answer=bool(y[pair[0]] == y[pair[1]]))
        assert w.message == ""
        asked.append(tuple(sorted(pair)))
    return asked


@pytest.fixture
def shuffled_iris(iris):
    def make(seed):
        X, y = iris
        order = np.random.default_rng(seed).permutation(len(y))
        return X[order], y[order]
    return make


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_answers_are_stored_in_the_session_file_and_the_traits_follow(tmp_path, shuffled_iris, seed):
    X, y = shuffled_iris(seed)
    path = tmp_path / "s.db"
    w = open_session(path, X, lw.COBRAS(random_state=seed)).widget(y=y)
    assert w.state["n_answered"] == 0 and len(w.curve) == 1 and w.clusters["strips"][0]["size"] == len(y)
    asked = answer_truly(w, y, 6)
    assert w.state["n_answered"] == 6 and [n for n, _ in w.curve] == list(range(7))
    assert w.curve[-1][1] == pytest.approx(lw.metrics.ari(y, w.session.labels()), abs=1e-4)
    rows = stored(path)  # committed while the session still holds the file
    assert [(i, j) for i, j, _, _ in rows] == asked
    assert [bool(a) for _, _, a, _ in rows] == [bool(y[i] == y[j]) for i, j in asked]
    assert {item["row"] for item in w.state["question"]["items"]} == set(w.state["question"]["pair"])
    w.close()
    again = HumanSession(path, load_data(tmp_path / "s.parquet"))
    assert again.state().n_answered == 6 and again.state().position == w.state["position"]
    again.close()


def test_undo_and_a_cluster_mark_go_to_the_file(tmp_path, iris):
    X, y = iris
    path = tmp_path / "s.db"
    w = open_session(path, X, lw.COBRAS(random_state=0)).widget(y=y)
    answer_truly(w, y, 4)
    before = w.state
    send(w, action="undo", position=before["position"])
    assert w.state["n_answered"] == 3 and len(stored(path)) == 3 and [n for n, _ in w.curve] == [0, 1, 2, 3]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM retracted WHERE reason = 'undone'").fetchone() == (1,)
    strip = max(w.clusters["strips"], key=lambda s: s["size"])
    assert len(strip["doubtful"]) == 3 and all(it["row"] not in {i["row"] for i in strip["items"]}
                                               for it in strip["doubtful"])  # the least typical members are shown
    send(w, action="mark", position=w.state["position"], cluster=strip["cluster"], complete=False, confirmed=False)
    # a large cluster whose least typical members were not all seen: the widget shows them and asks to confirm
    assert "confirm" in w.message and len(stored(path)) == 3
    assert w.refused["mark"] == {"position": w.state["position"], "cluster": strip["cluster"], "complete": False}
    assert {it["cluster"] for it in w.refused["items"]} == {strip["cluster"]} and len(w.refused["items"]) > 3
    send(w, action="mark", **w.refused["mark"], confirmed=True)
    assert w.message == "" and w.refused == {} and stored(path)[-1][3] == "pure"
    marked = {s["cluster"]: s["mark"] for s in w.clusters["strips"]}
    assert "pure" in marked.values()
    w.close()


def test_bad_or_stale_messages_store_nothing_and_say_why(tmp_path, iris):
    X, y = iris
    path = tmp_path / "s.db"
    w = open_session(path, X, lw.COBRAS(random_state=0)).widget()
    state = w.state
    assert w.curve == []  # no labels known: no learning curve
    for content, reason in [({"action": "delete"}, "must name an action"),
                            ({"action": "answer", "position": state["position"]}, "takes the fields position, answer"),
                            ({"action": "answer", "position": state["position"], "answer": "same"},
                             "'answer' of 'answer' must be true, false or null, got 'same'"),
                            ({"action": "answer", "position": state["position"], "answer": 1}, "true, false or null"),
                            ({"action": "mark", "position": state["position"], "cluster": True, "complete": False,
                              "confirmed": False},
                             "'cluster' of 'mark' must be a whole number, got True"),
                            ({"action": "undo", "position": state["position"]}, "no answer to undo"),
                            ({"action": "answer", "position": "0.1-2", "answer": True}, "already been answered")]:
        send(w, **content)
        assert reason in w.message
        assert stored(path) == [] and w.state["position"] == state["position"]
    send(w, action="answer", position=state["position"], answer=None)
    assert w.message == "" and stored(path)[0][2] is None
    w.close()


def test_a_notebook_session_resumes_in_the_web_page_and_back(tmp_path, iris):
    X, y = iris
    path = tmp_path / "s.db"
    w = lw.widget(open_session(path, X, lw.COBRAS(random_state=0)), y=y)
    asked = answer_truly(w, y, 3)
    with pytest.raises(Exception, match="already in use|is open|held"):  # one session per file at a time
        open_session(path)
    w.close()
    session = open_session(path)  # the data file written beside the session, as `linkwise cluster` reads it
    server = LiveServer(session, tmp_path / "labels.csv")
    try:
        client = server.client()
        for _ in range(3):
            state = client.get("/api/state").json()
            assert state["n_answered"] == len(asked)
            asked.append(tuple(sorted(state["question"]["pair"])))
            reply = client.post("/api/answer", json={"position": state["position"],
                                                     "answer": truth_answer(y, state["question"]["pair"])})
            assert reply.status_code == 200
    finally:
        server.stop()
        session.close()
    w = open_session(path).widget(y=y)
    assert w.state["n_answered"] == 6
    asked += answer_truly(w, y, 2)
    assert [(i, j) for i, j, _, _ in stored(path)] == asked
    # the same answers as the method asks them when fitted directly: resuming lost nothing, asked nothing twice
    direct = lw.COBRAS(random_state=0, max_queries=8).fit(X, lw.LabelOracle(y))
    assert [tuple(sorted(p[:2])) for p in direct.query_log_] == asked
    w.close()


def test_open_session_from_a_dataframe_keeps_its_index_as_ids(tmp_path, iris):
    X, y = iris
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"], index=[f"flower-{k}" for k in range(len(y))])
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[y]
    session = open_session(tmp_path / "s.db", frame.sample(frac=1, random_state=0), lw.COBRAS(random_state=0))
    item = session.state().question.items[0]
    assert item["id"].startswith("flower-") and session.data.options["id_column"] == "id"
    assert session.data.X.shape == (len(y), 4) and "species" in session.data.dropped_columns
    session.close()
    # the data beside the session file is never replaced by other data
    with pytest.raises(InvalidParameterError, match="holds other data"):
        open_session(tmp_path / "s.db", frame)
    assert open_session(tmp_path / "other.db", X).data.path.name == "other.parquet"


@pytest.mark.parametrize("bad, match", [(np.zeros(5), "2-D numeric array"), (np.array([["a", "b"]] * 3), "numeric"),
                                        ("missing.csv", "does not exist")])
def test_open_session_refuses_bad_data_in_one_line(tmp_path, bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        open_session(tmp_path / "s.db", bad)
    assert not (tmp_path / "s.db").exists()


def test_the_widget_refuses_a_read_only_or_team_session_and_wrong_labels(tmp_path, iris):
    X, y = iris
    path = tmp_path / "s.db"
    open_session(path, X, lw.COBRAS(random_state=0)).close()
    data = load_data(tmp_path / "s.parquet")
    looking = HumanSession(path, data, read_only=True)
    with pytest.raises(InvalidParameterError, match="opened for writing"):
        SessionWidget(looking)
    looking.close()
    session = open_session(path)
    with pytest.raises(InvalidParameterError, match="one label per row"):
        session.widget(y=y[:-1])
    assert session.state().n_answered == 0  # a refused widget leaves the session open
    session.close()
    team = open_session(path, annotators=["alice", "bob"])
    with pytest.raises(InvalidParameterError, match="team's session is answered in its web pages"):
        team.widget()
    team.close()


def test_images_travel_inline_and_a_missing_one_says_why(tmp_path):
    (tmp_path / "img").mkdir()
    files = [f"img/{k}.png" for k in range(147)]
    for name in files:
        (tmp_path / name).write_bytes(PNG)
    path, y = iris_csv(tmp_path, {"photo": files})
    w = open_session(tmp_path / "s.db", path, lw.COBRAS(random_state=0), id_column="name",
                     image_column="photo").widget()
    gone = w.state["question"]["pair"][0]
    (tmp_path / files[gone]).unlink()  # removed while the session runs
    send(w, action="answer", position="0.stale", answer=True)  # refused: the view is refreshed
    assert "already been answered" in w.message
    items = [it for s in w.clusters["strips"] for it in s["items"]] + w.state["question"]["items"]
    assert gone in {item["row"] for item in items} and len(items) > 2
    for item in items:
        if item["row"] == gone:
            assert item["image"] is None and "not found" in item["image_error"]
        else:
            assert item["image"] == INLINE_PNG and item["image_error"] is None
    w.close()


@pytest.mark.parametrize("n", [0, 1, 3])
def test_closing_says_where_the_answers_are_and_the_call_that_resumes_them(tmp_path, iris, capsys, n):
    X, y = iris
    path = tmp_path / "s.db"
    w = open_session(path, X, lw.COBRAS(random_state=n)).widget()
    answer_truly(w, y, n)
    w.close()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Saved in {path}: {n} question{'' if n == 1 else 's'} answered."
    assert lines[1] == f"To resume here: lw.session.open_session({str(path)!r}).widget()"
    assert lines[2].startswith("To resume: linkwise cluster ") and lines[2].endswith(f"--session {path}")
    w.close()  # closed already: nothing more is said
    assert capsys.readouterr().out == ""
    again = eval(lines[1].removeprefix("To resume here: "), {"lw": lw})  # the call printed resumes the session
    assert again.state["n_answered"] == n and again.state["position"] == w.state["position"]
    again.close()
