"""
Wrong answers and NoiseRobustCOBRAS
===================================

People make mistakes. :class:`~linkwise.COBRAS` takes every answer as given, so one wrong "same cluster" can glue
two classes together for good. :class:`~linkwise.NoiseRobustCOBRAS` doubts answers: it checks a risky decision with
an extra question, finds answers that contradict each other, asks a few questions to tell which one is wrong, and
rebuilds as if it had never been given. The extra questions come out of the same budget.

Here the simulated person flips 10 % of the answers (``LabelOracle(y, noise=0.1)``; the same pair always gets the
same wrong answer, as a person with a fixed misbelief would give).
"""

import matplotlib.pyplot as plt
import numpy as np

import linkwise as lw

X, y = lw.datasets.load("iris", scale="minmax")
budget, seeds = 80, range(4)

curves = {"COBRAS": [], "NoiseRobustCOBRAS": []}
for seed in seeds:
    for name, make in [("COBRAS", lw.COBRAS), ("NoiseRobustCOBRAS", lw.NoiseRobustCOBRAS)]:
        oracle = lw.LabelOracle(y, noise=0.1, random_state=seed)
        est = make(max_queries=budget, random_state=seed).fit(X, oracle)
        curves[name].append([lw.metrics.ari(y, labels) for labels in est.labels_history_])
    print(f"seed {seed}: {oracle.n_wrong} wrong answers of {oracle.n_queries}; NoiseRobustCOBRAS believed "
          f"{len(est.corrections_)} wrong and asked {est.n_extra_queries_} extra questions, "
          f"ARI {lw.metrics.ari(y, est.labels_):.3f}")

# %%
# What it corrected in the last run: each entry of ``corrections_`` is an answer it believes wrong.

for correction in est.corrections_:
    (i, j), given, believed = correction.pair, correction.given, correction.believed
    print(f"pair ({i}, {j}): answered {given}, believed {believed}; truly same: {bool(y[i] == y[j])}")

# %%
# The learning curves, mean over the seeds.

fig, ax = plt.subplots(figsize=(7, 4))
for name, runs in curves.items():
    ax.plot(np.arange(1, budget + 1), np.mean(runs, axis=0), label=name)
ax.set(xlabel="questions (extra questions included)", ylabel="ARI to the classes",
       title="iris, 10 % of answers wrong", ylim=(-0.05, 1.02))
ax.legend(loc="lower right")
fig.tight_layout()
