"""One session served to a team (issue 17): own questions, attribution, overlap and kappa, disagreements, resume."""

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import linkwise as lw
from linkwise.session import HumanSession, Refused
from linkwise.session.core._team import check_team, cohen_kappa, overlap_drawn
from tests.e2e.helpers import answer_from
from tests.session.test_session_store import format1_file

TEAM = ["alice", "bob", "carol"]


def team_session(path, data, estimator=None, **team):
    return HumanSession(path, data, estimator or lw.COBRAS(random_state=0), **{"annotators": TEAM, **team})


def answer_as(session, who, y, flip=False):
    """``who`` answers their question from the labels ``y`` (``flip``: wrongly); the pair, or None if none."""
    state = session.state(who)
    if state.question is None:
        return None
    i, j = state.question.pair
    session.answer(state.position, bool(y[i] == y[j]) != flip, who)
    return i, j


def rounds(session, y, n):
    """``n`` rounds in which every member of :data:`TEAM` answers their question truly."""
    for _ in range(n):
        for who in TEAM:
            answer_as(session, who, y)


def repeated(session):
    rows = [(a.i, a.j) for a in session.store.answers()]
    return {pair for pair in rows if rows.count(pair) > 1}


def test_each_annotator_has_a_question_of_their_own_and_answers_are_attributed(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    held = [tuple(session.state(who).question.pair) for who in TEAM]
    assert len(set(held)) == 3  # nobody waits for another
    assert held[0] == session._replay.session.ask()  # the method's own question is with the first to come
    assert [session.state(who).question.pair for who in TEAM] == held  # kept until answered
    rounds(session, y, 12)
    rows = session.store.answers()
    assert [r.annotator for r in rows[:3]] == TEAM and {r.kind for r in rows} == {"question"}
    assert len({(r.i, r.j) for r in rows}) == len(rows) == 36  # no pair answered twice
    loop = session._replay.session
    # the others' answers reached the method as knowledge, and it never asked a pair someone had answered
    asked = {tuple(sorted(q[:2])) for q in loop.query_log}
    assert not asked & {tuple(sorted(p[:2])) for p in loop.informed}
    assert len(asked) + len(loop.informed) == 36
    assert all(loop.constraints.relation(r.i, r.j) == r.answer for r in rows)
    assert session.state("bob").n_answered == 36 and session.state("bob").team.n_mine == 12
    session.close()


def test_speculative_questions_are_those_the_method_asks_when_predictions_hold(iris_data, tmp_path):
    # the team's answers, given in any order, make the questions of one person who answered them in turn
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    rounds(session, y, 8)
    used = [(a.i, a.j) for a in session.store.answers()]
    alone = lw.ActiveSession(lw.COBRAS(random_state=0), data.X)
    asked = []
    while (pair := alone.ask()) is not None and len(asked) < 24:
        asked.append(tuple(sorted(pair)))
        alone.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    # most questions the team was given are ones the method itself asks (a wrong prediction costs the rest)
    assert len(set(used) & set(asked)) >= 18  # 21 of 24 on iris
    session.close()


def test_a_stale_ticket_is_refused_and_an_annotator_must_be_named(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    ticket = session.state("alice").position
    assert ticket.endswith("@alice")
    answer_as(session, "alice", y)
    with pytest.raises(Refused, match="already been answered"):
        session.answer(ticket, True, "alice")
    with pytest.raises(Refused):  # bob's ticket is not alice's
        session.answer(session.state("bob").position, True, "alice")
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'annotator'.*one of the team \\(alice, bob, carol\\)"):
        session.answer(ticket, True, "mallory")
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'annotator'"):
        session.answer(ticket, True)
    assert len(session.store.answers()) == 1
    assert session.state().question is None  # nobody's state: an observer, handed nothing
    session.close()


@pytest.mark.parametrize("bad, match", [(["alice"], "two or more"), (["alice", "alice"], "twice"),
                                        (["alice", "b b"], "letters"), (["alice", "bob", 3], "names"),
                                        (["alice", "open"], "not 'open'"), ("alice,bob", "two or more"),
                                        (["alice", "all"], "'all'"), (["alice", "."], "start with a letter or digit"),
                                        (["-", "bob"], "start with a letter or digit")])
def test_bad_teams_are_refused_before_anything_is_written(iris_data, tmp_path, bad, match):
    data, _ = iris_data
    with pytest.raises(lw.exceptions.InvalidParameterError, match=match):
        HumanSession(tmp_path / "s.db", data, annotators=bad)
    assert not (tmp_path / "s.db").exists()
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'overlap'"):
        check_team(TEAM, 1.5)
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'disagreement'"):
        check_team(TEAM, 0.1, "vote")


def test_undo_takes_back_the_annotators_own_last_answer(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    first = answer_as(session, "alice", y)
    answer_as(session, "bob", y)
    state = session.undo(session.state("alice").position, "alice")
    assert [a.annotator for a in session.store.answers()] == ["bob"]
    assert tuple(state.question.pair) == first  # handed back to her
    with pytest.raises(Refused, match="no answer"):
        session.undo(session.state("carol").position, "carol")
    session.close()


def test_cohen_kappa_matches_sklearn():
    rng = np.random.RandomState(0)
    for _ in range(20):
        a = rng.rand(rng.randint(2, 40)) < rng.rand()
        b = np.where(rng.rand(a.size) < 0.8, a, ~a)
        if len(set(a) | set(b)) > 1:
            assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    # by hand: 3 of 4 agree (0.75); chance 0.5 * 0.25 + 0.5 * 0.75 = 0.5; kappa (0.75 - 0.5) / 0.5
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == 0.5


def test_overlap_asks_a_drawn_share_of_pairs_twice_and_reports_agreement(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data, annotators=["alice", "bob"], overlap=0.5)
    for _ in range(20):
        answer_as(session, "alice", y)
        answer_as(session, "bob", y, flip=True)  # bob is always wrong
    rows = session.store.answers()
    twice = repeated(session)
    by_pair = {}
    for r in rows:
        by_pair.setdefault((r.i, r.j), []).append(r)
    # only pairs drawn for overlap are asked twice, always of the two annotators, and most drawn ones were
    assert twice and all(overlap_drawn(0, pair, 0.5) for pair in twice)
    assert all({r.annotator for r in by_pair[p]} == {"alice", "bob"} for p in twice)
    assert sum(overlap_drawn(0, pair, 0.5) for pair in by_pair) - len(twice) <= 2  # the last ones may wait
    frame = session.agreement_frame().set_index("annotator")
    first = [by_pair[p][0].answer for p in by_pair if p in twice]
    second = [by_pair[p][1].answer for p in by_pair if p in twice]
    assert frame.loc["all", "n_overlap"] == len(twice) and frame.loc["alice", "agreement"] == 0
    assert frame.loc["all", "kappa"] == pytest.approx(cohen_kappa_score(first, second))
    assert session.state("alice").team.agreement[-1]["n_overlap"] == len(twice)
    session.close()


def disagree_once(session, y, first, second):
    """``first`` answers truly, ``second`` the opposite on the same pair (overlap 1); the pair."""
    pair = answer_as(session, first, y)
    assert tuple(session.state(second).question.pair) == pair  # the pair waits for its second answer
    answer_as(session, second, y, flip=True)
    return pair


def test_a_tie_goes_to_a_third_annotator_and_the_majority_stands(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data, overlap=1.0)
    pair = disagree_once(session, y, "alice", "bob")
    assert session.state("alice").conflict is None
    assert session._replay.session.constraints.relation(*pair) is None  # until the tie is broken, the method waits
    assert tuple(session.state("carol").question.pair) == pair
    answer_as(session, "carol", y)
    assert session._replay.session.constraints.relation(*pair) == bool(y[pair[0]] == y[pair[1]])
    assert [r.annotator for r in session.store.answers()] == ["alice", "bob", "carol"]  # the minority's stays
    assert session.agreement_frame().set_index("annotator").loc["bob", "agreement"] == 0
    session.close()
    again = HumanSession(tmp_path / "s.db", data)  # the same after a restart
    assert again._replay.session.constraints.relation(*pair) == bool(y[pair[0]] == y[pair[1]])
    assert again.team["disagreement"] == "third" and again.state("bob").conflict is None
    again.close()


def test_repair_gives_a_tolerant_method_both_answers_and_a_strict_one_the_contradiction(iris_data, tmp_path):
    data, y = iris_data
    robust = team_session(tmp_path / "r.db", data, lw.NoiseRobustCOBRAS(random_state=0), overlap=1.0,
                          disagreement="repair")
    pair = disagree_once(robust, y, "alice", "bob")
    state = robust.state("carol")
    assert state.conflict is None and state.question is not None  # nobody has to settle it
    assert len(robust._replay.session.constraints.conflicts) == 1  # both answers are the method's evidence
    robust.close()

    strict = team_session(tmp_path / "s.db", data, overlap=1.0, disagreement="repair")
    pair = disagree_once(strict, y, "alice", "bob")
    conflict = strict.state("carol").conflict
    assert conflict is not None and conflict.pair == tuple(pair)
    assert [a.by for a in conflict.answers] == ["alice", "bob"]  # the page says who said what
    assert strict.state("carol").question is None
    strict.resolve(conflict.id, conflict.answers[-1].seq)  # bob's answer was wrong
    assert strict.state("carol").conflict is None
    strict.close()


def test_a_team_of_two_repairs_instead_of_waiting_for_a_third(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data, annotators=["alice", "bob"], overlap=1.0)
    disagree_once(session, y, "alice", "bob")
    assert session.state("alice").team.disagreement == "repair"
    assert session.state("alice").conflict is not None
    session.close()


def test_resume_after_restart_hands_out_afresh_and_asks_nothing_twice(iris_data, tmp_path):
    data, y = iris_data
    path = tmp_path / "s.db"
    session = team_session(path, data, overlap=0.2)
    rounds(session, y, 5)
    stale = session.state("bob").position
    answered = session.state("bob").n_answered
    session.close()

    again = HumanSession(path, data)  # the stored team, method and overlap
    assert again.team == check_team(TEAM, 0.2) and again.state("carol").n_answered == answered
    for who in reversed(TEAM):  # another order: other hands get other pairs
        answer_as(again, who, y)
    with pytest.raises(Refused):
        again.answer(stale, True, "bob")
    rows = again.store.answers()
    assert all(overlap_drawn(0, pair, 0.2) for pair in repeated(again))
    assert len(rows) == answered + 3
    again.close()
    # a later run may change the team: a new member is added
    grown = HumanSession(path, data, annotators=[*TEAM, "dave"], overlap=0.2)
    assert answer_as(grown, "dave", y) is not None
    grown.close()
    assert HumanSession(path, data, read_only=True).team["annotators"][-1] == "dave"


def test_a_format1_file_resumes_with_a_team(iris_data, tmp_path):
    data, y = iris_data
    single = HumanSession(tmp_path / "new.db", data, lw.COBRAS(random_state=0))
    answer_from(single, y, 3)
    meta, rows = dict(single.store.meta), single.store.answers()
    single.close()
    old = tmp_path / "old.db"
    format1_file(old, [(r.seq, r.i, r.j, int(r.answer)) for r in rows])
    with sqlite3.connect(old) as db:
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                       [(k, json.dumps(v)) for k, v in {**meta, "format": 1}.items()])
    db.close()
    session = HumanSession(old, data, annotators=["alice", "bob"])
    assert session.store.meta["format"] == 2 and session.state("alice").n_answered == 3
    pair = answer_as(session, "alice", y)
    answer_as(session, "bob", y)
    stored = session.store.answers()
    assert [(a.annotator, a.kind) for a in stored] == [(None, "question")] * 3 + [("alice", "question"),
                                                                                ("bob", "question")]
    assert (stored[3].i, stored[3].j) == pair
    frame = session.answers_frame()
    assert frame["annotator"].isna().tolist() == [True] * 3 + [False] * 2
    session.close()


def test_an_open_team_takes_names_as_people_join(iris_data, tmp_path):
    data, y = iris_data
    path = tmp_path / "s.db"
    session = team_session(path, data, annotators="open", overlap=1.0)
    with pytest.raises(lw.exceptions.InvalidParameterError, match="nobody has joined yet"):
        session.answer("x", True, "alice")
    assert session.join("alice").team.annotator == "alice"
    pair = answer_as(session, "alice", y)
    assert session.join("bob").team.disagreement == "repair"  # two people: no third to ask
    with pytest.raises(lw.exceptions.InvalidParameterError, match="'name'"):
        session.join("<b>")
    for name in ("all", ".", "-x"):  # 'all' would be the agreement table's row of everyone
        with pytest.raises(lw.exceptions.InvalidParameterError, match=f"not 'open' or 'all'.*got {name!r}"):
            session.join(name)
    assert session.team["annotators"] == ["alice", "bob"]
    assert answer_as(session, "bob", y, flip=True) == pair  # asked twice (overlap 1), and they disagree
    assert session.state("bob").conflict is not None
    session.join("carol")  # a third member: the tie now waits for them instead
    assert session.state("bob").conflict is None
    assert tuple(session.state("carol").question.pair) == pair
    session.close()
    again = HumanSession(path, data, annotators="open")  # restarted: who joined is kept
    assert again.team["annotators"] == ["alice", "bob", "carol"] and again.team["open"]
    again.close()
    named = HumanSession(path, data, annotators=["alice", "bob"])
    with pytest.raises(Refused, match="open team"):
        named.join("dave")
    named.close()


def test_tokens_say_who_answers_over_http(iris_data, tmp_path):
    from tests.e2e.helpers import LiveServer, token_client

    data, y = iris_data
    session = team_session(tmp_path / "s.db", data, annotators=["alice", "bob"])
    server = LiveServer(session, tmp_path / "labels.csv")  # its own url: alice's
    try:
        tokens = server.server.config.app.state.tokens
        clients = {who: token_client(server.origin, f"{server.origin}/?token={token}") for who, token in tokens.items()}
        states = {who: client.get("/api/state").json() for who, client in clients.items()}
        assert states["alice"]["team"]["annotator"] == "alice" and states["bob"]["team"]["annotator"] == "bob"
        assert states["alice"]["question"]["pair"] != states["bob"]["question"]["pair"]
        for who, client in clients.items():
            i, j = states[who]["question"]["pair"]
            reply = client.post("/api/answer", json={"position": states[who]["position"],
                                                     "answer": "same" if y[i] == y[j] else "different"})
            assert reply.status_code == 200 and reply.json()["state"]["team"]["annotator"] == who
        stale = clients["bob"].post("/api/answer", json={"position": states["alice"]["position"], "answer": "same"})
        assert stale.status_code == 409
        assert [a.annotator for a in session.store.answers()] == ["alice", "bob"]
        refused = clients["alice"].post("/api/join", json={"name": "eve"})  # a named team
        assert refused.status_code == 409 and "team" in refused.json()["error"]
        assert refused.json()["state"]["team"]["annotator"] == "alice"  # as every refusal: the state to show
        for client in clients.values():
            client.close()
    finally:
        server.stop()
        session.close()


def test_an_open_team_joins_over_http_with_one_link(iris_data, tmp_path):
    from tests.e2e.helpers import LiveServer

    data, _ = iris_data
    session = team_session(tmp_path / "s.db", data, annotators="open")
    server = LiveServer(session, tmp_path / "labels.csv")
    try:
        alice, bob = server.client(), server.client()
        first = alice.get("/api/state").json()
        assert first["team"] == {**first["team"], "annotator": None, "open": True} and first["question"] is None
        assert alice.post("/api/answer", json={"position": first["position"], "answer": "same"}).status_code == 400
        assert alice.post("/api/join", json={"name": "a b"}).status_code == 400
        joined = alice.post("/api/join", json={"name": "alice"}).json()["state"]
        assert joined["team"]["annotator"] == "alice" and joined["question"] is not None
        assert alice.get("/api/state").json()["team"]["annotator"] == "alice"  # the name cookie
        other = bob.post("/api/join", json={"name": "bob"}).json()["state"]
        assert other["question"]["pair"] != joined["question"]["pair"]
        assert session.team["annotators"] == ["alice", "bob"]
    finally:
        server.stop()
        session.close()


def test_command_line_team_options_and_export_of_the_agreement(tmp_path, iris_data, iris_file):
    from click.testing import CliRunner

    from linkwise.cli import main

    def run(*args):
        return CliRunner().invoke(main, [str(a) for a in args])

    data, y = iris_data
    data_path, _ = iris_file
    terminal = run("cluster", data_path, "--annotators", "alice,bob", "--ui", "terminal")
    assert terminal.exit_code == 2 and "--ui" in terminal.output and "browser pages" in terminal.output
    alone = run("cluster", data_path, "--overlap", "0.1", "--ui", "terminal")
    assert alone.exit_code == 2 and "--annotators alice,bob" in alone.output
    bad = run("cluster", data_path, "--annotators", "alice", "--no-browser")
    assert bad.exit_code == 1 and "two or more names" in bad.output
    assert not list(tmp_path.glob("*.linkwise.db*"))  # failed starts leave no session file

    session = team_session(tmp_path / "s.db", data, annotators=["alice", "bob"], overlap=1.0)
    for _ in range(4):
        answer_as(session, "alice", y)
        answer_as(session, "bob", y)
    session.close()
    exported = run("export", tmp_path / "s.db", "--data", data_path, "-o", tmp_path / "labels.csv",
                   "--answers", tmp_path / "answers.csv", "--agreement", tmp_path / "agreement.csv")
    assert exported.exit_code == 0, exported.output
    answers = pd.read_csv(tmp_path / "answers.csv")
    assert answers["annotator"].tolist() == ["alice", "bob"] * 4 and set(answers["kind"]) == {"question"}
    agreement = pd.read_csv(tmp_path / "agreement.csv")
    assert agreement["annotator"].tolist() == ["alice", "bob", "all"]
    assert agreement["n_overlap"].tolist() == [4, 4, 4] and agreement["kappa"].tolist() == [1.0] * 3


def test_a_question_handed_out_stays_with_a_tolerant_method(iris_data, tmp_path):
    # NoiseRobustCOBRAS rechecks answered pairs and its belief may differ from the answers as given: what is
    # handed out must still be open on the next look (once it was not, and every answer was refused as stale)
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data, lw.NoiseRobustCOBRAS(random_state=0),
                           annotators=["alice", "bob"], disagreement="repair")
    for k in range(30):
        for who in ("alice", "bob"):
            state = session.state(who)
            if state.conflict is not None:
                break
            assert session.state(who).position == state.position
            answer_as(session, who, y, flip=who == "bob" and k % 4 == 0)
    rows = session.store.answers()
    assert len(rows) >= 10 and {r.annotator for r in rows} == {"alice", "bob"}
    session.close()


def test_a_contradicted_shadow_serves_the_reply_and_is_replayed_after_it(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    for n in range(60):
        who = TEAM[n % 3]
        before = session._desk.shadow
        answer_as(session, who, y)
        if before is not None and session._desk.shadow is before and before[0] != session._replay.changes:
            break  # an answer contradicted the shadow's prediction: the reply did not wait for a replay
    else:
        pytest.fail("no answer contradicted the shadow's predictions")
    assert session.state(who).question is not None
    session.prepare()  # what the page's server does once it has replied
    assert session._desk.shadow is not before and session._desk.shadow[0] == session._replay.changes
    fresh = session._desk.shadow
    session.prepare()  # nothing outdated: nothing replayed
    assert session._desk.shadow is fresh
    session.close()


def test_a_team_member_gives_cluster_feedback_with_their_ticket(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    rounds(session, y, 3)
    held = {who: session.state(who).question.pair for who in TEAM}
    for strip in session.clusters()["strips"]:  # the first cluster the answers do not part
        try:
            session.mark(session.state("bob").position, strip["cluster"], annotator="bob", confirmed=True)
            break
        except Refused as refused:
            assert "not one group by your answers" in str(refused)
    assert (session.store.answers()[-1].kind, session.store.answers()[-1].annotator) == ("pure", "bob")
    # the others keep their questions unless the feedback settled them; nobody is handed a known pair
    for who in TEAM:
        pair = session.state(who).question.pair
        assert session._replay.session.constraints.relation(*pair) is None
        assert pair == held[who] or session._replay.session.constraints.relation(*held[who]) is not None
    answer_as(session, "carol", y)
    assert session.store.answers()[-1].annotator == "carol"
    strips = session.clusters()["strips"]
    session.move(session.state("alice").position, strips[-1]["items"][0]["row"], strips[0]["cluster"], "alice")
    assert {(a.kind, a.annotator) for a in session.store.answers()[-2:]} == {("move", "alice")}
    session.close()


def test_every_members_answer_counts_towards_stability(iris_data, tmp_path):
    data, y = iris_data
    session = team_session(tmp_path / "s.db", data)
    rounds(session, y, 4)
    answered = sum(a.kind == "question" for a in session.store.answers())
    assert answered == 12 and session.state("bob").stability.n_answers == answered
    session.close()
    again = team_session(tmp_path / "s.db", data)  # replayed: the same estimate
    assert again.state("bob").stability.n_answers == answered
    again.close()
