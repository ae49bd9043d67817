"""Cosine/sine feature evaluation, the hot loop of every Fourier-type map.

float64 ``np.cos`` runs on one core through scalar libm, so float64 goes
through a numba kernel that computes cos and sin of each projection together
with a branch-free polynomial that LLVM vectorizes (error <= 2 ulp), rows in
parallel. float32 has its
own kernel of the same shape with Cephes' single-precision polynomials (8
lanes per AVX2 vector, cos and sin from one reduction): numpy's float32 ufuncs
are SIMD too but take two passes and one thread. :func:`project_trig` fuses
the projection ``X W`` with them for large dense inputs, block by block.
"""

import math

import numpy as np

from .._utils._jit import njit, prange, renamed, serial_and_parallel
from .._utils._threads import BLAS_LIMIT_LOCK, blas_controller

# Below this many values a parallel launch costs more than it saves (far more
# when the cores are busy).
_PARALLEL_MIN_SIZE = 2**16


# Cephes' minimax polynomials for sin and cos on [-pi/4, pi/4], and pi/2 split
# in three parts whose products with q are exact for |q| < 2^29 (Cody-Waite).
_S0, _S1, _S2 = (
    1.58962301576546568060e-10,
    -2.50507477628578072866e-8,
    2.75573136213857245213e-6,
)
_S3, _S4, _S5 = (
    -1.98412698295895385996e-4,
    8.33333333332211858878e-3,
    -1.66666666666666307295e-1,
)
_C0, _C1, _C2 = (
    -1.13585365213876817300e-11,
    2.08757008419747316778e-9,
    -2.75573141792967388112e-7,
)
_C3, _C4, _C5 = (
    2.48015872888517045348e-5,
    -1.38888888888730564116e-3,
    4.16666666666665929218e-2,
)
_PIO2_1, _PIO2_2, _PIO2_3 = (
    1.57079625129699707031,
    7.54978941586159635335e-8,
    5.39030285815811905290e-15,
)
_TWO_OVER_PI = 0.6366197723675814
# Beyond this |x| the reduction loses accuracy: those entries go through libm.
REDUCTION_LIMIT = 2.0**29


# Cephes' sinf/cosf polynomials on [-pi/4, pi/4], and pi/2 in three parts
# (the first with 8 significant bits, so q * _PIO2F_1 is exact for |q| < 2^16).
_SF0, _SF1, _SF2 = (
    np.float32(-1.9515295891e-4),
    np.float32(8.3321608736e-3),
    np.float32(-1.6666654611e-1),
)
_CF0, _CF1, _CF2 = (
    np.float32(2.443315711809948e-5),
    np.float32(-1.388731625493765e-3),
    np.float32(4.166664568298827e-2),
)
_PIO2F_1, _PIO2F_2, _PIO2F_3 = (
    np.float32(1.5703125),
    np.float32(4.837512969970703125e-4),
    np.float32(7.549789948768648e-8),
)
_TWO_OVER_PIF = np.float32(0.6366197723675814)
_HALF_F, _ONE_F = np.float32(0.5), np.float32(1.0)
# Beyond this |x| float32 arguments go through the float64 kernel.
_REDUCTION_LIMIT_F = 8192.0

# The polynomials may fuse a multiply and an add into one FMA (LLVM's
# "contract", nothing else of fastmath): one rounding instead of two and a
# higher vectorized rate; the Cody-Waite products stay exact, the error stays
# <= 2 ulp.
_CONTRACT = {"contract"}


@njit(cache=True, fastmath=_CONTRACT)
def _sincos_f32(x):
    q = np.floor(x * _TWO_OVER_PIF + _HALF_F)
    r = ((x - q * _PIO2F_1) - q * _PIO2F_2) - q * _PIO2F_3
    z = r * r
    s = r + r * z * ((_SF0 * z + _SF1) * z + _SF2)
    c = _ONE_F - _HALF_F * z + z * z * ((_CF0 * z + _CF1) * z + _CF2)
    k = np.int32(q) & 3
    odd = (k & 1) == 1
    sin_x = c if odd else s
    cos_x = s if odd else c
    if k == 1 or k == 2:
        cos_x = -cos_x
    if k >= 2:
        sin_x = -sin_x
    return sin_x, cos_x


