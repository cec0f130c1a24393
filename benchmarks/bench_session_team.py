"""Team sessions: what handing every annotator a question of their own costs, and how useful those questions are.

In-process (no HTTP: ``bench_session.py`` measures that floor), COBRAS (random_state=0), answers from the
classes. For each dataset the same number of answers is given by

- *one person* (the baseline): ``HumanSession.answer`` + ``state``, per answer;
- *a team of three* in turns: ``answer`` (whose reply hands the annotator their next question) + the next
  annotator's ``state``; then, apart, ``prepare``: what the page's server does after replying, replaying the
  shadow session whose predicted answers an answer contradicted (:mod:`linkwise.session.core._team`).

Reported: time per answer (median / p90 / max, ms) and the team / one-person ratio of medians and p90s; the
time of the replays after replying (when one was needed); the
share of the team's answers that are questions the method itself asks one person answering truly (the first
``n`` of its questions); ARI of the clustering after ``n`` answers, team vs one person.

    python benchmarks/bench_session_team.py [--quick]
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

import linkwise as lw  # noqa: E402
from linkwise.session import HumanSession, load_data  # noqa: E402

from _results import results_path  # noqa: E402  (benchmarks/ is on the path when this script runs)

TEAM = ["alice", "bob", "carol"]


def run(name, n, folder, team):
    X, y = lw.datasets.load(name)
    csv = Path(folder) / f"{name}.csv"
    pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])]).to_csv(csv, index=False)
    data = load_data(csv)
    path = Path(folder) / f"{name}-{'team' if team else 'one'}.db"
    session = HumanSession(path, data, lw.COBRAS(random_state=0), **({"annotators": TEAM} if team else {}))
    times, replays, k = [], [], 0
    who = TEAM[0] if team else None
    state = session.state(who)
    while len(times) < n and (state.question or team and not state.done):
        if state.question is not None:
            i, j = state.question.pair
            start = time.perf_counter()
            session.answer(state.position, bool(y[i] == y[j]), who)
            who = TEAM[(k := k + 1) % 3] if team else None
            state = session.state(who)  # the next annotator's question (theirs already, unless just joined)
            times.append(time.perf_counter() - start)
            if team:
                # the team desk's speculative shadow (a part HumanSession holds): outdated means prepare replays
                shadow, start = session._desk.shadow, time.perf_counter()
                outdated = shadow is not None and shadow[0] != session._replay.changes
                session.prepare()
                if outdated:
                    replays.append(time.perf_counter() - start)
        else:
            who = TEAM[(k := k + 1) % 3]
            state = session.state(who)
    pairs = [(a.i, a.j) for a in session.store.answers()]
    ari = adjusted_rand_score(y, session.labels())
    session.close()
    return 1000 * np.array(times), 1000 * np.array(replays or [0.0]), pairs, ari


def own_questions(name, n):
    X, y = lw.datasets.load(name, scale="minmax")
    session, asked = lw.ActiveSession(lw.COBRAS(random_state=0), X), []
    while (pair := session.ask()) is not None and len(asked) < n:
        asked.append(tuple(sorted(pair)))
        session.tell(pair, bool(y[pair[0]] == y[pair[1]]))
    return set(asked)


def fmt(ms):
    return f"{np.median(ms):.1f} / {np.percentile(ms, 90):.1f} / {ms.max():.1f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    cells = [("iris", 30), ("ecoli", 30)] if quick else [("iris", 100), ("ecoli", 100), ("segmentation", 100),
                                                          ("cure-t2-4k", 100)]
    lines = ["# Team sessions: cost and use of a question per annotator", "",
             "COBRAS (random_state=0), in-process `HumanSession` (no HTTP), answers from the classes; a team of three "
             "answers in turns. Time per answer = `answer` + the next `state` (which hands the next annotator a "
             "question: the pending one, else the next question of a shadow session replayed with predicted "
             "answers; a shadow an answer contradicted serves that reply, and is replayed after it, by `prepare`). "
             "Baseline: one person, same data and number of answers, same run. *Method's own* = share of "
             "the team's answered pairs that are among the first n questions the method asks one person answering "
             "truly. OMP_NUM_THREADS=1; 2-core machine shared with other jobs." + (" Quick mode." if quick else ""), "",
             "| dataset | n rows | answers | one person ms (median / p90 / max) | team of 3 ms | team / one (median, "
             "p90) | replays after replying: n, ms | method's own | ARI one person | ARI team |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as folder:
        for name, n in cells:
            one, _, _, ari_one = run(name, n, folder, team=False)
            team, replays, pairs, ari_team = run(name, n, folder, team=True)
            own = len(set(pairs) & own_questions(name, len(pairs))) / len(pairs)
            rows = len(lw.datasets.load(name)[1])
            lines.append(f"| {name} | {rows} | {len(team)} | {fmt(one)} | {fmt(team)} | "
                         f"{np.median(team) / np.median(one):.1f}, {np.percentile(team, 90) / np.percentile(one, 90):.1f}"
                         f" | {len(replays)}, {fmt(replays)} | {own:.0%} | {ari_one:.3f} | {ari_team:.3f} |")
            print(lines[-1], flush=True)
    out = results_path("team.md", quick)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
