"""Cosine/sine feature evaluation, the hot loop of every Fourier-type map.

float64 ``np.cos`` runs on one core at about 3-6e7 values/s here, so float64
goes through a numba kernel that computes cos and sin of each projection
together, rows in parallel. numpy's float32 ``cos``/``sin`` are SIMD
vectorized (about 2e9 values/s on one core here), far faster than numba's
scalar libm calls, so float32 keeps numpy's ufuncs; they lose their SIMD path
when writing into a strided half of the output, hence the contiguous
temporary.
"""

import math

import numpy as np
from numba import njit, prange

# Below this many values a parallel launch costs more than it saves (about
# 0.1 ms idle, far more when the cores are busy).
_PARALLEL_MIN_SIZE = 2**16


def _cos_sin_loop(P, scale, out):
    n, L = P.shape
    for i in prange(n):
        for j in range(L):
            v = P[i, j]
            out[i, j] = scale * math.cos(v)
            out[i, L + j] = scale * math.sin(v)


def _cos_phase_loop(P, offset, scale, out):
    n, L = P.shape
    for i in prange(n):
        for j in range(L):
            out[i, j] = scale * math.cos(P[i, j] + offset[j])


def _compiled(loop):
    """The loop compiled twice: serial (prange is range) and parallel."""
    return njit(cache=True)(loop), njit(parallel=True, cache=True)(loop)


_COS_SIN = _compiled(_cos_sin_loop)
_COS_PHASE = _compiled(_cos_phase_loop)


def _numba(kernels, P, *args):
    kernels[P.size >= _PARALLEL_MIN_SIZE](P, *args)


def _numpy_cos_sin(P, scale, out):
    L = P.shape[1]
    tmp = np.empty_like(P)
    np.multiply(np.cos(P, out=tmp), scale, out=out[:, :L])
    np.multiply(np.sin(P, out=tmp), scale, out=out[:, L:])


def _numpy_cos_phase(P, offset, scale, out):
    tmp = np.add(P, offset)
    np.multiply(np.cos(tmp, out=tmp), scale, out=out)


def cos_sin(P, scale, out):
    """Write ``scale * [cos(P), sin(P)]`` into ``out`` of shape (n, 2 L)."""
    scale = P.dtype.type(scale)
    if P.dtype == np.float64:
        _numba(_COS_SIN, P, scale, out)
    else:
        _numpy_cos_sin(P, scale, out)


def cos_phase(P, offset, scale, out):
    """Write ``scale * cos(P + offset)`` into ``out`` of shape (n, L)."""
    scale = P.dtype.type(scale)
    if P.dtype == np.float64:
        _numba(_COS_PHASE, P, offset, scale, out)
    else:
        _numpy_cos_phase(P, offset, scale, out)
