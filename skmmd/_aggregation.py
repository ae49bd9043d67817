"""Aggregating several kernels' MMD statistics computed on shared resamples.

Input: a matrix ``T`` of shape (B + 1, K), row 0 the observed statistics of the
K kernels and rows 1..B the same statistics on B permutations shared by every
kernel. Each rule maps ``T`` to one p-value through a function that treats the
B + 1 rows symmetrically, so under the null (the rows exchangeable) the p-value
is valid in finite samples: ``P(p <= alpha) <= alpha`` for every alpha.
"""

import numpy as np
from scipy.special import logsumexp

# Relative tolerance when counting ties (as scipy.stats.permutation_test does).
_TIE_RTOL = 1e-14


def _tie_tolerance(T):
    return _TIE_RTOL * np.maximum(np.abs(T).max(axis=0), np.finfo(np.float64).tiny)


def _rank_p_value(values, tolerance):
    """``#{b : values[b] >= values[0] - tol} / (B + 1)``, row 0 counting itself."""
    return np.count_nonzero(values >= values[0] - tolerance) / values.shape[0]


def per_kernel_p_values(T):
    """p-value of every row against all B + 1 rows, per kernel.

    ``p[b, k] = #{b' : T[b', k] >= T[b, k]} / (B + 1)`` (ties within the tie
    tolerance count as >=); ``p[0]`` are the usual permutation p-values
    ``(1 + #{T_b >= T}) / (B + 1)``.
    """
    n_rows = T.shape[0]
    tol = _tie_tolerance(T)
    p = np.empty_like(T, dtype=np.float64)
    for k in range(T.shape[1]):
        ordered = np.sort(T[:, k])
        below = np.searchsorted(ordered, T[:, k] - tol[k], side="left")
        p[:, k] = (n_rows - below) / n_rows
    return p


def minp_p_value(T, weights=None):
    """MMDAgg-style aggregation: the smallest (weighted) per-kernel p-value,
    calibrated on the same resamples (Westfall & Young's min-p).

    Rejecting when it is <= alpha is rejecting when some kernel's statistic
    exceeds its own permutation quantile at a common, calibrated level: the
    per-kernel thresholds with level correction of MMDAgg (Schrab et al. 2023,
    uniform weights), from one set of resamples.
    """
    p = per_kernel_p_values(T)
    if weights is not None:
        p = p / (np.asarray(weights, dtype=np.float64) / np.mean(weights))
    min_p = p.min(axis=1)
    # Small min-p is evidence: count rows at least as extreme as the observed.
    return np.count_nonzero(min_p <= min_p[0] * (1 + _TIE_RTOL)) / T.shape[0]


def standardize(T):
    """Each kernel's statistics centred and scaled by their mean and standard
    deviation over all B + 1 rows (symmetric in the rows); a constant column
    carries no evidence and becomes 0."""
    sd = T.std(axis=0)
    scale = np.where(sd > _TIE_RTOL * np.abs(T).max(axis=0), sd, np.inf)
    return (T - T.mean(axis=0)) / scale


def fuse_statistic(T):
    """FUSE-style statistic: log-mean-exp over kernels of the standardized
    statistics, a smooth maximum (Biggs et al. 2023)."""
    S = standardize(T)
    return logsumexp(S, axis=1) - np.log(S.shape[1])


def fuse_p_value(T):
    """Permutation p-value of :func:`fuse_statistic`, calibrated as one statistic."""
    fused = fuse_statistic(T)
    return _rank_p_value(fused, _tie_tolerance(fused[:, None])[0])
