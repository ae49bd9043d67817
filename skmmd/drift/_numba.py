"""Compiled loops of the online detector: the window step (one point, O(D)),
the Fourier features of one point, and the null simulation over many streams.

The statistic is :func:`skmmd.statistics._features.mmd2_from_parts` compiled as it
is, so the detector, its calibration and the offline tests share one
definition.
"""

import math

import numpy as np

from .._utils._jit import njit
from ..statistics._features import mmd2_from_parts

_mmd2 = njit(cache=True)(mmd2_from_parts)


@njit(cache=True)
def _statistics(sums, counts, windows, ref_sum, ref_sq, n_ref, out):
    """V-statistic MMD^2 between the reference and each window (O(K D))."""
    n_windows, D = sums.shape
    for k in range(n_windows):
        n = min(counts, windows[k])
        p_yy = 0.0
        p_xy = 0.0
        for j in range(D):
            s = sums[k, j]
            p_yy += s * s
            p_xy += s * ref_sum[j]
        out[k] = _mmd2(
            ref_sq, p_yy, p_xy, 0.0, 0.0, 0.0,
            n_ref * n_ref, n * n, n_ref * n, False,
        )[0]  # fmt: skip


@njit(cache=True)
def _push(z, ring, sums, windows, count):
    """Add ``z`` to the windows, dropping the point each window leaves.

    ``ring[count % len(ring)]`` receives ``z``; ``count`` points came before.
    """
    cap = ring.shape[0]
    D = z.shape[0]
    for k in range(windows.shape[0]):
        w = windows[k]
        if count >= w:
            old = ring[(count - w) % cap]
            for j in range(D):
                sums[k, j] += z[j] - old[j]
        else:
            for j in range(D):
                sums[k, j] += z[j]
    slot = ring[count % cap]
    for j in range(D):
        slot[j] = z[j]


@njit(cache=True)
def _decide(stats, thresholds, count, out_thr):
    """Thresholds at step ``count`` (1-based) and whether any is exceeded."""
    row = min(count, thresholds.shape[0]) - 1
    flag = False
    for k in range(stats.shape[0]):
        b = thresholds[row, k]
        out_thr[k] = b
        if stats[k] > b:
            flag = True
    return flag


@njit(cache=True)
def run_features(Z, ring, sums, windows, count, ref_sum, ref_sq, n_ref, thresholds):
    """Feed the feature rows ``Z`` one at a time; per row the statistics, the
    thresholds and the flag. Returns the new count."""
    n = Z.shape[0]
    K = windows.shape[0]
    stats = np.empty((n, K))
    thr = np.empty((n, K))
    flags = np.empty(n, dtype=np.bool_)
    for i in range(n):
        _push(Z[i], ring, sums, windows, count)
        count += 1
        _statistics(sums, count, windows, ref_sum, ref_sq, n_ref, stats[i])
        flags[i] = _decide(stats[i], thresholds, count, thr[i])
    return stats, thr, flags, count


@njit(cache=True)
def fourier_point(x, W, offset, n_pairs, scale, z):
    """Fourier features of one point, as :func:`trig_features` lays them out:
    ``scale [cos(x W_pairs), sin(x W_pairs), cos(x W_rest + offset)]``."""
    d, F = W.shape
    for f in range(F):
        p = 0.0
        for i in range(d):
            p += x[i] * W[i, f]
        if f < n_pairs:
            z[f] = scale * math.cos(p)
            z[n_pairs + f] = scale * math.sin(p)
        else:
            z[n_pairs + f] = scale * math.cos(p + offset[f - n_pairs])


@njit(cache=True)
def update_fourier(
    x, W, offset, n_pairs, scale, z, ring, sums, windows, count, ref_sum, ref_sq,
    n_ref, thresholds, stats, thr,
):  # fmt: skip
    """One update from a raw point with the Fourier fast path: the flag, or -1
    (state untouched) if ``x`` holds NaN or infinity, -2 if its features are
    not finite (a value so large that ``x W`` overflows)."""
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return -1
    fourier_point(x, W, offset, n_pairs, scale, z)
    for j in range(z.shape[0]):
        if not math.isfinite(z[j]):
            return -2
    _push(z, ring, sums, windows, count)
    _statistics(sums, count + 1, windows, ref_sum, ref_sq, n_ref, stats)
    return _decide(stats, thresholds, count + 1, thr)


# Serial: a parallel version takes about a minute to compile, longer than a
# typical calibration takes to run.
@njit(cache=True)
def simulate(Z, index, windows, ref_sums, ref_sq, n_ref):
    """Statistics of every window along null streams ``Z[index[s]]``, stream
    ``s`` against the reference sum ``ref_sums[s]`` (``ref_sq[s]`` its squared
    norm).

    Returns an array of shape (n_streams, n_steps, n_windows); each step is
    O(K D) (running window sums).
    """
    n_streams, n_steps = index.shape
    K = windows.shape[0]
    D = Z.shape[1]
    out = np.empty((n_streams, n_steps, K))
    for s in range(n_streams):
        sums = np.zeros((K, D))
        for t in range(n_steps):
            z = Z[index[s, t]]
            for k in range(K):
                w = windows[k]
                if t >= w:
                    old = Z[index[s, t - w]]
                    for j in range(D):
                        sums[k, j] += z[j] - old[j]
                else:
                    for j in range(D):
                        sums[k, j] += z[j]
            _statistics(sums, t + 1, windows, ref_sums[s], ref_sq[s], n_ref, out[s, t])
    return out
