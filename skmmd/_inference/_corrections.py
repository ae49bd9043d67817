"""Adjusted p-values of many statistics computed on the same resamples: one
per column of a table in ``explain``.

Input: a matrix ``T`` of shape (B + 1, K), row 0 the observed statistics of
the K hypotheses and rows 1..B the same statistics on B resamples shared by
all of them (as in :mod:`._aggregation`).

Permutation p-values take the values ``1/(B+1), 2/(B+1), ...``, so single-step
min-p over them cannot go below about ``K/(B+1)``: with more columns than
about ``alpha (B+1)`` nothing could be flagged. Here each statistic is first
mapped through a continuous fit of its own null (:func:`fitted_log_p_values`),
which makes the columns' nulls alike; the fit's tail itself is too thin
(about twice too many null columns fall below 0.001), so it only serves as
a common scale, calibrated by resamples:

- ``"fwer"``: Westfall & Young's step-down maxT on ``-log`` of the fitted
  p-values over the shared resamples (the adjusted p-values are resampling
  p-values), so a column far outside every resample's maximum gets
  ``1/(B+1)`` whatever ``K``;
- ``"fdr"`` / ``"fdr_by"``: Benjamini-Hochberg / Benjamini-Yekutieli through
  :func:`scipy.stats.false_discovery_control` on the pooled p-values
  (:func:`pooled_p_values`: each observed statistic against the resampled
  ones of all columns on that scale, a resolution of ``1/(B K + 1)``);
- ``"none"``: each column's own permutation p-value.
"""

import numpy as np
from scipy.special import log_ndtr
from scipy.stats import false_discovery_control

from .._utils import _budgets
from ._aggregation import _TIE_RTOL, _tie_tolerance, aggregated_p_value

CORRECTIONS = ("fwer", "fdr", "fdr_by", "none")
# What each correction controls, as the texts above a per-column report say
# it (the CLI's, the HTML report's, the display's).
CORRECTION_TEXTS = {
    "fwer": "family-wise error controlled by step-down maxT",
    "fdr": "false discovery rate controlled by Benjamini-Hochberg",
    "fdr_by": "false discovery rate controlled by Benjamini-Yekutieli",
    "none": "no correction: each column's own permutation p-value",
}

# Skewness below which a column's null is taken as normal (the gamma's shape
# 4 / skew^2 would exceed 4e6).
_NORMAL_SKEW = 1e-3
# The fitted p-value of a row beyond every other row of a constant column.
_TINY = 1e-300


def _log_upper_tail(z, skew):
    """``log`` of the upper tail at the standardized value ``z`` of the
    Pearson type III law of skewness ``skew >= 0`` (a gamma of shape
    ``a = 4 / skew^2``; the normal at 0), by Wilson & Hilferty's cube-root
    normal approximation of the gamma: computed in logs, so an extreme value
    keeps its rank instead of underflowing to 0."""
    skewed = np.broadcast_to(skew > _NORMAL_SKEW, z.shape)
    if not skewed.any():
        return log_ndtr(-z)
    # Every entry's argument, then one log_ndtr (not one per kind of entry).
    a = 4.0 / np.where(skewed, skew, 1.0) ** 2
    ratio = np.maximum(1.0 + z / np.sqrt(a), 0.0)  # gamma / a
    gamma = (1.0 - 1.0 / (9.0 * a) - np.cbrt(ratio)) * np.sqrt(9.0 * a)
    return log_ndtr(np.where(skewed, gamma, -z))


