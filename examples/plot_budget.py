"""
Choosing a budget: when to stop asking
======================================

How many questions are enough? Nobody knows the classes in a real session, so linkwise measures what it can see:
how much each answer still moves the clustering. :class:`~linkwise.StabilityMonitor` calls the clustering
*stable* ("you can stop") once the last answers together moved it little (one minus the ARI between consecutive
clusterings, summed), by a rule each method declares, calibrated on the benchmark (``stop_rule()``: for COBRAS the
last 80 answers, by at most 0.2); :class:`~linkwise.ActiveSession` shows it as ``stability_``.

Below, COBRAS runs for 150 questions on three shipped datasets. The solid line is the ARI to the classes (what a
person cannot see), the dotted line how much the last 80 answers moved the clustering (``drift``, what linkwise
sees, right-hand axis) against the 0.2 threshold, and the grey band where the monitor says "stable". It is a
signal, not a guarantee: a clustering can hold for tens of answers and still improve later.
"""

import matplotlib.pyplot as plt
import numpy as np

import linkwise as lw

budget = 150
fig, axes = plt.subplots(1, 3, figsize=(14, 3.8), sharey=True)
for ax, name in zip(axes, ["iris", "wine", "ecoli"]):
    X, y = lw.datasets.load(name, scale="minmax")
    est = lw.COBRAS(max_queries=budget, random_state=0).fit(X, lw.LabelOracle(y))
    monitor = lw.StabilityMonitor(**est.stop_rule())  # the rule a session of COBRAS follows
    monitor.update(est.labels_history_[0], answered=False)
    estimates = [monitor.update(labels) for labels in est.labels_history_[1:]]
    stable = np.array([e.stable for e in estimates])

    questions = np.arange(1, len(est.labels_history_) + 1)
    ax.plot(questions, [lw.metrics.ari(y, labels) for labels in est.labels_history_], label="ARI to the classes")
    ax.fill_between(questions[1:], 0, 1, where=stable, color="grey", alpha=0.25, label='"stable"')
    ax.set(title=name, xlabel="questions answered", ylim=(0, 1.02))
    drift = ax.twinx()
    drift.plot(questions[1:], [e.drift for e in estimates], ":", color="C3")
    drift.axhline(monitor.max_drift, color="C3", linewidth=0.8)
    drift.set_ylim(0, 2)
    drift.tick_params(axis="y", colors="C3")
    first = questions[1:][stable][0] if stable.any() else None
    print(f"{name}: first stable after {first} answers; {estimates[-1].message}")
axes[0].set_ylabel("ARI to the classes")
axes[0].legend(loc="center right", fontsize=8)
drift.set_ylabel(f"drift over the last {monitor.window} answers", color="C3")
fig.tight_layout()
