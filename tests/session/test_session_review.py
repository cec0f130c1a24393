"""Reviewing a session's answers: every stored answer listed and searchable; any one changed or withdrawn (kept in
the retracted table), the clustering replayed; hostile values refused in one line without a write."""

import pytest

import linkwise as lw
from linkwise.session import HumanSession, Refused
from tests.e2e.helpers import answer_from


@pytest.fixture(params=[0, 1, 2])
def session(request, iris_data, tmp_path):
    data, y = iris_data
    session = HumanSession(tmp_path / "s.db", data, lw.COBRAS(random_state=request.param))
    session.y = y
    answer_from(session, y, 10)
    yield session
    session.close()


def test_review_lists_every_answer_newest_first_and_searches(session):
    stored = session.store.answers()
    view = session.review(size=4)
    assert view["n_matching"] == len(stored) == 10 and view["n_pages"] == 3
    pages = [session.review(page=p, size=4)["answers"] for p in range(3)]
    listed = [a for p in pages for a in p]
    assert [a["seq"] for a in listed] == [r.seq for r in reversed(stored)]
    ids = session.data.ids
    for a, row in zip(listed, reversed(stored)):
        assert a["ids"] == [str(ids.iat[row.i]), str(ids.iat[row.j])] and a["kind"] == "question"
        assert a["answer"] == {True: "same", False: "different"}[row.answer] and a["answered_at"] == row.answered_at
    target = listed[3]["ids"][0]
    found = session.review(size=200, q=target.upper())["answers"]
    holds = [a for a in listed if any(target in i for i in a["ids"])]  # a substring of an id, any case
    assert found and [a["seq"] for a in found] == [a["seq"] for a in holds]
    assert {a["answer"] for a in session.review(size=200, q="DIFFERENT")["answers"]} <= {"different"}


def test_change_and_withdraw_replay_and_keep_the_originals(session, iris_data, tmp_path):
    labels, numbers = session.labels().copy(), session.numbers().copy()
    first = session.review(size=200)["answers"][-1]  # the oldest: every later question depends on it
    flipped = {"same": False, "different": True}[first["answer"]]
    state = session.change(first["seq"], flipped)
    assert "->" in state.changed
    (row,) = [r for r in session.store.answers() if r.seq == first["seq"]]
    assert row.answer is flipped
    assert session.store.retracted()[-1]["reason"] == "changed"
    # the clustering follows the file: a reopened session agrees
    changed = session.labels().copy()
    with pytest.raises(Refused, match="already"):
        session.change(first["seq"], flipped)
    session.change(first["seq"], not flipped)  # back: the clustering before
    assert (session.labels() == labels).all() and (session.numbers() == numbers).all()
    session.change(first["seq"], flipped)
    assert (session.labels() == changed).all()
    # "don't know"
    session.change(first["seq"], None)
    assert session.review(size=200)["answers"][-1]["answer"] == "don't know"
    # withdrawn: gone from the review, kept in retracted
    n = len(session.store.answers())
    latest = session.review()["answers"][0]
    state = session.withdraw(latest["seq"])
    assert state.withdrawn and len(session.store.answers()) == n - 1
    assert session.store.retracted()[-1]["reason"] == "withdrawn"
    assert latest["seq"] not in [a["seq"] for a in session.review(size=200)["answers"]]
    with pytest.raises(Refused, match="no longer in effect"):
        session.withdraw(latest["seq"])
    frame = session.answers_frame()
    assert set(frame["status"]) == {"live", "changed", "withdrawn"}


def test_a_mark_is_reviewed_as_a_mark_and_can_only_be_withdrawn(session):
    strip = session.clusters()["strips"][-1]
    session.mark(session.position, strip["cluster"], confirmed=True)
    (mark,) = [a for a in session.review()["answers"] if a["kind"] in ("pure", "complete")]
    assert mark["answer"] is None and mark["n_members"] == strip["size"] and not mark["can_change"]
    with pytest.raises(Refused, match="withdraw it instead"):
        session.change(mark["seq"], True)
    session.withdraw(mark["seq"])
    assert all(s["mark"] is None for s in session.clusters(limit=50)["strips"])