# The constants of sincos, which the kernels take as an argument: numba
# freezes globals into the code, and LLVM then re-materializes each one inside
# the vector loop (an absolute address and a broadcast per use); an argument
# is broadcast once before the loop.
SINCOS_CONSTANTS = (
    _TWO_OVER_PI,
    _PIO2_1,
    _PIO2_2,
    _PIO2_3,
    _S0,
    _S1,
    _S2,
    _S3,
    _S4,
    _S5,
    _C0,
    _C1,
    _C2,
    _C3,
    _C4,
    _C5,
)


@njit(cache=True, fastmath=_CONTRACT)
def sincos(x, k):
    """``(sin x, cos x)`` for ``|x| <= REDUCTION_LIMIT``; ``k`` is
    ``SINCOS_CONSTANTS``."""
    two_over_pi, pio2_1, pio2_2, pio2_3, s0, s1, s2, s3, s4, s5 = k[:10]
    c0, c1, c2, c3, c4, c5 = k[10:]
    q = np.floor(x * two_over_pi + 0.5)
    r = ((x - q * pio2_1) - q * pio2_2) - q * pio2_3
    z = r * r
    sin_poly = ((((s0 * z + s1) * z + s2) * z + s3) * z + s4) * z + s5
    cos_poly = ((((c0 * z + c1) * z + c2) * z + c3) * z + c4) * z + c5
    s = r + r * z * sin_poly
    c = 1.0 - 0.5 * z + z * z * cos_poly
    # q mod 4 in floating point: AVX2 has no vector float64 -> int64
    # conversion, so LLVM would scalarize it.
    quadrant = q - 4.0 * np.floor(0.25 * q)
    odd = quadrant == 1.0 or quadrant == 3.0
    sin_x = c if odd else s
    cos_x = s if odd else c
    if quadrant == 1.0 or quadrant == 2.0:
        cos_x = -cos_x
    if quadrant >= 2.0:
        sin_x = -sin_x
    return sin_x, cos_x


@njit(cache=True)
def _count_above(values, limit):
    """How many ``|values|`` exceed ``limit``. It gates the rare libm fix-up
    loops: left ungated, LLVM may vectorize such a loop into a libm call per
    entry with the result masked, and even a loop it keeps scalar costs a
    branch per entry."""
    n = 0
    for j in range(values.shape[0]):
        n += abs(values[j]) > limit
    return n


# LLVM vectorizes these loops only in this shape: one store per array per
# iteration (sines go through a row buffer) and the tuple unpacked, never
# indexed; otherwise they stay scalar.
def _cos_sin_loop(P, scale, out, k):
    n, L = P.shape
    for i in prange(n):
        sines = np.empty(L, dtype=P.dtype)
        for j in range(L):
            s, c = sincos(P[i, j], k)
            out[i, j] = scale * c
            sines[j] = scale * s
        out[i, L:] = sines
        if _count_above(P[i], REDUCTION_LIMIT) == 0:
            continue
        for j in range(L):  # rare: arguments too large for the fast reduction
            v = P[i, j]
            if abs(v) > REDUCTION_LIMIT:
                out[i, j] = scale * math.cos(v)
                out[i, L + j] = scale * math.sin(v)


def _cos_phase_loop(P, offset, scale, out, k):
    n, L = P.shape
    for i in prange(n):
        for j in range(L):
            s, c = sincos(P[i, j] + offset[j], k)
            out[i, j] = scale * c
        if _count_above(P[i], REDUCTION_LIMIT - 8.0) == 0:
            continue
        for j in range(L):  # |offset| < 2 pi < 8; testing P alone keeps it fast
            if abs(P[i, j]) > REDUCTION_LIMIT - 8.0:
                out[i, j] = scale * math.cos(P[i, j] + offset[j])


def _cos_sin_loop_f32(P, scale, out, k):
    n, L = P.shape
    for i in prange(n):
        sines = np.empty(L, dtype=np.float32)
        for j in range(L):
            s, c = _sincos_f32(P[i, j])
            out[i, j] = scale * c
            sines[j] = scale * s
        out[i, L:] = sines
        if _count_above(P[i], _REDUCTION_LIMIT_F) == 0:
            continue
        for j in range(L):  # rare: arguments too large for the fast reduction
            v = P[i, j]
            if abs(v) > _REDUCTION_LIMIT_F:
                s, c = sincos(np.float64(v), k)
                if abs(v) > REDUCTION_LIMIT:
                    s, c = math.sin(np.float64(v)), math.cos(np.float64(v))
                out[i, j] = scale * np.float32(c)
                out[i, L + j] = scale * np.float32(s)


