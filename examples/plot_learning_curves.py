"""
Learning curves: Auto, COBRAS and K-means
=========================================

How good is the clustering after each question? An active estimator records the clustering it would return after
every answer in ``labels_history_``, so one run gives a whole learning curve. Here :class:`~linkwise.Auto` (the
default, which needs no number of clusters) and :class:`~linkwise.COBRAS` answer up to 60 questions on the wine
data, over three seeds, against K-means given the true number of classes and no question at all.

The adjusted Rand index (ARI, :func:`~linkwise.metrics.ari`) is 1 for the classes exactly and about 0 for a
random grouping. It is computed here on every row, those asked about included; the benchmark's protocol
(:ref:`benchmark`) scores rows never asked about instead.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans

import linkwise as lw

X, y = lw.datasets.load("wine", scale="minmax")
budget, seeds = 60, [0, 1, 2]

curves = {}
for name, make in [("Auto", lw.Auto), ("COBRAS", lw.COBRAS)]:
    runs = []
    for seed in seeds:
        est = make(max_queries=budget, random_state=seed).fit(X, lw.LabelOracle(y))
        runs.append([lw.metrics.ari(y, labels) for labels in est.labels_history_])
    curves[name] = np.array(runs)
    print(f"{name}: ARI after {budget} questions {curves[name][:, -1].mean():.3f} (mean of {len(seeds)} seeds)")

kmeans = np.mean([lw.metrics.ari(y, KMeans(n_clusters=3, n_init=10, random_state=s).fit(X).labels_) for s in seeds])
print(f"K-means with the true K = 3: ARI {kmeans:.3f}")

# %%
# Each curve is the mean over the seeds; the band spans the lowest and the highest seed.

fig, ax = plt.subplots(figsize=(7, 4))
questions = np.arange(1, budget + 1)
for (name, runs), colour in zip(curves.items(), ["C0", "C1"]):
    ax.plot(questions, runs.mean(axis=0), color=colour, label=name)
    ax.fill_between(questions, runs.min(axis=0), runs.max(axis=0), color=colour, alpha=0.2)
ax.axhline(kmeans, color="grey", linestyle="--", label="K-means, true K")
ax.set(xlabel="questions answered", ylabel="ARI to the classes", title="wine", ylim=(-0.05, 1.02))
ax.legend(loc="lower right")
fig.tight_layout()

# %%
# Auto starts from the unsupervised clustering the first answers favour, so it is good from the first questions;
# COBRAS builds its clustering from the answers alone, from one cluster holding everything, and climbs as they
# accumulate. Neither was told that wine has three classes; K-means was.
