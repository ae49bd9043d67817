"""Error bounds for random-feature Gram matrices, derived from the estimator's
exact variance (imported by the accuracy tests of every Fourier-type map).

A Fourier map estimates every Gram entry ``k(delta_p)`` as the mean of ``L``
i.i.d. terms ``f_l(p)``: ``cos(w_l^T delta_p)`` for ``cos_sin`` (``L = D/2``),
``2 cos(w_l^T x + b_l) cos(w_l^T y + b_l)`` for ``cos_phase`` (``L = D``). For a
shift-invariant kernel with a symmetric spectral law the covariance of one term
between two entries is exactly

    C_pq = (k(d_p - d_q) + k(d_p + d_q)) / 2 - k(d_p) k(d_q)
           [+ k(s_p - s_q) / 2 for cos_phase, s_p = x_i + x_j]

so every variance below is exact, not estimated. Bias and max error use
Bernstein's inequality (terms bounded by ``c``), which is rigorous; the mean
absolute error uses a normal approximation of the mean over entries. Each bound
fails with probability at most ``delta`` (1e-4), so all 100 seeds of the sweep
pass unless the map is wrong.
"""

import numpy as np
from scipy import stats

DELTA = 1e-4


def pair_index(n):
    """Entries (i <= j) of an n x n Gram matrix."""
    return np.triu_indices(n)


def term_covariance(X, kernel, feature):
    """Exact covariance of one random term between all entries i <= j."""
    i, j = pair_index(X.shape[0])
    diffs = X[i] - X[j]
    k = kernel(diffs, np.zeros((1, X.shape[1])))[:, 0]
    C = 0.5 * (kernel(diffs, diffs) + kernel(diffs, -diffs)) - np.outer(k, k)
    if feature == "cos_phase":
        sums = X[i] + X[j]
        C += 0.5 * kernel(sums, sums)
    return C


def bernstein(variance, n_terms, bound, delta):
    """t with P(|mean of n_terms i.i.d. terms - expectation| > t) <= delta."""
    log_term = 2.0 * np.log(2.0 / delta)
    a = log_term * bound / 3.0
    return (a + np.sqrt(a**2 + 4.0 * n_terms * log_term * variance)) / (2.0 * n_terms)


def gram_error_bounds(X, kernel, n_components, feature="cos_sin", delta=DELTA):
    """Bounds on (|mean bias|, per-entry |error|, mean |error|) of the Gram matrix.

    Returns the bounds and the entry index ``(i, j)`` they refer to.
    """
    C = term_covariance(X, kernel, feature)
    n_terms = n_components // 2 if feature == "cos_sin" else n_components
    # |f_l - E f_l| <= 2 for cos(.) - k; <= 3 for 2 cos cos - k.
    c = 2.0 if feature == "cos_sin" else 3.0
    M = C.shape[0]
    bias = bernstein(C.sum() / M**2, n_terms, c, delta)
    per_entry = bernstein(np.clip(np.diag(C), 0, None), n_terms, c, delta / M)
    sd = np.sqrt(np.clip(np.diag(C), 0, None) / n_terms)
    # E|e| <= sd_p and sd(|e_p|) <= sd_p (normal: sqrt(2/pi), sqrt(1 - 2/pi));
    # the mean over entries has sd <= mean(sd_p) (triangle inequality).
    z = stats.norm.isf(delta)
    mae = sd.mean() * (np.sqrt(2 / np.pi) + z * np.sqrt(1 - 2 / np.pi))
    return bias, per_entry, mae, pair_index(X.shape[0])


def check_gram_accuracy(Z, K, X, kernel, n_components, feature="cos_sin"):
    """Assert the three bounds for features Z against the exact Gram matrix K."""
    bias, per_entry, mae, (i, j) = gram_error_bounds(X, kernel, n_components, feature)
    err = (Z @ Z.T - K)[i, j]
    # 1e-6 absorbs round-off where the exact variance is 0 (the cos_sin diagonal).
    assert abs(err.mean()) <= bias + 1e-6, (abs(err.mean()), bias)
    assert np.all(np.abs(err) <= per_entry + 1e-6), np.max(np.abs(err) - per_entry)
    assert np.abs(err).mean() <= mae + 1e-6, (np.abs(err).mean(), mae)
