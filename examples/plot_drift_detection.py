"""
=================================
Detecting data drift on real data
=================================

A deployed model sees a stream of data; has its distribution drifted from the
reference it was trained on? A two-sample test answers with a calibrated
p-value. The breast cancer data that ships with scikit-learn (569 tumours, 30
features) is split into a reference window and test windows:

* **no drift**: another random window of the same data;
* **label shift**: a window in which malignant tumours are three times as
  frequent;
* **sensor drift**: a window in which one feature (mean texture) is read 30%
  too high.

Each window is tested against the reference with :class:`~skmmd.MMDTest` on
random Fourier features (median bandwidth) and with :class:`~skmmd.AggregatedMMDTest`.
Only the drifted windows should be flagged at level 0.05.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from skmmd import AggregatedMMDTest, MMDTest, RandomFourierSampler

data = load_breast_cancer()
X_all = StandardScaler().fit_transform(data.data)
malignant = data.target == 0
rng = np.random.default_rng(0)
order = rng.permutation(len(X_all))
reference, rest = order[:250], order[250:]

windows = {"no drift": rest[:150]}
# Label shift: malignant tumours three times as likely to enter the window.
weights = np.where(malignant[rest], 3.0, 1.0)
windows["label shift"] = rng.choice(rest, 150, replace=False, p=weights / weights.sum())
windows["sensor drift"] = rest[:150]

results = {}
for name, idx in windows.items():
    W = X_all[idx].copy()
    if name == "sensor drift":
        texture = list(data.feature_names).index("mean texture")
        raw = data.data[idx, texture] * 1.30  # the sensor reads 30% high
        W[:, texture] = (raw - data.data[:, texture].mean()) / data.data[
            :, texture
        ].std()
    single = MMDTest(RandomFourierSampler(random_state=0), random_state=0)
    aggregated = AggregatedMMDTest(random_state=0)
    results[name] = (
        single.fit(X_all[reference], W).p_value_,
        aggregated.fit(X_all[reference], W).p_value_,
    )
    print(
        f"{name:<13} median-bandwidth MMD p = {results[name][0]:.3f}   "
        f"aggregated p = {results[name][1]:.3f}"
    )

fig, ax = plt.subplots(figsize=(6, 3.5))
positions = np.arange(len(results))
ax.bar(positions - 0.2, [r[0] for r in results.values()], 0.4, label="MMDTest (median)")
ax.bar(
    positions + 0.2, [r[1] for r in results.values()], 0.4, label="AggregatedMMDTest"
)
ax.axhline(0.05, color="k", ls="--", lw=1, label="alpha = 0.05")
ax.set_xticks(positions, list(results))
ax.set_yscale("log")
ax.set_ylabel("p-value")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