def fitted_log_p_values(T):
    """``log`` of the continuous upper-tail p-value of every entry of ``T``,
    each from a fit of its column's null to the column's *other* rows.

    Entry ``(b, k)`` is the upper tail at ``T[b, k]`` of the Pearson type III
    law (a shifted gamma) with the mean, variance and skewness of
    ``T[b', k]`` over ``b' != b`` (skewness clipped at 0: the nulls of MMD^2
    and HSIC are skewed to the right). Leaving the row out keeps an extreme
    observed statistic from widening its own fit; the map is the same
    function of the rows for every row, so the rows stay exchangeable under
    the null, and a step-down procedure on these values stays exact.
    Constant columns get 1 (log 0).
    """
    T = np.asarray(T, dtype=np.float64)
    out = np.empty(T.shape)
    # Columns in slices: a dozen temporaries of a slice's size, not T's.
    for columns in _budgets.column_slices(T.shape[1], T.shape[0]):
        out[:, columns] = _fitted_log_p(T[:, columns])
    return out


def _fitted_log_p(T):
    """:func:`fitted_log_p_values` of some columns."""
    n = T.shape[0] - 1  # rows left in each fit
    center = T.mean(axis=0)
    spread = T.std(axis=0)
    constant = spread <= _TIE_RTOL * np.maximum(np.abs(T).max(axis=0), 1e-300)
    x = (T - center) / np.where(constant, 1.0, spread)
    x2 = x * x
    x3 = x2 * x
    mean = (x.sum(axis=0) - x) / n
    second = (x2.sum(axis=0) - x2) / n
    third = (x3.sum(axis=0) - x3) / n
    mean2 = mean * mean
    var = np.maximum(second - mean2, 0.0)
    central3 = third - mean * (3.0 * second - 2.0 * mean2)
    sd = np.sqrt(var * (n / max(n - 1, 1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        skew = central3 / (var * np.sqrt(var))
        z = (x - mean) / sd
    skew = np.where(var > 0, np.clip(skew, 0.0, None), 0.0)
    z = np.where(sd > 0, z, 0.0)
    log_p = _log_upper_tail(z, skew)
    # A row alone beyond all others (sd 0 of the rest) is as extreme as any.
    log_p = np.where(sd > 0, log_p, np.where(x > mean, np.log(_TINY), 0.0))
    log_p[:, constant] = 0.0
    return log_p


def maxt_adjusted_p_values(log_p):
    """Westfall & Young's step-down maxT adjusted p-values of row 0, on the
    statistics ``t = -log_p`` (fitted log p-values) of every row.

    Columns are ranked by their observed ``t``; a column's adjusted p-value
    is the share of the B + 1 rows (row 0 included) whose largest ``t`` over
    the columns ranked with it or below reaches its own, made nondecreasing
    down the ranking (Westfall & Young 1993, Algorithm 4.1). Rejecting the
    columns with ``p <= alpha`` controls the family-wise error rate at
    ``alpha`` strongly under subset pivotality.
    """
    order = np.argsort(log_p[0], kind="stable")
    ranked = np.negative(log_p[:, order])  # t, in place: one copy of log_p
    observed = ranked[0].copy()
    # Largest t over the columns ranked r, r + 1, ..., of every row, in place.
    tails = ranked[:, ::-1]
    np.maximum.accumulate(tails, axis=1, out=tails)
    tolerance = _TIE_RTOL * np.maximum(np.abs(observed), 1.0)
    counts = np.count_nonzero(ranked >= observed - tolerance, axis=0)
    adjusted = np.maximum.accumulate(counts / log_p.shape[0])
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return out


def permutation_p_values(T):
    """Each column's permutation p-value ``#{b : T[b, k] >= T[0, k]} /
    (B + 1)`` (row 0 included, ties within the tolerance of
    :func:`._aggregation.per_kernel_p_values`, which gives every row's)."""
    return np.count_nonzero(T >= T[0] - _tie_tolerance(T), axis=0) / T.shape[0]


def pooled_p_values(T, log_p):
    """Each column's observed ``t = -log_p[0]`` (fitted to all its
    resamples, :func:`fitted_log_p_values` of ``T``) against the resampled
    ``t`` of every column, each fitted to the other resamples of its column:
    ``(1 + #{(b >= 1, k) : t_b,k >= t_0,j}) / (1 + B K)``.

    On the fitted scale the columns' nulls are alike, so all ``B K``
    resampled values estimate one null: the p-values are as fine as
    ``1/(B K + 1)`` and calibrated by the resamples, not by the fit's tail
    (the pooled permutation p-values of Storey & Tibshirani 2003). The
    resamples' fits leave the observed row out: a changed column's extreme
    statistic would widen its resamples' fits, put them lower and make every
    pooled p-value too small.
    """
    t = -log_p[0]
    tolerance = _TIE_RTOL * np.maximum(np.abs(t), 1.0)
    # The resampled values counted below each observed one slice by slice
    # (those of fitted_log_p_values(T[1:]), whose slices these are): the
    # counts of one sorted array of all of them, never held at once.
    below = np.zeros(t.size, dtype=np.int64)
    for columns in _budgets.column_slices(T.shape[1], T.shape[0] - 1):
        null = _fitted_log_p(T[1:, columns]).ravel()
        np.negative(null, out=null)
        null.sort()
        below += np.searchsorted(null, t - tolerance, side="left")
    size = (T.shape[0] - 1) * T.shape[1]
    return (1.0 + size - below) / (1.0 + size)


def adjusted_p_values(T, correction, permutation_p, log_p=None):
    """``(adjusted, pooled)``: the adjusted p-values of row 0 of ``T`` under
    ``correction`` (one of :data:`CORRECTIONS`), and row 0's pooled
    p-values (:func:`pooled_p_values`). ``permutation_p``: row 0's
    permutation p-values (the adjusted ones of ``"none"``); ``log_p``:
    :func:`fitted_log_p_values` of ``T`` when already computed."""
    if correction not in CORRECTIONS:
        raise ValueError(
            f"correction must be one of {list(CORRECTIONS)}; got {correction!r}."
        )
    log_p = fitted_log_p_values(T) if log_p is None else log_p
    pooled = pooled_p_values(T, log_p)
    if correction == "fwer":
        adjusted = maxt_adjusted_p_values(log_p)
    elif correction == "none":
        adjusted = np.asarray(permutation_p, dtype=np.float64)
    else:
        method = "bh" if correction == "fdr" else "by"
        adjusted = false_discovery_control(pooled, method=method)
    return adjusted, pooled


def smallest_fwer_p_value(T, log_p=None):
    """The smallest step-down maxT adjusted p-value: the resampling p-value
    of the largest ``-log`` fitted p-value over the columns (what
    ``n_resamples="auto"`` watches: no column can be flagged when it is
    settled above alpha). ``log_p``: :func:`fitted_log_p_values` of ``T``
    when already computed."""
    log_p = fitted_log_p_values(T) if log_p is None else log_p
    largest = -log_p.min(axis=1)
    tolerance = _TIE_RTOL * max(abs(largest[0]), 1.0)
    return float(np.count_nonzero(largest >= largest[0] - tolerance) / log_p.shape[0])


def decision_p_value(table, columns=None, log_p=None):
    """The p-value of a table's decision that a moved column can trigger:
    min-p over the table's statistic (``table``, shape (B + 1,)) and the
    first step of step-down maxT over its columns (``columns``, shape
    (B + 1, K)), both on the same B resamples (row 0 observed).

    Each row's two statistics become p-values against all rows, and the
    smaller is calibrated by the rows themselves (the aggregated tests'
    min-p, :func:`._aggregation.aggregated_p_value`): every step is the same
    function of the rows for every row, so the p-value is exact under
    exchangeable resamples. It rejects when the table's statistic or the
    most changed column is beyond its own quantile at one common level,
    slightly below alpha. ``log_p``: :func:`fitted_log_p_values` of
    ``columns`` when already computed (then ``columns`` is not read).
    """
    log_p = fitted_log_p_values(columns) if log_p is None else log_p
    both = np.column_stack([np.asarray(table, dtype=np.float64), -log_p.min(axis=1)])
    return float(aggregated_p_value(both, "mmdagg")[1])
