"""The one calibration loop of every test: resamples of units drawn in batches
from one seeded generator, their statistics as batched matrix products, and
the p-value.

A family hands the loop a ``draw`` (the resamples of a batch: count vectors
over the units for the two-sample tests, pairings for independence) and a
``work`` function (the statistics of a batch, from the unit sums it holds);
:func:`_run_batches` runs them one batch after the other, in a fixed order, so
the null distribution does not depend on the batch size or on the number of
threads. The unit sums (:class:`_FeatureSums`, :class:`_KernelSums`) and the
p-value (:func:`p_value`, :func:`threshold`) are the same for every family.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from .._utils._draws import permutation_counts

# A batch of resamples holds at most this many count entries (spec section 2).
_BATCH_ENTRIES = 2**23
# Rows of every matrix product over resamples (see _chunked_statistics): at
# most this many, so each product is large enough to run near peak speed.
_CHUNK = 256
# Multiply-adds allowed for the feature GEMMs before resampling units of several
# points (MMDTest resample_unit="auto"): 0.3-0.5 s at the BLAS peak of a
# 2-core machine (35-52 GFMA/s measured). Halving it from 2**35 cost no measurable power
# (benchmarks/bench_mmd_validity.py --parts 3: 10^4 units as powerful as 4 10^4).
_GEMM_BUDGET = 2**34
# Entries of the unit-sum matrix U (float64): 256 MB.
_UNIT_ENTRIES = 2**25
# Gram matrices up to this many entries are computed once and kept (512 MB).
_GRAM_ENTRIES = 2**26


class _FeatureSums:
    """Unit sums of pooled features, for linear-time resampling.

    Built by the streaming pipeline
    (:meth:`skmmd._testing._streaming.UnitSums.finalize`):
    the ``G = g_x + g_y`` resampling units (X's first), each of ``unit`` points
    of one sample, have feature sums ``U`` (G, D), stored as row blocks
    (``blocks``, often views of the pipeline's state, so the unit sums are not
    copied), and sums of ``||z_i||^2`` ``q`` (G,); ``fixed`` holds the sums of
    each sample's remainder (rows of no complete unit), which are never
    resampled. Units, not points, are permuted; the pipeline groups the points
    at random (seeded), never by row order, so that the units of X and Y are
    exchangeable under the null.
    """

    def __init__(self, U, q, n_units, unit, fixed):
        self.blocks = U if isinstance(U, list) else [U]
        self.q = q
        self.n_units = tuple(n_units)
        self.sizes = np.full(q.size, float(unit))
        self.fixed = fixed
        self.total = (
            sum(block.sum(axis=0) for block in self.blocks)
            + fixed["s_x"]
            + fixed["s_y"]
        )

    @property
    def U(self):
        """The unit sums as one (G, D) array (a copy when stored in blocks)."""
        return self.blocks[0] if len(self.blocks) == 1 else np.vstack(self.blocks)

    def _times(self, A):
        """``A @ U``, one product per block (no copy of the blocks)."""
        out, start = 0.0, 0
        for block in self.blocks:
            out = out + A[:, start : start + block.shape[0]] @ block
            start += block.shape[0]
        return out

    def mean_difference(self, m, n):
        """``s_x / m - s_y / n`` of the observed samples (witness weights)."""
        a, _ = observed_counts(self.n_units)
        s_x = self._times(a)[0] + self.fixed["s_x"]
        s_y = self.total - s_x
        return s_x / m - s_y / n

    def products(self, A, C, permutation):
        """``(a^T K a, c^T K c, a^T K c)`` for every row of ``A`` and ``C``."""
        S_x = self._times(A) + self.fixed["s_x"]
        S_y = self.total - S_x if permutation else self._times(C) + self.fixed["s_y"]
        return (
            np.einsum("ij,ij->i", S_x, S_x),
            np.einsum("ij,ij->i", S_y, S_y),
            np.einsum("ij,ij->i", S_x, S_y),
        )


class _KernelSums:
    """The exact Gram matrix of the pooled sample, stored or in row blocks."""

    def __init__(self, pooled, kernel_rows):
        self.pooled, self._kernel_rows = pooled, kernel_rows
        N = pooled.shape[0]
        self.K = np.empty((N, N)) if N * N <= _GRAM_ENTRIES else None
        self.q, self.r = np.empty(N), np.empty(N)
        for rows, K in kernel_rows(pooled):
            if self.K is not None:
                self.K[rows] = K
            self.q[rows] = np.diagonal(K[:, rows])
            self.r[rows] = K.sum(axis=1)
        self.total = self.r.sum()
        self.sizes = np.ones(N)
        self.fixed = {
            "s_x": 0.0,
            "s_y": 0.0,
            "q_x": 0.0,
            "q_y": 0.0,
            "r_x": 0,
            "r_y": 0,
        }
        self.n_units = None

    def _times(self, W):
        """``K @ W.T`` (the faster orientation), blockwise when K is not stored."""
        if self.K is not None:
            return self.K @ W.T
        out = np.empty((W.shape[1], W.shape[0]))
        for rows, K in self._kernel_rows(self.pooled):
            out[rows] = K @ W.T
        return out

    def products(self, A, C, permutation):
        if permutation:
            P_xx = np.einsum("ij,ji->i", A, self._times(A))
            ar = A @ self.r
            return P_xx, self.total - 2 * ar + P_xx, ar - P_xx
        b = A.shape[0]
        KW = self._times(np.vstack([A, C]))
        return (
            np.einsum("ij,ji->i", A, KW[:, :b]),
            np.einsum("ij,ji->i", C, KW[:, b:]),
            np.einsum("ij,ji->i", A, KW[:, b:]),
        )


def observed_counts(n_units):
    g_x, g_y = n_units
    a = np.zeros((1, g_x + g_y))
    a[0, :g_x] = 1.0
    return a, 1.0 - a


def draw_counts(rng, method, n_resamples, n_units, out=None):
    """Count matrices of one batch: (A, C), rows X* and Y* of each resample.

    Each call consumes the generator row by row, so batches of any size cut
    from one stream give the same resamples. ``out``: a buffer of at least
    (n_resamples, G) for the permutation counts.
    """
    g_x, g_y = n_units
    G = g_x + g_y
    rows = np.arange(n_resamples)[:, None]
    if method == "permutation":
        # A uniformly random g_x-subset per row (Y* is the complement).
        return permutation_counts(rng, n_resamples, n_units, out), None
    draws = rng.integers(0, G, size=(n_resamples, g_x + g_y))
    flat = draws + rows * G
    A = np.bincount(flat[:, :g_x].ravel(), minlength=n_resamples * G)
    C = np.bincount(flat[:, g_x:].ravel(), minlength=n_resamples * G)
    shape = (n_resamples, G)
    return A.reshape(shape).astype(np.float64), C.reshape(shape).astype(np.float64)


def run_batches(batches, draw, work, n_jobs, verbose, sequential=None):
    """The one loop over batches of resamples, for every test.

    ``draw(s)`` draws the resamples of batch ``s`` (a slice) from the test's
    one generator, always in batch order, so the null distribution does not
    depend on threads; ``work(start, *drawn)`` returns their statistics.
    ``sequential(s)``, when given, does both for one thread (a test may reuse
    buffers there). Batches run in threads when ``n_jobs`` asks for them.
    """
    if effective_n_jobs(n_jobs) == 1 and not verbose:
        one = sequential or (lambda s: work(s.start, *draw(s)))
        return [one(s) for s in batches]
    parallel = Parallel(
        n_jobs=n_jobs, backend="threading", verbose=verbose, pre_dispatch="n_jobs"
    )
    return parallel(delayed(work)(s.start, *draw(s)) for s in batches)


def threshold(null, alpha):
    """The null's upper ``alpha`` quantile among ``B + 1`` values: the
    statistic rejects at level ``alpha`` when it exceeds it."""
    k = int(np.floor(alpha * (null.size + 1) + 1e-9))
    return float(np.sort(null)[::-1][k - 1]) if k >= 1 else np.inf


def p_value(observed, null, tolerance):
    """``(1 + #{T_b >= T - tolerance}) / (B + 1)``: never 0, never NaN."""
    return (1.0 + np.count_nonzero(null >= observed - tolerance)) / (null.size + 1.0)
