"""
========================================================
Three-sample problem with Nystroem MMD: N(0,1) vs N(0,2)
========================================================

Reproduces the synthetic experiment of Cherfaoui et al. (2022, section 5,
Figure 2): samples X ~ N(0, 1), Y ~ N(0, 2) and Z ~ N(0, 1) of n points each;
Z is attributed to X when ``D(Z, X) < D(Z, Y)``
(:func:`skmmd.statistics.three_sample_test`). As in the paper every approximation
uses ``s = log(n)``: landmarks for the regularized Nystroem MMD, frequencies
for the random Fourier MMD, block size for the block MMD; the linear MMD uses
disjoint pairs. The exact (quadratic) MMD is computed up to n = 1000.

Left: error rate (fraction of runs where Z is attributed to Y). Middle: time
of one decision. Right: the distance of each approximate MMD^2(X, Y) to the
exact one, the paper's Delta_{X,Y} (on MMD^2). The baselines are small local
functions written here.

*Paper* (up to n = 5000, 10 runs): "all methods achieve a null error"; the time
of exact MMD explodes, RFF and Nystroem MMD take the same time, less than block
MMD and more than linear MMD; Nystroem and RFF approximate the MMD with similar
accuracy, better than block and linear MMD. *Here* (10 runs per n, numbers
printed below):

* error: at n = 5000 Nystroem, RFF and block MMD make no error, in agreement,
  but linear MMD still errs in 1 of the 10 runs (0.5, 0.2, 0.2, 0.1 from n =
  500 to 5000): its statistic is the noisiest (the largest Delta at every n),
  and the paper sets the bandwidth by another formula, which may make the
  problem easier for it. Every method errs at n <= 100.
* Delta: Nystroem is the most accurate at every n (1.2e-3 at n = 1000, against
  6.7e-3 for RFF, 5.6e-3 for block and 2.5e-2 for linear MMD): it beats block
  and linear MMD, as in the paper, but RFF is not as accurate as Nystroem here
  and beats block MMD only up to n = 200. Likely reason: in 1-D the Gaussian
  kernel's spectrum decays fast, so ``s = 7`` landmarks (at n = 1000) give a
  nearly exact low-rank kernel, while ``s = 7`` random frequencies keep a Monte
  Carlo error.
* time (it varies from run to run on a shared machine; ranges over three runs):
  exact MMD is the slowest at n = 1000 and grows quadratically (4-5x from n =
  500 to 1000), and linear MMD is the fastest, as in the paper. Nystroem takes
  about twice RFF's time at n = 5000 (0.04-0.07 s against 0.02-0.04 s), close
  to the paper's "same running time". Unlike the paper, block MMD (vectorised
  over blocks here) is 10-50x faster than both (0.001-0.002 s): at these sizes
  every approximation takes under 0.1 s and fixed per-call costs (fitting the
  samplers, input validation) outweigh the ``O(n s d)`` work.
"""

import math
from time import perf_counter

import matplotlib.pyplot as plt
import numpy as np

from skmmd import NystroemSampler, RandomFourierSampler
from skmmd.kernels import gaussian_kernel, median_bandwidth
from skmmd.statistics import nystroem_mmd2, three_sample_test

SIZES = [20, 50, 100, 200, 500, 1000, 2000, 5000]
EXACT_MAX = 1000
N_RUNS = 10


# %%
# Baselines: exact, linear-time and block MMD^2
# ---------------------------------------------


def exact_mmd2(A, B, bandwidth):
    """Biased (V-statistic) MMD^2, the quantity Nystroem MMD approximates."""
    return (
        gaussian_kernel(A, bandwidth=bandwidth).mean()
        + gaussian_kernel(B, bandwidth=bandwidth).mean()
        - 2 * gaussian_kernel(A, B, bandwidth=bandwidth).mean()
    )


def _pair_kernel(U, V, bandwidth):
    return np.exp(-((U - V) ** 2).sum(axis=1) / (2 * bandwidth**2))


def linear_mmd2(A, B, bandwidth):
    """Gretton et al. (2012): mean of h over disjoint pairs of points."""
    m = min(len(A), len(B)) // 2 * 2
    a1, a2, b1, b2 = A[0:m:2], A[1:m:2], B[0:m:2], B[1:m:2]
    h = (
        _pair_kernel(a1, a2, bandwidth)
        + _pair_kernel(b1, b2, bandwidth)
        - _pair_kernel(a1, b2, bandwidth)
        - _pair_kernel(a2, b1, bandwidth)
    )
    return h.mean()


