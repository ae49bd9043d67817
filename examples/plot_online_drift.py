"""
===========================================
Online drift detection, one point at a time
===========================================

:class:`~skmmd.OnlineMMDDetector` watches a stream point by point. Each update
adds the point's random features to running window sums and compares the
windows' mean embeddings with the reference's: ``O(D)`` work, whatever the
reference size. Its thresholds are calibrated on held-out reference points so
that, with no drift, a false alarm comes on average once every ``ert`` points.

Two windows run at once: a short one (20 points) reacts quickly to an abrupt
change, a long one (100 points) sees a slight change sooner. Below, two streams
start with 600 points of no drift, then one shifts abruptly (by 0.75 sd in one
coordinate) and the other drifts gradually (from 0 to 1 sd over 600 points).
"""

import matplotlib.pyplot as plt
import numpy as np

from skmmd import OnlineMMDDetector
from skmmd.inspection import DriftDisplay

rng = np.random.default_rng(0)
d, change = 5, 600
X_ref = rng.standard_normal((3000, d))
detector = OnlineMMDDetector(ert=1000, window_size=[20, 100], random_state=0)
detector.fit(X_ref)
print(f"simulated ERT of the calibrated thresholds: {detector.simulated_ert_:.0f}")

streams = {}
streams["abrupt shift"] = np.where(np.arange(1200) >= change, 0.75, 0.0)
streams["gradual shift"] = np.clip((np.arange(1200) - change) / 600, 0.0, 1.0)

# %%
# :class:`~skmmd.inspection.DriftDisplay` runs a copy of the fitted detector
# over each stream (the detector itself stays as it is) and draws each window's
# statistic with its time-varying threshold (dashed), and the first alarm.

fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for ax, (name, mean) in zip(axes, streams.items()):
    X = rng.standard_normal((len(mean), d))
    X[:, 0] += mean
    display = DriftDisplay.from_estimator(detector, X, ax=ax)
    ax.axvline(change, color="0.5", lw=1, ls=":", label="change")
    if display.detection_time is not None:
        delay = display.detection_time - change
        print(f"{name}: first alarm at t = {display.detection_time}, delay {delay}")
    ax.set_yscale("log")
    ax.set_title(name)
    ax.legend(loc="upper left", fontsize=8)
axes[0].set_xlabel("")
fig.tight_layout()
plt.show()
