"""Cosine/sine feature evaluation, the hot loop of every Fourier-type map.

float64 ``np.cos`` runs on one core at about 3-6e7 values/s here, so float64
goes through a numba kernel that computes cos and sin of each projection
together, rows in parallel. numpy's float32 ``cos``/``sin`` are SIMD
vectorized (about 1e9 values/s per core), faster than numba's scalar libm
calls, so float32 keeps numpy's ufuncs, run over row blocks in threads (they
release the GIL).
"""

import math
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit, prange
from sklearn.utils import gen_even_slices


@njit(parallel=True, cache=True)
def _cos_sin_kernel(P, scale, out):
    n, L = P.shape
    for i in prange(n):
        for j in range(L):
            v = P[i, j]
            out[i, j] = scale * math.cos(v)
            out[i, L + j] = scale * math.sin(v)


@njit(parallel=True, cache=True)
def _cos_phase_kernel(P, offset, scale, out):
    n, L = P.shape
    for i in prange(n):
        for j in range(L):
            out[i, j] = scale * math.cos(P[i, j] + offset[j])


def _numpy_cos_sin(P, scale, out):
    L = P.shape[1]
    np.cos(P, out=out[:, :L])
    np.sin(P, out=out[:, L:])
    out *= scale


def _numpy_cos_phase(P, offset, scale, out):
    np.add(P, offset, out=out)
    np.cos(out, out=out)
    out *= scale


def _threaded(func, P, out, *args):
    n_threads = min(numba.get_num_threads(), max(1, P.shape[0] // 256))
    if n_threads <= 1:
        func(P, *args, out)
        return
    with ThreadPoolExecutor(n_threads) as pool:
        jobs = [
            pool.submit(func, P[rows], *args, out[rows])
            for rows in gen_even_slices(P.shape[0], n_threads)
        ]
        for job in jobs:
            job.result()


def cos_sin(P, scale, out):
    """Write ``scale * [cos(P), sin(P)]`` into ``out`` of shape (n, 2 L)."""
    scale = P.dtype.type(scale)
    if P.dtype == np.float64:
        _cos_sin_kernel(P, scale, out)
    else:
        _threaded(_numpy_cos_sin, P, out, scale)


def cos_phase(P, offset, scale, out):
    """Write ``scale * cos(P + offset)`` into ``out`` of shape (n, L)."""
    scale = P.dtype.type(scale)
    if P.dtype == np.float64:
        _cos_phase_kernel(P, offset, scale, out)
    else:
        _threaded(_numpy_cos_phase, P, out, offset, scale)
