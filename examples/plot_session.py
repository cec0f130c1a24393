"""
A session step by step: ask and tell
====================================

A person does not answer inside ``fit``: :class:`~linkwise.ActiveSession` hands out one question at a time
(``ask``) and takes the answer (``tell``), which is how ``linkwise cluster``'s web page and terminal drive every
method. Here a loop answers from the known classes, but any code can sit in its place: a form, a chat, a
spreadsheet.

Before the questions, the session is told what is already known: a pair the person is sure about
(``inform``, never asked and not charged) and a cluster they looked at and found *pure* (``mark``: its members
all belong together).
"""

import matplotlib.pyplot as plt
import numpy as np

import linkwise as lw

X, y = lw.datasets.load("wine", scale="minmax")
session = lw.ActiveSession(lw.Auto(max_queries=30, random_state=0), X)

session.inform(0, 1, bool(y[0] == y[1]))  # known beforehand: never asked
session.mark(np.flatnonzero(y == y[0])[:5], complete=False)  # "these five belong together"

while (pair := session.ask()) is not None:
    i, j = pair
    answer = bool(y[i] == y[j])  # the person's answer: True, False, or None for "don't know"
    session.tell(pair, answer)
    if session.n_queries <= 5 or session.n_queries % 10 == 0:
        print(f"question {session.n_queries:2d}: ({i:3d}, {j:3d}) same? {answer!s:5}  "
              f"{len(set(session.labels_))} clusters, ARI {lw.metrics.ari(y, session.labels_):.3f}")

print(session.stability_.message)
est = session.finish()
print(f"{est.n_queries_} questions; final ARI {lw.metrics.ari(y, est.labels_):.3f}")

# %%
# The answers as a graph: the clustering at the end, drawn on the first two principal components, with every
# answered pair (green: same, red: different).

from sklearn.decomposition import PCA  # noqa: E402

xy = PCA(n_components=2).fit_transform(X)
fig, ax = plt.subplots(figsize=(6, 4.5))
for i, j, same in est.query_log_:
    if same is not None:
        ax.plot(xy[[i, j], 0], xy[[i, j], 1], color="green" if same else "red", alpha=0.6, linewidth=1)
ax.scatter(xy[:, 0], xy[:, 1], c=est.labels_, cmap="tab10", s=12, vmin=0, vmax=9)
ax.set(title="wine: the clustering after the session", xticks=[], yticks=[])
fig.tight_layout()
