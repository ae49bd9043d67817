"""Compiled loops of GCWS: counter-based random numbers and the ICWS argmin.

Every random number is a pure function of (seed, stream, index, sample): a
SplitMix64-style mixer applied to the counters, so no state is carried and the
same (index, sample) always gets the same values, whatever the row order, batch
or memory mode. ``sample_table`` tabulates exactly the values the hash path
computes, so both paths give bit-identical codes.

Index ``i`` is in the sign-split space: ``2 * feature`` for a positive entry,
``2 * feature + 1`` for a negative one.
"""

import math

import numpy as np
from numba import njit, prange

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


@njit(inline="always")
def mix64(z):
    """SplitMix64 finalizer (Steele et al. 2014), a bijection of uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always")
def _uniform(h):
    """Uniform on the open interval (0, 1) from the top 53 bits of ``h``."""
    return (np.float64(h >> _S11) + 0.5) * _TWO_M53


@njit(inline="always")
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


@njit(inline="always")
def _draw(h0, h1, h2, h3, h4, j):
    """(r, ln c, beta) of sample j: r, c ~ Gamma(2, 1), beta ~ U(0, 1).

    Gamma(2, 1) is ``-ln(U U')``: two logs for r and c, one for ln c.
    """
    jj = np.uint64(j) + PHI
    r = -math.log(_uniform(mix64(h0 ^ jj)) * _uniform(mix64(h1 ^ jj)))
    c = -math.log(_uniform(mix64(h2 ^ jj)) * _uniform(mix64(h3 ^ jj)))
    return r, math.log(c), _uniform(mix64(h4 ^ jj))


@njit(parallel=True, cache=True)
def sample_table(streams, n_index, n_samples, table):
    """Fill ``table[:, i, j]`` with (r, ln c, beta) for indices ``i < n_index``."""
    for i in prange(n_index):
        h0, h1, h2, h3, h4 = _index_hashes(streams, i)
        for j in range(n_samples):
            r, lnc, beta = _draw(h0, h1, h2, h3, h4, j)
            table[0, i, j] = r
            table[1, i, j] = lnc
            table[2, i, j] = beta


@njit(inline="always")
def _offer(idx, lnv, r, lnc, beta, j, best, best_i, best_t):
    """ICWS candidate (idx, t) for sample j; keep it if its ln a is smallest.

    Strict ``<`` with indices visited in increasing order breaks (probability
    zero) ties towards the lowest index.
    """
    t = math.floor(lnv / r + beta)
    lna = lnc - r * (t + 1.0 - beta)
    if lna < best[j]:
        best[j] = lna
        best_i[j] = idx
        best_t[j] = t


@njit(inline="always")
def _code(streams, i_star, t, j, include_t, mask):
    """b-bit code of sample j: a hash of (i*, t*) that is fresh for every j."""
    h = mix64(
        mix64(streams[_CODE_STREAM] ^ (np.uint64(i_star) * PHI)) ^ (np.uint64(j) + PHI)
    )
    if include_t:
        h ^= np.uint64(t) * PHI  # two's complement of a negative t, as specified
    return np.int64(mix64(h) & mask)


@njit(parallel=True, cache=True)
def gcws_csr(
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
    """GCWS of every CSR row (sorted indices, no duplicates), rows in parallel.

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
                R = table[0, idx]
                C = table[1, idx]
                B = table[2, idx]
                for j in range(n_samples):
                    _offer(idx, lnv, R[j], C[j], B[j], j, best, best_i, best_t)
            else:
                h0, h1, h2, h3, h4 = _index_hashes(streams, idx)
                for j in range(n_samples):
                    r, lnc, beta = _draw(h0, h1, h2, h3, h4, j)
                    _offer(idx, lnv, r, lnc, beta, j, best, best_i, best_t)
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


@njit(cache=True)
def stream_keys(seed):
    """``mix64(seed * PHI + s)`` for every stream s: the per-stream base keys."""
    out = np.empty(N_STREAMS, dtype=np.uint64)
    for s in range(N_STREAMS):
        out[s] = mix64(np.uint64(seed) * PHI + np.uint64(s))
    return out
