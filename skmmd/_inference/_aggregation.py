"""Aggregating several kernels' statistics computed on shared resamples: the
MMD of every kernel on the same permutations of the two samples, the HSIC of
every pair of an x and a y kernel on the same pairings, or the kernel Stein
discrepancy of every kernel on the same bootstrap signs.

Input: a matrix ``T`` of shape (B + 1, K), row 0 the observed statistics of the
K kernels and rows 1..B the same statistics on B resamples shared by every
kernel. Each rule maps ``T`` to one p-value through a function that treats the
B + 1 rows symmetrically, so under the null (the rows exchangeable) the p-value
is valid in finite samples: ``P(p <= alpha) <= alpha`` for every alpha.

The two aggregated tests also share how named weight shapes become one weight
per kernel (:func:`resolved_weights`); their default kernels are made in
:mod:`skmmd._inference._grids`.
"""

import numpy as np
from scipy.special import logsumexp

# Relative tolerance when counting ties (as scipy.stats.permutation_test does).
_TIE_RTOL = 1e-14


def _tie_tolerance(T):
    return _TIE_RTOL * np.maximum(np.abs(T).max(axis=0), np.finfo(np.float64).tiny)


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


def minp_statistic(T, weights=None):
    """MMDAgg/HSICAgg aggregation: ``-log`` of the smallest (weighted) per-kernel
    p-value of every row (Westfall & Young's min-p; larger is more evidence).

    Rejecting when its p-value is <= alpha is rejecting when some kernel's
    statistic exceeds its own permutation quantile at a common, calibrated
    level: the per-kernel thresholds with level correction of MMDAgg (Schrab
    et al. 2023), from one set of resamples.
    """
    p = per_kernel_p_values(T)
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        p = p / (w / w.mean())
    return -np.log(p.min(axis=1))


def standardize(T):
    """Each kernel's statistics centred and scaled by their mean and standard
    deviation over all B + 1 rows (symmetric in the rows); a constant column
    carries no evidence and becomes 0."""
    sd = T.std(axis=0)
    scale = np.where(sd > _TIE_RTOL * np.abs(T).max(axis=0), sd, np.inf)
    return (T - T.mean(axis=0)) / scale


def fuse_statistic(T, weights=None):
    """FUSE-style aggregation: log-mean-exp over kernels of the standardized
    statistics, a smooth maximum (Biggs et al. 2023)."""
    S = standardize(T)
    w = np.ones(S.shape[1]) if weights is None else np.asarray(weights, float)
    return logsumexp(S, axis=1, b=w / w.sum())


# Min-p is MMDAgg's rule for the two-sample tests, HSICAgg's for independence
# and KSDAgg's for goodness of fit (Schrab et al. 2023; 2022; 2022).
AGGREGATORS = {
    "mmdagg": minp_statistic,
    "hsicagg": minp_statistic,
    "ksdagg": minp_statistic,
    "fuse": fuse_statistic,
}

WEIGHT_SHAPES = ("uniform", "increasing", "decreasing", "centred")


def grid_weights(shape, n):
    """MMDAgg's prior weights over ``n`` bandwidths in increasing order, summing
    to 1: ``"decreasing"`` favours small bandwidths (``w_i ~ 1 / i``),
    ``"increasing"`` large ones, ``"centred"`` the middle of the grid."""
    i = np.arange(1, n + 1)
    raw = {
        "uniform": np.ones(n),
        "decreasing": 1 / i,
        "increasing": 1 / (n + 1 - i),
        "centred": 1 / (np.abs((n + 1) / 2 - i) + (1 if n % 2 else 0.5)),
    }[shape]
    return raw / raw.sum()


def resolved_weights(weights, n_kernels, n_bandwidths, combine, what, maps_hint):
    """One weight per kernel, summing to 1, from ``weights``: ``"uniform"``;
    another shape of :func:`grid_weights` over each grid of ``n_bandwidths``,
    ``combine``-d into the kernels' weights (None where the kernels are not
    bandwidth grids: a ValueError, ``maps_hint`` saying what to give); or an
    array, checked by :func:`checked_weights` (one per ``what``)."""
    if not isinstance(weights, str):
        return checked_weights(weights, n_kernels, what)
    if weights == "uniform":
        return np.full(n_kernels, 1 / n_kernels)
    if combine is None:
        raise ValueError(
            f"weights={weights!r} applies to the bandwidth grids of the default "
            f"maps; {maps_hint}"
        )
    return combine(grid_weights(weights, n_bandwidths))


def checked_weights(weights, n_kernels, what="kernel"):
    """Weights given as an array, validated (one finite positive entry per
    kernel, or per ``what``) and scaled to sum 1."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_kernels,):
        raise ValueError(
            f"weights must have one entry per {what} ({n_kernels}); got shape "
            f"{weights.shape}."
        )
    if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise ValueError(
            f"weights must be finite and positive; got {weights.tolist()}."
        )
    return weights / weights.sum()


def aggregated_p_value(T, method="mmdagg", weights=None):
    """Aggregated statistic of every row and the p-value of row 0.

    Min-p values are multiples of ``1 / (B + 1)``: many kernels can share the
    smallest one, so rows tied on it are ordered by their largest standardized
    statistic, which keeps the ordering symmetric in the rows (and the p-value
    valid) while making it far less discrete.

    Returns
    -------
    statistic : ndarray of shape (B + 1,)
        The aggregated statistic, observed first.
    p_value : float
        ``#{b : row b at least as extreme as row 0} / (B + 1)``, row 0 included.
    """
    statistic = AGGREGATORS[method](T, weights)
    tolerance = _TIE_RTOL * max(np.abs(statistic).max(), np.finfo(float).tiny)
    at_least = statistic >= statistic[0] - tolerance
    if AGGREGATORS[method] is minp_statistic:
        secondary = standardize(T).max(axis=1)
        tied = np.abs(statistic - statistic[0]) <= tolerance
        at_least = (statistic > statistic[0] + tolerance) | (
            tied & (secondary >= secondary[0] - _TIE_RTOL * np.abs(secondary).max())
        )
    return statistic, np.count_nonzero(at_least) / statistic.shape[0]


def p_value_of(method, weights=None):
    """``p_of(observed, null, tolerance)`` of the sequential loop
    (``n_resamples="auto"``): the aggregated p-value of the observed row
    against the null rows drawn so far."""

    def p_of(observed, null, tolerance):
        return aggregated_p_value(np.vstack([observed, null]), method, weights)[1]

    return p_of


def aggregated_results(estimator, observed, null):
    """Set the per-kernel attributes every aggregated test shares, from each
    kernel's ``observed`` statistic and its resampled ``null`` (rows, one
    column per kernel): ``statistics_``, ``null_distributions_`` and
    ``p_values_``. Returns the aggregated statistic, its null and its
    p-value of the resamples drawn, for
    :func:`~skmmd._inference._base.set_calibrated`."""
    T = np.vstack([observed, null])
    estimator.statistics_ = observed
    estimator.null_distributions_ = null
    estimator.p_values_ = per_kernel_p_values(T)[0]
    aggregated, p_value = aggregated_p_value(T, estimator.method, estimator.weights_)
    return float(aggregated[0]), aggregated[1:], float(p_value)
