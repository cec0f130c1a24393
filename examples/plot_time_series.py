"""
Time series: COBRAS with DTW
============================

``GunPoint`` (from the UCR archive, shipped inside aeon's wheel; the ``timeseries`` extra) holds 200 recordings of a
hand's position, either drawing a gun from a holster or pointing a finger. Euclidean distance compares the series
time step by time step; dynamic time warping (``metric="dtw"``) lets them shift and stretch first, within a band of
``window`` times the length. :class:`~linkwise.COBRAS` then splits and merges super-instances under that metric and
asks about their medoids (COBRAS-TS).
"""

import tempfile

import matplotlib.pyplot as plt
import numpy as np

import linkwise as lw

X, y = lw.datasets.load("GunPoint", scale="standard")  # each series z-normalised
print(f"{X.shape[0]} series of length {X.shape[1]}; classes {np.unique(y).tolist()}")

# the DTW matrix is computed once, on the first fit, and read from the cache directory by the others
budget, seeds = 40, range(3)
curves = {}
with tempfile.TemporaryDirectory(prefix="linkwise-dtw-") as cache:
    for label, params in [("Euclidean", {}), ("DTW, window 0.1", {"metric": "dtw", "window": 0.1, "cache": cache})]:
        runs = [[lw.metrics.ari(y, labels) for labels in
                 lw.COBRAS(max_queries=budget, random_state=seed, **params).fit(X, lw.LabelOracle(y)).labels_history_]
                for seed in seeds]
        curves[label] = np.mean(runs, axis=0)
        print(f"{label}: ARI after {budget} questions {curves[label][-1]:.3f} (mean of {len(seeds)} seeds)")

# %%
# A few series of each class, and the learning curves. ``linkwise cluster`` keeps the matrix beside the session
# file the same way, so a resumed session starts at once (:func:`~linkwise.series.series_distances`).

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 3.8))
for k, colour in zip(np.unique(y), ["C0", "C1"]):
    left.plot(X[y == k][:8].T, color=colour, alpha=0.6, linewidth=1)
left.set(title="GunPoint: 8 series of each class", xlabel="time step")
for label, curve in curves.items():
    right.plot(np.arange(1, budget + 1), curve, label=label)
right.set(xlabel="questions answered", ylabel="ARI to the classes", ylim=(-0.05, 1.02), title="COBRAS")
right.legend(loc="lower right")
fig.tight_layout()
