"""In-place fast Walsh-Hadamard transform over the rows of a 2-D array (numba).

The hot loop of :class:`~skmmd.FastfoodSampler`. Each row of length ``d = 2^k``
is multiplied by the unnormalized Hadamard matrix (entries +-1, Sylvester
order, as :func:`scipy.linalg.hadamard`) in ``d log2(d)`` add/sub.

Layout of the loop (its throughput is on the benchmarks page,
``benchmarks/bench_fastfood.py``):

- the three smallest strides (1, 2, 4) are one unrolled 8-point transform per
  group of 8 values, kept in registers;
- the larger strides go two at a time (radix 4): each value is loaded and
  stored once per two stages, half the memory traffic of radix 2;
- the butterfly loops index with uint64 so LLVM vectorizes them (see below);
- rows longer than ``_CHUNK`` values do every stride below ``_CHUNK`` one
  L1-sized chunk at a time before the large strides.
"""

import numpy as np

from .._utils._jit import later, njit, prange

uint64 = later("uint64")  # numba's type, bound when the loops compile

# Values per chunk of the small-stride passes: 16 KiB of float64, half a
# 32 KiB L1 data cache, so a chunk stays in L1 through its stages.
_CHUNK = 2048


@njit(inline="always", fastmath=True, boundscheck=False)
def _stages_1_2_4(x, lo, hi):
    """Strides 1, 2 and 4 on x[lo:hi]: an 8-point transform per group of 8."""
    for i in range(lo, hi, 8):
        a0 = x[i]
        a1 = x[i + 1]
        a2 = x[i + 2]
        a3 = x[i + 3]
        a4 = x[i + 4]
        a5 = x[i + 5]
        a6 = x[i + 6]
        a7 = x[i + 7]
        b0 = a0 + a1
        b1 = a0 - a1
        b2 = a2 + a3
        b3 = a2 - a3
        b4 = a4 + a5
        b5 = a4 - a5
        b6 = a6 + a7
        b7 = a6 - a7
        c0 = b0 + b2
        c1 = b1 + b3
        c2 = b0 - b2
        c3 = b1 - b3
        c4 = b4 + b6
        c5 = b5 + b7
        c6 = b4 - b6
        c7 = b5 - b7
        x[i] = c0 + c4
        x[i + 1] = c1 + c5
        x[i + 2] = c2 + c6
        x[i + 3] = c3 + c7
        x[i + 4] = c0 - c4
        x[i + 5] = c1 - c5
        x[i + 6] = c2 - c6
        x[i + 7] = c3 - c7


# The butterfly loops index with uint64: numba adds a negative-index
# wraparound branch to signed indices, which blocks LLVM's vectorizer. Array
# slices avoid it too, but each costs an atomic reference count, which halved
# the throughput here.


@njit(inline="always", fastmath=True, boundscheck=False)
def _radix4_stage(x, lo, hi, h):
    """Strides h and 2h on x[lo:hi] in one pass."""
    h1 = uint64(h)
    h2 = uint64(2) * h1
    h3 = uint64(3) * h1
    i = uint64(lo)
    end = uint64(hi)
    while i < end:
        for k in range(h1):
            j = i + uint64(k)
            a = x[j]
            b = x[j + h1]
            c = x[j + h2]
            e = x[j + h3]
            s = a + b
            t = a - b
            u = c + e
            v = c - e
            x[j] = s + u
            x[j + h1] = t + v
            x[j + h2] = s - u
            x[j + h3] = t - v
        i += uint64(4) * h1


@njit(inline="always", fastmath=True, boundscheck=False)
def _radix2_stage(x, lo, hi, h):
    h1 = uint64(h)
    i = uint64(lo)
    end = uint64(hi)
    while i < end:
        for k in range(h1):
            j = i + uint64(k)
            a = x[j]
            b = x[j + h1]
            x[j] = a + b
            x[j + h1] = a - b
        i += uint64(2) * h1


@njit(inline="always", fastmath=True, boundscheck=False)
def _stages(x, lo, hi, h, stop):
    """Every stride h, 2h, ... below stop, on x[lo:hi]."""
    while 4 * h <= stop:
        _radix4_stage(x, lo, hi, h)
        h *= 4
    if h < stop:
        _radix2_stage(x, lo, hi, h)


@njit(fastmath=True, boundscheck=False, cache=True)
def fwht_row(x):
    """Unnormalized Walsh-Hadamard transform of one contiguous 1-D array, in place.

    ``x.shape[0]`` must be a power of two (not checked: callers validate).
    """
    d = x.shape[0]
    chunk = min(d, _CHUNK)
    for lo in range(0, d, chunk):
        if chunk >= 8:
            _stages_1_2_4(x, lo, lo + chunk)
            _stages(x, lo, lo + chunk, 8, chunk)
        else:
            _stages(x, lo, lo + chunk, 1, chunk)
    _stages(x, 0, d, chunk, d)


@njit(parallel=True, cache=True)
def _fwht_rows(X):
    for i in prange(X.shape[0]):
        fwht_row(X[i])


def fwht(X):
    """Unnormalized fast Walsh-Hadamard transform of every row of X, in place.

    Row ``x`` becomes ``x @ H``, ``H`` the ``d x d`` Hadamard matrix with
    entries +-1 in Sylvester order (``scipy.linalg.hadamard(d)``); rows are
    transformed in parallel.

    Parameters
    ----------
    X : ndarray of shape (n_samples, d)
        C-contiguous float32 or float64 array; ``d`` a power of two.

    Returns
    -------
    X : ndarray of shape (n_samples, d)
        The same array, transformed.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.linalg import hadamard
    >>> from skmmd.kernel_approximation._hadamard import fwht
    >>> X = np.arange(8.0).reshape(2, 4)
    >>> bool(np.allclose(fwht(X.copy()), X @ hadamard(4)))
    True
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2:
        raise ValueError(f"X must be a 2-D numpy array; got {type(X).__name__}.")
    if X.dtype not in (np.float32, np.float64):
        raise TypeError(f"X must be float32 or float64; got dtype {X.dtype}.")
    if not X.flags.c_contiguous or not X.flags.writeable:
        raise ValueError(
            "X must be C-contiguous and writeable (it is modified in place)."
        )
    d = X.shape[1]
    if d < 1 or d & (d - 1):
        raise ValueError(f"X must have a power-of-two number of columns; got {d}.")
    _fwht_rows(X)
    return X