def _cos_phase_loop_f32(P, offset, scale, out, k):
    n, L = P.shape
    for i in prange(n):
        for j in range(L):
            s, c = _sincos_f32(P[i, j] + offset[j])
            out[i, j] = scale * c
        if _count_above(P[i], _REDUCTION_LIMIT_F - 8.0) == 0:
            continue
        for j in range(L):  # |offset| < 2 pi < 8; testing P alone keeps it fast
            if abs(P[i, j]) > _REDUCTION_LIMIT_F - 8.0:
                out[i, j] = scale * np.float32(
                    math.cos(np.float64(P[i, j] + offset[j]))
                )


_COS_SIN = serial_and_parallel(_cos_sin_loop)
_COS_PHASE = serial_and_parallel(_cos_phase_loop)
_COS_SIN_F32 = serial_and_parallel(_cos_sin_loop_f32)
_COS_PHASE_F32 = serial_and_parallel(_cos_phase_loop_f32)


# The row kernels _project_loop calls: float64 here, rebound for float32.
_cos_sin_rows, _cos_phase_rows = _COS_SIN[0], _COS_PHASE[0]


def _project_loop(X, W, n_pairs, offset, scale, rows, out, k):
    """``out = scale * [cos P, sin P, cos(P' + offset)]`` with ``[P, P'] = X
    W``, ``rows`` rows per task: each task projects its block (BLAS, in the
    task's thread) and evaluates it while the block is in cache."""
    n, L = X.shape[0], W.shape[1]
    for task in prange(-(-n // rows)):
        lo = task * rows
        hi = min(lo + rows, n)
        P = np.dot(X[lo:hi], W)
        if n_pairs == L:
            _cos_sin_rows(P, scale, out[lo:hi], k)
        elif n_pairs == 0:
            _cos_phase_rows(P, offset, scale, out[lo:hi], k)
        else:
            _cos_sin_rows(P[:, :n_pairs], scale, out[lo:hi, : 2 * n_pairs], k)
            _cos_phase_rows(P[:, n_pairs:], offset, scale, out[lo:hi, 2 * n_pairs :], k)


_PROJECT = {
    np.dtype(dtype): njit(parallel=True, cache=True)(
        renamed(_project_loop, suffix, **kernels)
    )
    for dtype, suffix, kernels in (
        (np.float64, "_f64", {}),
        (
            np.float32,
            "_f32",
            {"_cos_sin_rows": _COS_SIN_F32[0], "_cos_phase_rows": _COS_PHASE_F32[0]},
        ),
    )
}
# Projection entries per task (tile) of project_trig: the tile stays in L2.
_PROJECT_TILE_ENTRIES = 2**16


def project_trig(X, W, n_pairs, offset, scale, out):
    """Write ``scale * [cos P, sin P, cos(P' + offset)]`` into ``out``, with
    ``[P, P'] = X W`` (``n_pairs`` columns in ``P``) projected block by block.

    One pass instead of a BLAS product for all rows, then cos/sin: each
    thread projects a block of rows and evaluates it from cache, and the
    projection of a block never reaches memory (see the benchmarks page,
    ``benchmarks/bench_mmd_speed.py --parts e``). BLAS runs single-threaded
    inside the tasks, which are the parallelism.
    """
    X = np.ascontiguousarray(X)
    W = np.ascontiguousarray(W, dtype=X.dtype)
    offset = (
        np.zeros(0, X.dtype) if offset is None else offset.astype(X.dtype, copy=False)
    )
    rows = max(1, _PROJECT_TILE_ENTRIES // max(W.shape[1], 1))
    with BLAS_LIMIT_LOCK, blas_controller().limit(limits=1, user_api="blas"):
        _PROJECT[X.dtype](
            X, W, n_pairs, offset, X.dtype.type(scale), rows, out, SINCOS_CONSTANTS
        )


def _numba(kernels, P, *args):
    kernels[P.size >= _PARALLEL_MIN_SIZE](P, *args, SINCOS_CONSTANTS)


def cos_sin(P, scale, out):
    """Write ``scale * [cos(P), sin(P)]`` into ``out`` of shape (n, 2 L)."""
    scale = P.dtype.type(scale)
    if P.dtype == np.float64:
        _numba(_COS_SIN, P, scale, out)
    else:
        _numba(_COS_SIN_F32, P, scale, out)


def cos_phase(P, offset, scale, out):
    """Write ``scale * cos(P + offset)`` into ``out`` of shape (n, L)."""
    scale = P.dtype.type(scale)
    if P.dtype == np.float64:
        _numba(_COS_PHASE, P, offset, scale, out)
    else:
        _numba(_COS_PHASE_F32, P, offset, scale, out)
