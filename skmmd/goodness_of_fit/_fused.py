"""A composite null's one-column rows in one pass: each row's cosines and
sines (the sampler's own polynomial and reduction, from its public
constants) and its Stein features added to its resample's sums at
once, without the ``(n, 2 L)`` features a transform writes and the sums read
back.

The values are those of the sampler's ``transform`` followed by
:func:`~skmmd.statistics._stein.add_stein_unit_sums` to the bit: with one
column the projection ``x w_j`` is one product, the cosines and sines the
same polynomial of it scaled alike, and every row is added to its group's
sums in the rows' order, as there.
"""

import math

import numpy as np

from .._utils._jit import njit
from ..kernel_approximation._trig import REDUCTION_LIMIT, SINCOS_CONSTANTS, sincos


@njit(cache=True, fastmath={"contract"})
def _fused_sums(x, S, A, W, scale, groups, U, q, cs, k):
    """Add the Stein features of the one-column rows ``x`` (n,) (score
    ``S`` (n, 1), gradient weight ``A`` (n,)) under the features ``scale
    [cos(x W), sin(x W)]`` (``W`` (1, L)) to their group's ``U[g]`` (2, 1,
    L), their squared scores to ``q[g]``; ``cs`` as in
    :func:`~skmmd.statistics._stein._add_unit_sums`."""
    n = x.shape[0]
    L = W.shape[1]
    w = W[0]
    top = 0.0
    for j in range(L):
        top = max(top, abs(w[j]))
    cosines = np.empty(L)
    sines = np.empty(L)
    for i in range(n):
        v = x[i]
        for j in range(L):
            s, c = sincos(v * w[j], k)
            cosines[j] = scale * c
            sines[j] = scale * s
        if abs(v) * top > 0.5 * REDUCTION_LIMIT:
            for j in range(L):  # rare: arguments too large for the polynomial
                p = v * w[j]
                if abs(p) > REDUCTION_LIMIT:
                    cosines[j] = scale * math.cos(p)
                    sines[j] = scale * math.sin(p)
        g = groups[i]
        a = A[i]
        for j in range(L):
            cs[g, 0, j] += a * cosines[j]
            cs[g, 1, j] += a * sines[j]
        s = S[i, 0]
        q[g] += s * s
        for j in range(L):
            U[g, 0, 0, j] += s * cosines[j]
            U[g, 1, 0, j] += s * sines[j]
    for g in range(U.shape[0]):
        for j in range(L):
            U[g, 0, 0, j] -= cs[g, 1, j] * w[j]
            U[g, 1, 0, j] += cs[g, 0, j] * w[j]


def fused_unit_sums(sampler, x, score, groups, sums, squares, weights=None):
    """``add_stein_unit_sums(sampler.transform(x), score, W, groups, sums,
    squares, weights)`` (``W`` the sampler's frequencies) for one-column
    float64 rows ``x`` (n, 1) and a sampler of cosines and sines of an even
    ``n_components``, in one pass."""
    W = np.ascontiguousarray(sampler.random_weights_, dtype=np.float64)
    L = W.shape[1]
    G = sums.shape[0]
    U = sums.reshape(G, 2, 1, L)  # a view: sums is C-contiguous
    cs = np.zeros((G, 2, L))
    groups = np.ascontiguousarray(groups, dtype=np.int64)
    S = np.ascontiguousarray(score, dtype=np.float64)
    if weights is None:  # (1.0 * z is z: the same sums as without weights)
        A, counts = np.ones(S.shape[0]), np.bincount(groups, minlength=G)
    else:
        A = np.ascontiguousarray(weights, dtype=np.float64)
        counts = np.bincount(groups, weights=A * A, minlength=G)
    scale = np.sqrt(2.0 / sampler.n_components)
    column = np.ascontiguousarray(x[:, 0], dtype=np.float64)
    _fused_sums(column, S, A, W, scale, groups, U, squares, cs, SINCOS_CONSTANTS)
    squares += counts * (float((W * W).sum()) / L)
    return sums, squares
