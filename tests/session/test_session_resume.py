"""A session file's undo, changed and withdrawn answers, feedback and reopening start from resume points: after each,
the session is the one a full replay of the file gives (a fresh process with no cached point)."""

import os
import shutil

import numpy as np
import pytest

import linkwise as lw
from linkwise.session import HumanSession
from linkwise.session.core._feedback import honour
from linkwise.session.data._cache import cache_folder
from tests.e2e.helpers import answer_from


def _replayed(path, data, tmp_path, name):
    """The session in a copy of ``path`` opened with an empty cache folder: every row replayed."""
    copy = tmp_path / f"{name}.db"
    shutil.copy(path, copy)
    os.environ["LINKWISE_CACHE"] = str(tmp_path / f"cache-{name}")
    try:
        return HumanSession(copy, data, read_only=True)
    finally:
        os.environ["LINKWISE_CACHE"] = str(tmp_path / "cache")


def _assert_same(session, replayed):
    np.testing.assert_array_equal(session.labels(), replayed.labels())
    np.testing.assert_array_equal(session.numbers(), replayed.numbers())
    mine, theirs = session.state(), replayed.state()
    for key in ("question", "n_answered", "stability", "conflict"):
        assert getattr(mine, key) == getattr(theirs, key), key
    assert session.position.split(".", 1)[1] == replayed.position.split(".", 1)[1]


@pytest.mark.slow
@pytest.mark.parametrize("method", [lw.Auto, lw.COBRAS, lw.NoiseRobustCOBRAS])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_change_of_a_session_file_resumes_as_a_full_replay(method, seed, iris_data, tmp_path, monkeypatch):
    monkeypatch.setenv("LINKWISE_CACHE", str(tmp_path / "cache"))
    data, y = iris_data
    path = tmp_path / "s.db"
    session = HumanSession(path, data, method(random_state=seed, max_queries=60))
    steps = 0

    def check():
        nonlocal steps
        steps += 1
        replay = session._replay  # the clustering shown, kept while the method's is unchanged, is what honour gives
        np.testing.assert_array_equal(replay.labels(), honour(replay.session.labels_, replay.feedback_rows()))
        _assert_same(session, _replayed(path, data, tmp_path, f"step{steps}"))

    answer_from(session, y, 25)
    check()
    for _ in range(2):
        session.undo(session.position)
        check()
    early = session.store.answers()[5]
    for answer in (not early.answer, early.answer):  # an early answer changed (a new row each time), and back
        session.change(session.store.answers()[5].seq, answer)
        check()
    session.withdraw(session.store.answers()[12].seq)
    check()
    session.mark(session.position, np.flatnonzero(y == 0)[:20], confirmed=True)  # a group, as the person sees it
    check()
    strips = session.clusters()["strips"]
    session.move(session.position, strips[1]["items"][0]["row"], strips[0]["cluster"])
    check()
    answer_from(session, y, 5)
    check()
    session.close()
    reopened = HumanSession(path, data)  # another process would read the point written at close
    assert any(cache_folder().rglob("*.pickle"))
    _assert_same(reopened, _replayed(path, data, tmp_path, "reopened"))
    reopened.close()