@pytest.mark.parametrize("call, message", [
    (lambda s: s.review(page=-1), r"^The 'page' argument of HumanSession.review must be an int in the range \[0, inf\)\. Got -1 instead\.$"),
    (lambda s: s.review(page=99), "'page' argument of HumanSession.review must be from 0 to"),
    (lambda s: s.review(size=0), r"'size' argument of HumanSession.review must be an int in the range \[1, 200\]\. Got 0"),
    (lambda s: s.review(size=201), r"must be an int in the range \[1, 200\]\. Got 201 instead"),
    (lambda s: s.review(size=True), "'size' argument of HumanSession.review must be an int"),
    (lambda s: s.review(q=3), "'q' argument of HumanSession.review must be an instance of 'str' or None. Got 3 instead"),
    (lambda s: s.change("1", True), "'seq' argument of HumanSession.change must be an answer's number"),
    (lambda s: s.change(True, True), "'seq' argument of HumanSession.change must be an answer's number"),
    (lambda s: s.change(1, "same"), "'answer' argument of HumanSession.change must be an instance of 'bool' .+ or None. Got 'same' instead"),
    (lambda s: s.withdraw(1.0), "'seq' argument of HumanSession.withdraw must be an answer's number"),
])
def test_bad_review_arguments_are_one_line_errors(session, call, message):
    before = session.store.answers()
    with pytest.raises(lw.exceptions.InvalidParameterError, match=message) as caught:
        call(session)
    assert "\n" not in str(caught.value) and session.store.answers() == before


@pytest.mark.parametrize("route, body, status, message", [
    ("/api/answers/change", {"seq": 1}, 400, "lacks the field 'answer'"),
    ("/api/answers/change", {"seq": "1", "answer": "same"}, 400, "'seq'"),
    ("/api/answers/change", {"seq": 1, "answer": "maybe"}, 400, "'answer' must be one of same, different, unknown"),
    ("/api/answers/change", {"seq": 10**6, "answer": "same"}, 409, "no longer in effect"),
    ("/api/answers/withdraw", {"seq": -5}, 409, "no longer in effect"),
    ("/api/answers/withdraw", {"seq": 1, "reason": "x"}, 400, "Unknown field 'reason'"),
    ("/api/answers/withdraw", [1], 400, ""),
])
def test_hostile_review_requests_are_refused_with_one_line(live, iris_data, route, body, status, message):
    server, session = live(iris_data[0])
    client = server.client()
    state = client.get("/api/state").json()
    client.post("/api/answer", json={"position": state["position"], "answer": "same"})
    before = session.store.answers()
    response = client.post(route, json=body)
    assert response.status_code == status and message in response.json()["error"]
    assert "\n" not in response.json()["error"] and session.store.answers() == before


@pytest.mark.parametrize("params, message", [
    ({"page": "-1"}, "'page' must be a whole number"),
    ({"size": "500"}, "must be an int in the range [1, 200]. Got 500 instead"),
    ({"q": "x" * 201}, "'q' must be at most 200 characters"),
    ({"sort": "seq"}, "Unknown parameter 'sort'"),
    ([("page", "0"), ("page", "1")], "'page' is given 2 times"),
])
def test_hostile_review_queries_are_refused(live, iris_data, params, message):
    server, _ = live(iris_data[0])
    response = server.client().get("/api/answers", params=params)
    assert response.status_code == 400 and message in response.json()["error"] and "\n" not in response.json()["error"]


def test_review_over_http_changes_and_withdraws(live, iris_data):
    data, y = iris_data
    server, session = live(data)
    client = server.client()
    for _ in range(4):
        state = client.get("/api/state").json()
        i, j = state["question"]["pair"]
        client.post("/api/answer", json={"position": state["position"],
                                         "answer": "same" if y[i] == y[j] else "different"})
    listed = client.get("/api/answers", params={"size": "2"}).json()
    assert listed["n_matching"] == 4 and listed["n_pages"] == 2 and len(listed["answers"]) == 2
    oldest = client.get("/api/answers", params={"page": "1", "size": "2"}).json()["answers"][-1]
    word = {"same": "different", "different": "same"}[oldest["answer"]]
    reply = client.post("/api/answers/change", json={"seq": oldest["seq"], "answer": word})
    assert reply.status_code == 200 and reply.json()["state"]["revision"] == session.revision
    assert [r.answer for r in session.store.answers() if r.seq == oldest["seq"]] == [word == "same"]
    reply = client.post("/api/answers/withdraw", json={"seq": oldest["seq"]})
    assert reply.status_code == 200 and oldest["seq"] not in [r.seq for r in session.store.answers()]
    again = client.get("/api/answers").json()
    assert again["n_matching"] == 3 and oldest["seq"] not in [a["seq"] for a in again["answers"]]
