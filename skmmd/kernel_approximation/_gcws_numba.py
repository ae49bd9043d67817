"""Compiled loops of GCWS: counter-based random numbers and the ICWS argmin.

Every random number is a pure function of (seed, stream, index, sample): a
SplitMix64-style mixer applied to the counters, so no state is carried and the
same (index, sample) always gets the same values, whatever the row order, batch
or memory mode. ``sample_table`` tabulates exactly the values the hash path
computes, so both paths give bit-identical codes.

Every loop is compiled with ``error_model="numpy"``: Python's check for a zero
divisor (which cannot occur here) would stop LLVM from vectorizing the loops
over samples.

Index ``i`` is in the sign-split space: ``2 * feature`` for a positive entry,
``2 * feature + 1`` for a negative one.
"""

import math

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from .._utils._jit import serial_and_parallel

PHI = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO_M53 = 2.0**-53
# Streams: 0, 1 -> r; 2, 3 -> c; 4 -> beta; 5 -> the per-sample code hash.
N_STREAMS = 6
_CODE_STREAM = 5
# Largest float64 below 2**63: floor values are clipped to it before the cast.
_T_MAX = 9.223372036854775e18


@intrinsic
def _float_bits(typingctx, x):
    """The IEEE-754 bits of a float64, as uint64 (a free bitcast)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.uint64(types.float64), codegen


@intrinsic
def _bits_float(typingctx, x):
    """The float64 whose IEEE-754 bits are the uint64 x."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.uint64), codegen


_MANTISSA = np.uint64(0x000FFFFFFFFFFFFF)
# Adding this to the bits moves mantissas above sqrt(2) into the next binade,
# so that the reduced argument lies in [sqrt(2)/2, sqrt(2)) without a branch.
_SQRT_HALF_HI = np.uint64(0x3FE6A09E00000000)
_REDUCE = np.uint64(0x3FF0000000000000 - 0x3FE6A09E00000000)
_EXP_MAGIC = np.uint64(0x4330000000000000)  # bits of 2**52
_S52 = np.uint64(52)
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01


@njit(inline="always", error_model="numpy")
def _log(x):
    """Natural log of a positive normal float64, below 1 ulp of error.

    fdlibm's ``__ieee754_log`` (Sun Microsystems, freely redistributable)
    with musl's branch-free argument reduction and without special cases:
    bit operations and arithmetic only, so that LLVM vectorizes the sampling
    loops (a libm call or a branch stops it).
    """
    bits = _float_bits(x) + _REDUCE
    # Exponent as a float without an int->float conversion: 2**52 + e - 2**52.
    e = _bits_float((bits >> _S52) | _EXP_MAGIC) - 4503599627371519.0  # 2**52+1023
    m = _bits_float((bits & _MANTISSA) + _SQRT_HALF_HI)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    R = t2 + t1
    hfsq = 0.5 * f * f
    return e * _LN2_HI - ((hfsq - (s * (hfsq + R) + e * _LN2_LO)) - f)


