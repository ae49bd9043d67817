"""Thresholds of :class:`OnlineMMDDetector` for an expected run time:
simulated null streams of held-out reference points, and the per-window
thresholds calibrated on their statistics."""

import math

import numpy as np

# Expected false alarms among the simulated streams after the windows are full:
# fewer make the tail of the run-length distribution a guess.
_MIN_ALARMS = 100
# Steps simulated after the largest window is full, in window lengths, at least:
# the statistic of overlapping windows forgets its start after about one.
_MIN_STEADY_WINDOWS = 4
_BISECTION_STEPS = 60


def steady_steps(max_window, ert, n_resamples):
    """Steps simulated after the largest window is full."""
    return max(
        _MIN_STEADY_WINDOWS * max_window,
        math.ceil(_MIN_ALARMS * ert / n_resamples),
    )


def _upper_quantiles(sorted_S, level):
    """Per-column upper ``level`` quantiles of column-sorted ``sorted_S``: the
    smallest values exceeded by at most a fraction ``level`` of the rows."""
    n = sorted_S.shape[0]
    # The ((n + 1) (1 - level))-th of n values is exceeded by a new value
    # with probability at most ``level`` (the n-th is exceeded by one in
    # n + 1): the in-sample rank would be liberal by one order statistic.
    rank = min(n - 1, max(0, math.ceil((n + 1) * (1.0 - level)) - 1))
    return sorted_S[rank]


def _joint_upper_quantiles(S, fpr):
    """Per-window thresholds with one common tail level chosen so that a
    fraction ``fpr`` of the rows of ``S`` (streams x windows) exceed any."""
    sorted_S = np.sort(S, axis=0)
    if S.shape[1] == 1:
        return _upper_quantiles(sorted_S, fpr)
    lo, hi = fpr / S.shape[1], fpr  # Bonferroni and no-correction brackets
    for _ in range(30):
        mid = math.sqrt(lo * hi)
        if (S > _upper_quantiles(sorted_S, mid)).any(axis=1).mean() > fpr:
            hi = mid
        else:
            lo = mid
    return _upper_quantiles(sorted_S, lo)


def _steady_run_length(exceed, start):
    """Mean run length of streams that reach step ``start`` (0-based) alive,
    from their first exceedance in ``exceed`` (streams x steps); those alive at
    the end get the mean remaining time of a constant hazard, estimated from
    the second half of the steps."""
    n_streams, n_steps = exceed.shape
    hit = exceed.any(axis=1)
    first = np.where(hit, exceed.argmax(axis=1), n_steps)
    restricted = np.minimum(first + 1, n_steps)  # steps survived or to alarm
    half = n_steps // 2
    at_half = first >= half
    exposure = np.minimum(first[at_half] + 1, n_steps) - half
    alarms = np.count_nonzero(hit & at_half)
    hazard = max(alarms, 1) / max(exposure.sum(), 1)
    survivors = np.count_nonzero(~hit)
    return start + (restricted.sum() + survivors / hazard) / n_streams


def null_streams(Z, n_held, n_steps, seeds, n_resamples, block_size):
    """Simulated null streams: the rows of ``Z`` each one visits
    (n_resamples x n_steps), and the reference sum it is compared with.

    Each stream re-splits ``X_ref``, as alibi-detect does, so that the
    calibration averages over splits instead of depending on one: it
    draws (with replacement, or in blocks) from its own held-out part of
    ``n_held`` rows and is compared with the rest. The offset between the
    two parts' means has the variance ``1 / n_held + 1 / n_ref`` (per unit
    of the features' covariance), while a live stream drawn from the
    population is offset from the reference by ``1 / n_ref`` only; the
    simulated reference mean is moved towards the held-out mean so that
    the offset has the live stream's variance; without this move the
    simulated streams see a larger offset than a live one, so the
    thresholds are too high and the run length longer than ``ert``.
    """
    n, D = Z.shape
    n_ref = n - n_held
    total = Z.sum(axis=0)
    keep = math.sqrt(n_held / (n_held + n_ref))  # std of the live offset
    index = np.empty((n_resamples, n_steps), dtype=np.int64)
    ref_sums = np.empty((n_resamples, D))
    batch = max(1, min(n_resamples, (1 << 22) // n))
    for lo in range(0, n_resamples, batch):
        b = min(batch, n_resamples - lo)
        if block_size is None:
            held = np.argpartition(seeds.random((b, n)), n_held, axis=1)
            held = held[:, :n_held]
            pos = seeds.integers(0, n_held, size=(b, n_steps))
            index[lo : lo + b] = np.take_along_axis(held, pos, axis=1)
        else:  # a circular segment of the time order, in circular blocks
            first = seeds.integers(0, n, size=(b, 1))
            held = (first + np.arange(n_held)) % n
            n_blocks = -(-n_steps // block_size)
            starts = seeds.integers(0, n_held, size=(b, n_blocks, 1))
            pos = (starts + np.arange(block_size)) % n_held
            pos = pos.reshape(b, -1)[:, :n_steps]
            index[lo : lo + b] = (first + pos) % n
        select = np.zeros((b, n))
        np.put_along_axis(select, held, 1.0, axis=1)
        held_mean = (select @ Z) / n_held
        ref_mean = (total - n_held * held_mean) / n_ref
        ref_sums[lo : lo + b] = n_ref * (held_mean - keep * (held_mean - ref_mean))
    return index, ref_sums


def calibrate_thresholds(stats, max_window, ert):
    """Thresholds (max_window x n_windows) and their simulated ERT."""
    fpr = 1.0 / ert
    n_streams, _, n_windows = stats.shape
    thresholds = np.empty((max_window, n_windows))
    alive = np.ones(n_streams, dtype=bool)
    first = np.full(n_streams, -1)
    for t in range(max_window - 1):
        b = _joint_upper_quantiles(stats[alive, t], fpr)
        thresholds[t] = b
        hit = alive & (stats[:, t] > b).any(axis=1)
        first[hit] = t + 1
        alive &= ~hit
    steady = stats[alive, max_window - 1 :]
    pooled = np.sort(steady.reshape(-1, n_windows), axis=0)

    def run_length(level):
        b = _upper_quantiles(pooled, level)
        tail = _steady_run_length((steady > b).any(axis=2), max_window - 1)
        return (first[~alive].sum() + alive.sum() * tail) / n_streams, b

    lo, hi = 1e-12, 1.0  # levels: ERT decreases as the level grows
    for _ in range(_BISECTION_STEPS):
        mid = math.sqrt(lo * hi)
        if run_length(mid)[0] > ert:
            lo = mid
        else:
            hi = mid
    ert_sim, thresholds[-1] = run_length(lo)
    return thresholds, float(ert_sim)