def block_mmd2(A, B, bandwidth, block):
    """Zaremba et al. (2013): mean of the unbiased MMD^2 over blocks."""
    n_blocks = min(len(A), len(B)) // block
    a = A[: n_blocks * block].reshape(n_blocks, block, -1)
    b = B[: n_blocks * block].reshape(n_blocks, block, -1)

    def gram(U, V):  # (n_blocks, block, block) kernel matrices, block by block
        sq = ((U[:, :, None, :] - V[:, None, :, :]) ** 2).sum(axis=-1)
        return np.exp(-sq / (2 * bandwidth**2))

    off = block * (block - 1)
    within = (gram(a, a).sum(axis=(1, 2)) - block) / off
    within += (gram(b, b).sum(axis=(1, 2)) - block) / off
    return np.mean(within - 2 * gram(a, b).mean(axis=(1, 2)))


def rff_mmd2(A, B, bandwidth, s, seed):
    rff = RandomFourierSampler(
        bandwidth=bandwidth, n_components=2 * s, random_state=seed
    )
    Z = rff.fit_transform(np.concatenate([A, B]))
    diff = Z[: len(A)].mean(axis=0) - Z[len(A) :].mean(axis=0)
    return diff @ diff


# %%
# The experiment
# --------------

rng = np.random.default_rng(0)
methods = ["exact", "nystroem", "rff", "block", "linear"]
errors = {m: np.full(len(SIZES), np.nan) for m in methods}
times = {m: np.full(len(SIZES), np.nan) for m in methods}
deltas = {m: np.full(len(SIZES), np.nan) for m in methods}

for i, n in enumerate(SIZES):
    s = max(2, math.ceil(math.log(n)))
    wrong = dict.fromkeys(methods, 0)
    elapsed = dict.fromkeys(methods, 0.0)
    delta = {m: [] for m in methods}
    for run in range(N_RUNS):
        X = rng.normal(0.0, 1.0, size=(n, 1))
        Y = rng.normal(0.0, math.sqrt(2.0), size=(n, 1))
        Z = rng.normal(0.0, 1.0, size=(n, 1))
        bw = median_bandwidth(np.concatenate([X, Y, Z]), random_state=run)
        sampler = NystroemSampler(bandwidth=bw, n_components=s, random_state=run)
        distances = {
            "exact": lambda A, B: exact_mmd2(A, B, bw),
            "rff": lambda A, B: rff_mmd2(A, B, bw, s, run),
            "block": lambda A, B: block_mmd2(A, B, bw, s),
            "linear": lambda A, B: linear_mmd2(A, B, bw),
        }
        for method in methods:
            if method == "exact" and n > EXACT_MAX:
                continue
            start = perf_counter()
            if method == "nystroem":
                result = three_sample_test(X, Y, Z, sampler=sampler, reg=1e-3)
            else:
                result = three_sample_test(X, Y, Z, distance=distances[method])
            elapsed[method] += perf_counter() - start
            wrong[method] += result.closer != "X"
        if n <= EXACT_MAX:
            exact_xy = exact_mmd2(X, Y, bw)
            delta["nystroem"].append(nystroem_mmd2(X, Y, sampler=sampler))
            for method in ("rff", "block", "linear"):
                delta[method].append(distances[method](X, Y))
            for method in ("nystroem", "rff", "block", "linear"):
                delta[method][-1] = abs(delta[method][-1] - exact_xy)
    for method in methods:
        if method == "exact" and n > EXACT_MAX:
            continue
        errors[method][i] = wrong[method] / N_RUNS
        times[method][i] = elapsed[method] / N_RUNS
        if delta[method]:
            deltas[method][i] = np.mean(delta[method])

print("n      " + "  ".join(f"{m:>17s}" for m in methods))
print("       " + "  ".join(f"{'error   time(s)':>17s}" for _ in methods))
for i, n in enumerate(SIZES):
    row = "  ".join(f"{errors[m][i]:6.2f} {times[m][i]:10.4f}" for m in methods)
    print(f"{n:<6d} {row}")
approx = methods[1:]
print("\nDelta_{X,Y} = |approximate MMD^2 - exact MMD^2|, mean over runs")
print("n      " + "  ".join(f"{m:>9s}" for m in approx))
for i, n in enumerate(SIZES[: SIZES.index(EXACT_MAX) + 1]):
    print(f"{n:<6d} " + "  ".join(f"{deltas[m][i]:9.2e}" for m in approx))

# %%
# Plot
# ----

fig, axes = plt.subplots(1, 3, figsize=(12.6, 4.4))
for method in methods:
    axes[0].plot(SIZES, errors[method], "o-", label=method)
    axes[1].loglog(SIZES, times[method], "o-", label=method)
    if method != "exact":
        axes[2].loglog(SIZES, deltas[method], "o-", label=method)
axes[0].set(xscale="log", xlabel="n", ylabel="error rate", title="Three-sample error")
axes[1].set(xlabel="n", ylabel="seconds per decision", title="Time")
axes[2].set(xlabel="n", ylabel="|MMD^2 approx - exact|", title="Delta_{X,Y}")
axes[0].legend()
fig.tight_layout()
plt.show()