@njit(inline="always", error_model="numpy")
def mix64(z):
    """SplitMix64 finalizer (Steele et al. 2014), a bijection of uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always", error_model="numpy")
def _uniform(h):
    """Uniform on the open interval (0, 1) from the top 53 bits of ``h``."""
    return (np.float64(h >> _S11) + 0.5) * _TWO_M53


@njit(inline="always", error_model="numpy")
def _index_hashes(streams, idx):
    """``mix64(stream_s xor idx * PHI)`` for the five sampling streams."""
    key = np.uint64(idx) * PHI
    return (
        mix64(streams[0] ^ key),
        mix64(streams[1] ^ key),
        mix64(streams[2] ^ key),
        mix64(streams[3] ^ key),
        mix64(streams[4] ^ key),
    )


@njit(inline="always", error_model="numpy")
def _draw(h0, h1, h2, h3, h4, j):
    """(r, ln c, beta) of sample j: r, c ~ Gamma(2, 1), beta ~ U(0, 1).

    Gamma(2, 1) is ``-ln(U U')``: two logs for r and c, one for ln c.
    """
    jj = np.uint64(j) + PHI
    r = -_log(_uniform(mix64(h0 ^ jj)) * _uniform(mix64(h1 ^ jj)))
    c = -_log(_uniform(mix64(h2 ^ jj)) * _uniform(mix64(h3 ^ jj)))
    return r, _log(c), _uniform(mix64(h4 ^ jj))


@njit(parallel=True, cache=True, error_model="numpy")
def sample_table(streams, n_index, n_samples, table):
    """Fill ``table[:, i, j]`` with (r, ln c, beta) for indices ``i < n_index``."""
    for i in prange(n_index):
        h0, h1, h2, h3, h4 = _index_hashes(streams, i)
        for j in range(n_samples):
            r, lnc, beta = _draw(h0, h1, h2, h3, h4, j)
            table[0, i, j] = r
            table[1, i, j] = lnc
            table[2, i, j] = beta


@njit(inline="always", error_model="numpy")
def _offer(idx, lnv, r, lnc, beta, j, best, best_i, best_t):
    """ICWS candidate (idx, t) for sample j; keep it if its ln a is smallest.

    Strict ``<`` with indices visited in increasing order breaks (probability
    zero) ties towards the lowest index.
    """
    t = math.floor(lnv / r + beta)
    lna = lnc - r * (t + 1.0 - beta)
    # Unconditional stores of selects: the loop over j vectorizes.
    better = lna < best[j]
    best[j] = lna if better else best[j]
    best_i[j] = idx if better else best_i[j]
    best_t[j] = t if better else best_t[j]


# The two loops over samples are separate functions (not inlined at numba's
# level) so that LLVM vectorizes each of them; inside the row loop it does not.
@njit(error_model="numpy")
def _offer_tabulated(table, idx, lnv, best, best_i, best_t):
    R = table[0, idx]
    C = table[1, idx]
    B = table[2, idx]
    for j in range(best.shape[0]):
        _offer(idx, lnv, R[j], C[j], B[j], j, best, best_i, best_t)


@njit(error_model="numpy")
def _offer_hashed(streams, idx, lnv, best, best_i, best_t):
    h0, h1, h2, h3, h4 = _index_hashes(streams, idx)
    for j in range(best.shape[0]):
        r, lnc, beta = _draw(h0, h1, h2, h3, h4, j)
        _offer(idx, lnv, r, lnc, beta, j, best, best_i, best_t)


@njit(inline="always", error_model="numpy")
def _code(streams, i_star, t, j, include_t, mask):
    """b-bit code of sample j: a hash of (i*, t*) that is fresh for every j."""
    h = mix64(
        mix64(streams[_CODE_STREAM] ^ (np.uint64(i_star) * PHI)) ^ (np.uint64(j) + PHI)
    )
    if include_t:
        h ^= np.uint64(t) * PHI  # two's complement of a negative t, as specified
    return np.int64(mix64(h) & mask)


def _gcws_rows(
    indptr,
    indices,
    data,
    streams,
    table,
    n_samples,
    n_bits,
    include_t,
    codes,
    raw_i,
    raw_t,
):
    """GCWS of every CSR row (sorted indices, no duplicates).

    Writes the b-bit codes into ``codes`` (n, k), -1 for all-zero rows; when
    ``raw_i`` has rows, also the sign-split index i* and the integer t*.
    Indices below ``table.shape[1]`` read (r, ln c, beta) from the table, the
    others hash them; the values are identical.
    """
    n_rows = indptr.shape[0] - 1
    n_cached = table.shape[1]
    mask = (np.uint64(1) << np.uint64(n_bits)) - np.uint64(1)
    want_raw = raw_i.shape[0] > 0
    for row in prange(n_rows):
        best = np.full(n_samples, np.inf)
        best_i = np.full(n_samples, -1, dtype=np.int64)
        best_t = np.zeros(n_samples)
        for p in range(indptr[row], indptr[row + 1]):
            v = np.float64(data[p])
            if v == 0.0:
                continue
            idx = 2 * np.int64(indices[p]) + (1 if v < 0.0 else 0)
            lnv = math.log(abs(v))  # once per nonzero
            if idx < n_cached:
                _offer_tabulated(table, idx, lnv, best, best_i, best_t)
            else:
                _offer_hashed(streams, idx, lnv, best, best_i, best_t)
        for j in range(n_samples):
            i_star = best_i[j]
            t = np.int64(min(max(best_t[j], -_T_MAX), _T_MAX))
            if i_star < 0:
                codes[row, j] = -1
            else:
                codes[row, j] = _code(streams, i_star, t, j, include_t, mask)
            if want_raw:
                raw_i[row, j] = i_star
                raw_t[row, j] = t if i_star >= 0 else 0


# Rows in parallel for batches; one thread for a few rows, where waking the
# thread pool (and, on a busy machine, waiting for it) costs more than it saves.
_gcws_rows_serial, _gcws_rows_parallel = serial_and_parallel(
    _gcws_rows, error_model="numpy"
)
_SERIAL_EVALUATIONS = 2**18


def gcws_csr(indptr, indices, data, streams, table, n_samples, *args):
    """Run ``_gcws_rows`` serially for small inputs, else rows in parallel."""
    serial = indptr.shape[0] <= 2 or data.shape[0] * n_samples <= _SERIAL_EVALUATIONS
    kernel = _gcws_rows_serial if serial else _gcws_rows_parallel
    kernel(indptr, indices, data, streams, table, n_samples, *args)


@njit(cache=True)
def stream_keys(seed):
    """``mix64(seed * PHI + s)`` for every stream s: the per-stream base keys."""
    out = np.empty(N_STREAMS, dtype=np.uint64)
    for s in range(N_STREAMS):
        out[s] = mix64(np.uint64(seed) * PHI + np.uint64(s))
    return out
