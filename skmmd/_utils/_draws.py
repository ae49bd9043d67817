"""Compiled draws of the permutation resamples (of the calibration loop,
:mod:`skmmd._inference._calibration`).

A permutation resample is a uniformly random set of ``g_x`` of the ``G``
units; drawing it as the head of a whole ``rng.permutation(G)`` per resample
costs ``O(G)`` random numbers and a Python call each. Here every resample's
subset comes from ``k = min(g_x, G - g_x)`` uniform numbers drawn in one call
(so batches cut from one stream give the same resamples), through a partial
Fisher-Yates shuffle: for a small batch of few units by NumPy, all rows at
once (no compiled code to load, so a small first test does not wait for
numba's compiler), else by a compiled loop, rows in parallel for a large
batch. The subsets are the same integers either way.
"""

import numpy as np

from ._jit import prange, serial_and_parallel

# Uniforms drawn per call (8 MB): rows enough for tasks on every thread (a
# task takes _ROWS_PER_TASK rows, so a buffer of fewer rows runs on one).
_UNIFORM_ENTRIES = 2**20


# Resamples per parallel task: one index buffer serves them all (a fresh
# G-entry buffer per resample costs a page-faulting allocation each).
_ROWS_PER_TASK = 16
# Swaps of a call below which it runs on one thread: waking the thread pool
# right after a BLAS product (whose threads still spin) costs more than the
# parallel swaps save in small calls (the sequential test's batches of a few
# rows).
_PARALLEL_MIN_SWAPS = 2**20
# Units shuffled per row (k) up to which NumPy makes a one-thread call's
# swaps: for rows this short its loop over the k swaps costs less than
# loading the compiled loop in a fresh process.
_NUMPY_MAX_SWAPS_PER_ROW = 256


def _fill_subsets(uniforms, G, inside, A):
    """Row ``b`` of ``A``: 1 on a uniform random subset of ``k`` units (0
    elsewhere) when ``inside``, else 0 on it (1 elsewhere)."""
    n, k = uniforms.shape
    outside = 0.0 if inside else 1.0
    for task in prange(-(-n // _ROWS_PER_TASK)):
        units = np.arange(G, dtype=np.int32)
        for b in range(task * _ROWS_PER_TASK, min(n, (task + 1) * _ROWS_PER_TASK)):
            for i in range(k):
                # Uniform on i .. G - 1 (the bias of a 53-bit uniform is < G 2^-53).
                j = i + int(uniforms[b, i] * (G - i))
                units[i], units[j] = units[j], units[i]
            A[b, :] = outside
            for i in range(k):
                A[b, units[i]] = 1.0 - outside
            # The next resample starts from 0 .. G - 1 again: each row depends
            # on its own uniforms only.
            for i in range(G):
                units[i] = i


_FILL_SUBSETS = serial_and_parallel(_fill_subsets)


def _numpy_fill(uniforms, G, inside, A):
    """:func:`_fill_subsets` by NumPy, every row's shuffle a step at a time
    (the same swaps: ``int`` of the same product truncates alike)."""
    n, k = uniforms.shape
    units = np.tile(np.arange(G, dtype=np.int32), (n, 1))
    rows = np.arange(n)
    for i in range(k):
        j = i + (uniforms[:, i] * (G - i)).astype(np.int64)
        first = units[:, i].copy()
        units[:, i] = units[rows, j]
        units[rows, j] = first
    A[...] = 0.0 if inside else 1.0
    A[rows[:, None], units[:, :k]] = 1.0 if inside else 0.0


def permutation_counts(rng, n_resamples, n_units, out=None):
    """The X* indicator rows ``A`` (n_resamples, G) of ``n_resamples``
    permutation resamples: uniformly random ``g_x``-subsets of the units
    (written into the first rows of ``out`` when given)."""
    g_x, g_y = n_units
    G = g_x + g_y
    k = min(g_x, g_y)
    A = np.empty((n_resamples, G)) if out is None else out[:n_resamples]
    # The uniforms go through one small buffer, a few rows at a time (the same
    # stream as one call): a fresh array of them all (B x min(g_x, g_y)
    # entries) costs more in page faults than drawing them.
    rows = max(1, min(n_resamples, _UNIFORM_ENTRIES // max(k, 1)))
    uniforms = np.empty((rows, k))
    for lo in range(0, n_resamples, rows):
        hi = min(lo + rows, n_resamples)
        rng.random(out=uniforms[: hi - lo])
        parallel = (hi - lo) * k >= _PARALLEL_MIN_SWAPS
        if not parallel and k <= _NUMPY_MAX_SWAPS_PER_ROW:
            fill = _numpy_fill
        else:
            fill = _FILL_SUBSETS[parallel]
        fill(uniforms[: hi - lo], G, g_x <= g_y, A[lo:hi])
    return A
