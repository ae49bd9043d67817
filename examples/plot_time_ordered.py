"""
=====================================================================
Rows in time order: sensor windows and raw MCMC chains
=====================================================================

Every kernel test here resamples rows, which assumes they are exchangeable.
Rows in time order are not: neighbouring rows resemble each other, the null
built from single rows is too narrow, and a test says p = 0.001 where nothing
differs. ``block_size`` makes the units of resampling blocks of consecutive
rows, for every family (:ref:`time_ordered`).

Two uses:

* two windows of one sensor's readings, from the same stationary law and
  then with a drift, tested with and without blocks;
* unthinned MCMC chains checked against their target: a random-walk
  Metropolis sampler, and an unadjusted Langevin sampler whose large step
  biases it.
"""

# %%
# Two windows of a stream
# -----------------------
# An AR(1) process in two coordinates with ``phi = 0.9``: its stationary
# law is N(0, I) and the correlation between neighbouring readings 0.9.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy import signal, stats

import skmmd

rng = np.random.default_rng(0)


def sensor(n, phi=0.9):
    start = rng.normal(size=(1, 2))
    noise = rng.normal(size=(n - 1, 2)) * np.sqrt(1 - phi**2)
    rest, _ = signal.lfilter([1.0], [1.0, -phi], noise, axis=0, zi=phi * start)
    return np.vstack([start, rest])


stream = sensor(4000)
first, second = stream[:2000], stream[2000:]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    rows = skmmd.mmd_test(first, second, random_state=0)
print(f"rows exchangeable: p = {rows.pvalue:.3f}")
print("warning:", caught[0].message if caught else None)
blocks = skmmd.MMDTest(block_size="auto", random_state=0).fit(first, second)
print(
    f"blocks of {blocks.block_size_} rows: p = {blocks.p_value_:.3f} "
    f"(null widened by {blocks.block_scale_:.2f})"
)

# %%
# The same law in both windows, and a test of single rows rejects it: its
# null ignores that neighbouring readings move together. It also warns,
# naming the option and how much too narrow its null is. With blocks the
# windows agree. A real change is still found: the second window's first
# coordinate drifts by half a standard deviation.
drifted = second + [0.5, 0.0]
drift = skmmd.MMDTest(block_size="auto", random_state=0).fit(first, drifted)
print(f"after a drift of 0.5 sd: p = {drift.p_value_:.3f}")

fig, ax = plt.subplots(figsize=(9, 3), layout="constrained")
ax.plot(np.arange(4000), np.r_[first, drifted][:, 0], lw=0.6)
ax.axvline(2000, color="k", ls="--")
ax.set_xlabel("reading")
ax.set_ylabel("first coordinate")
ax.set_title(
    f"same law: p = {blocks.p_value_:.2f} with blocks ({rows.pvalue:.3f} without); "
    f"drift: p = {drift.p_value_:.3f}"
)

# %%
# Raw MCMC chains against their target
# ------------------------------------
# A correlated Gaussian target in two dimensions, known by its score only.
# Four chains of 2000 draws each, after 500 of burn-in, given to the test as
# an array of shape (draws, chains, d), as emcee returns them: no thinning.
# Their draws are tested with one multiplier per block of consecutive draws.

precision = np.linalg.inv(np.array([[1.0, 0.8], [0.8, 1.0]]))


def score(X):
    return -X @ precision


def metropolis(n, chains=4, step=0.5):
    x = rng.multivariate_normal([0, 0], np.linalg.inv(precision), size=chains)
    log_p = -0.5 * np.einsum("ij,jk,ik->i", x, precision, x)
    out = np.empty((n, chains, 2))
    for t in range(n):
        y = x + step * rng.normal(size=x.shape)
        log_q = -0.5 * np.einsum("ij,jk,ik->i", y, precision, y)
        accept = np.log(rng.random(chains)) < log_q - log_p
        x[accept], log_p[accept] = y[accept], log_q[accept]
        out[t] = x
    return out


def langevin(n, chains=4, step=0.15):
    """The unadjusted Langevin algorithm: no Metropolis correction, so its
    draws come from a wider law than the target, the more the larger the
    step."""
    x = rng.multivariate_normal([0, 0], np.linalg.inv(precision), size=chains)
    out = np.empty((n, chains, 2))
    for t in range(n):
        x = x + step * score(x) + np.sqrt(2 * step) * rng.normal(size=x.shape)
        out[t] = x
    return out


fig, axes = plt.subplots(
    1, 2, figsize=(10, 4), sharex=True, sharey=True, layout="constrained"
)
for ax, (name, sampler) in zip(axes, (("Metropolis", metropolis), ("ULA", langevin))):
    chains = sampler(2500)[500:]
    test = skmmd.KernelSteinTest(score, random_state=0).fit(chains)
    print(
        f"{name}: p = {test.p_value_:.3f} ({test.n_chains_} chains, blocks of "
        f"{test.block_size_} draws)"
    )
    draws = chains.reshape(-1, 2)
    ax.scatter(*draws[::4].T, s=3, alpha=0.4)
    ax.set_title(f"{name}: p = {test.p_value_:.3f}")
    ax.set_xlabel("$x_1$")
axes[0].set_ylabel("$x_2$")
plt.show()

# %%
# The Metropolis chains are accepted without thinning, and the Langevin
# chains, of the same length, are rejected: their stationary law is wider
# than the target. A test of single draws would have rejected both (its null
# ignores that each draw repeats much of the one before).
target = stats.multivariate_normal(cov=[[1.0, 0.8], [0.8, 1.0]])
chains = metropolis(2500)[500:]
result = skmmd.goodness_of_fit_test(chains, target, random_state=0)
print(f"the same with scipy's frozen law: p = {result.pvalue:.3f}")
