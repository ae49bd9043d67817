"""
=====================================================================
Change points of a running session, with a p-value each
=====================================================================

A runner's interval training, recorded by a phone: the pace and the distance
every few seconds, while the application says when to run and when to walk.
The series ships with river (``river.drift.datasets.RunLog``, from the
Turing change point benchmark, with the changes five people marked).

:class:`~skmmd.KernelChangePoints` locates the changes by the kernel cost of
segments on random features, and gives each a p-value
(:ref:`change_points`). Neighbouring readings of one interval resemble each
other, so the p-values are computed with and without blocks of consecutive
rows (``block_size``).
"""

# %%
# The series and its annotations
# ------------------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from river.drift.datasets import RunLog

import skmmd

dataset = RunLog()
rows = [[y["Pace"], y["Distance"]] for _, y in dataset]
X = np.array(rows)
X = (X - X.mean(axis=0)) / X.std(axis=0)  # each column in its own units
marked = sorted({p for points in dataset.annotations.values() for p in points})
print(f"{X.shape[0]} readings; changes marked by the annotators: {marked}")

# %%
# Eight changes, by exact dynamic programming
# -------------------------------------------
# Most annotators marked eight changes. The eight of least kernel cost:
cp = skmmd.KernelChangePoints(n_changes=8, min_size=5, random_state=0).fit(X)
print("found:", cp.change_points_.tolist())

# %%
# A p-value for each
# ------------------
# Each change is tested against the segment between its neighbours: is
# there a change anywhere in it? Treating the readings as exchangeable makes
# every p-value the smallest the bootstrap can give; blocks of consecutive
# readings (``block_size="auto"``) keep the dependence of neighbours, and
# with a few dozen readings per interval the segments have few blocks, so
# the p-values are coarse (the rule says so in a warning).
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    blocked = skmmd.KernelChangePoints(
        n_changes=8, min_size=5, block_size="auto", random_state=0
    ).fit(X)
for point, p, q in zip(cp.change_points_, cp.p_values_, blocked.p_values_):
    print(f"change at {point:3d}: p = {p:.3f} (rows exchangeable), {q:.3f} (blocks)")

# %%
# The series and its changes
# --------------------------
fig, axes = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
for ax, column, name in zip(axes, X.T, ["pace", "distance"]):
    ax.plot(column, color="0.3", lw=1)
    for point in marked:
        ax.axvline(point, color="tab:orange", lw=3, alpha=0.3)
    for point in cp.change_points_:
        ax.axvline(point, color="tab:blue", ls="--", lw=1)
    ax.set_ylabel(f"{name} (standardized)")
axes[0].set_title("RunLog: annotated (orange) and found (dashed) changes")
axes[1].set_xlabel("reading")
fig.tight_layout()
plt.show()
