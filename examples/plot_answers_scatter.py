"""
What answers do to a clustering
===============================

``jain`` is a 2-D set of two crescents of very different densities: K-means, even given the right number of
clusters, cuts it with a straight line. :class:`~linkwise.COBRAS` over-clusters the data into small
*super-instances* and merges them as the answers say, so the clusters it returns can follow the crescents.

The pictures show the classes, K-means with K = 2, and COBRAS after 8, 17 and 40 questions, with the pairs it
asked about: green lines are "same cluster" answers, red dashed lines "different clusters". COBRAS keeps all the
data in one cluster until an answer says two items differ; from then on, every "same" answer merges a
super-instance into the crescent it belongs to.
"""

import matplotlib.pyplot as plt
from sklearn.cluster import KMeans

import linkwise as lw

X, y = lw.datasets.load("jain", scale="minmax")
kmeans = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X).labels_
est = lw.COBRAS(max_queries=40, random_state=0).fit(X, lw.LabelOracle(y))
print(f"{len(X)} points; K-means ARI {lw.metrics.ari(y, kmeans):.3f}, "
      f"COBRAS after {est.n_queries_} questions {lw.metrics.ari(y, est.labels_):.3f}")

# %%
# ``labels_history_[t]`` is the clustering after ``t + 1`` answers and ``query_log_`` the questions in order,
# so each panel shows the state of one run at that moment.

panels = [("classes", y, 0), ("K-means, K = 2", kmeans, 0)]
panels += [(f"COBRAS, {t} questions", est.labels_history_[t - 1], t) for t in (8, 17, 40)]
fig, axes = plt.subplots(1, len(panels), figsize=(15, 3.3), sharex=True, sharey=True)
for ax, (title, labels, asked) in zip(axes, panels):
    for i, j, same in est.query_log_[:asked]:
        ax.plot(X[[i, j], 0], X[[i, j], 1], color="green" if same else "red", linestyle="-" if same else "--",
                linewidth=1)
    ax.scatter(X[:, 0], X[:, 1], c=labels, cmap="tab10", s=6, vmin=0, vmax=9)
    ax.set_title(f"{title}\nARI {lw.metrics.ari(y, labels):.2f}", fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
