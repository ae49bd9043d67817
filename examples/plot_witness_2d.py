"""
====================================
Where do two samples differ? Witness
====================================

The witness function ``f(x) = mean_i k(x, x_i) - mean_j k(x, y_j)`` of an MMD
test is positive where the first sample has more mass than the second. With
random features it costs ``O(D)`` per point: ``f(x) = z(x)^T (s_x/m - s_y/n)``.

Here X is a standard Gaussian and Y the same law with 20% of its mass moved to
a small cluster at (2, 2). The test rejects and the witness points at the
cluster (negative: Y has more mass there) and at the centre (positive).
"""

import matplotlib.pyplot as plt
import numpy as np

from skmmd import MMDTest, RandomFourierSampler
from skmmd.inspection import NullDistributionDisplay, WitnessDisplay

rng = np.random.default_rng(0)
n = 1000
X = rng.normal(size=(n, 2))
Y = rng.normal(size=(n, 2))
moved = rng.random(n) < 0.2
Y[moved] = [2.0, 2.0] + 0.3 * rng.normal(size=(moved.sum(), 2))

test = MMDTest(RandomFourierSampler(bandwidth=0.5, random_state=0), random_state=0)
test.fit(X, Y)
print(f"MMD^2 = {test.statistic_:.4f}, p-value = {test.p_value_:.4f}")

# %%
# The witness over the plane (both columns: a heat map), with the first 300
# points of each sample. Red: X denser; blue: Y denser.

display = WitnessDisplay.from_estimator(test, X, Y, columns=[0, 1], grid_resolution=141)
display.ax_.set_title(f"MMDTest p-value {test.p_value_:.3f}")
plt.show()

# %%
# Along one column, the witness is averaged over the other column's values in
# the data; the two samples' histograms of that column are drawn behind it.

WitnessDisplay.from_estimator(test, X, Y, columns=0)
plt.show()

# %%
# The test's null distribution: the statistic lies far beyond every one of the
# 999 permuted statistics.

NullDistributionDisplay.from_estimator(test)
plt.show()
