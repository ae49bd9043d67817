"""Permutation and bootstrap null distributions of MMD^2 as batched matrix products.

A resample is a pair of count vectors over the pooled points (``a`` for X*,
``c`` for Y*); a batch of them is a pair of matrices ``A, C`` and every kernel
sum the statistic needs is one matrix product with the pooled features (or the
Gram matrix). The resamples are drawn from one seeded ``Generator`` in a fixed
order, one batch after the other, so the null distribution does not depend on
the batch size or on the number of threads.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.utils import gen_batches

from .._utils._draws import permutation_counts
from ..mmd._features import _mmd2_from_parts

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
    (:meth:`skmmd.two_sample._streaming.UnitSums.finalize`):
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
        a, _ = _observed(self.n_units)
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


def _statistics(sums, A, C, m, n, unbiased, permutation):
    """MMD^2 (and its rounding scale) of each resample in a batch.

    Bootstrap resamples draw some pooled points several times. Pairs of two
    draws of one point would count at full similarity ``k(x, x)``, which the
    observed samples (distinct points) never have: in high dimension that
    makes the bootstrap null far too wide and the test conservative, for both
    statistics (measured type-I error 0.001-0.01 instead of 0.05 at d = 200).
    So such pairs are excluded, and the biased statistic of a resample is the
    V-statistic of distinct points, ``(1 - 1/m) mean_{pairs} k + (1/m) mean
    k(x_i, x_i)`` for X* (likewise Y*).
    """
    P_xx, P_yy, P_xy = sums.products(A, C, permutation)
    f = sums.fixed
    if permutation and not unbiased:
        zeros = np.zeros(A.shape[0])
        return _mmd2_from_parts(
            P_xx, P_yy, P_xy, zeros, zeros, zeros, m * m, n * n, m * n, False
        )
    if permutation:  # X* and Y* partition the pooled sample
        D_x = A @ sums.q + f["q_x"]
        D_y = sums.q.sum() + f["q_x"] + f["q_y"] - D_x
        n_xx, n_yy = m * (m - 1), n * (n - 1)
        D_xy, n_xy = np.zeros(A.shape[0]), m * n
    else:  # exclude every pair of two draws of the same point
        A2, C2, AC = A * A, C * C, A * C
        D_x = A2 @ sums.q + f["q_x"]
        D_y = C2 @ sums.q + f["q_y"]
        n_xx = m * m - (A2 @ sums.sizes + f["r_x"])
        n_yy = n * n - (C2 @ sums.sizes + f["r_y"])
        D_xy, n_xy = AC @ sums.q, m * n - AC @ sums.sizes
    # A bootstrap sample drawing one point m times has no distinct pair left:
    # its term is 0 (probability about N^(1-m)).
    with np.errstate(invalid="ignore", divide="ignore"):
        stat, scale = _mmd2_from_parts(
            P_xx, P_yy, P_xy, D_x, D_y, D_xy, n_xx, n_yy, n_xy, True
        )
        if not unbiased:  # bootstrap V-statistic: add back the self-pairs
            for P, D, pairs, q_fixed, W, size in (
                (P_xx, D_x, n_xx, f["q_x"], A, m),
                (P_yy, D_y, n_yy, f["q_y"], C, n),
            ):
                off, self_pairs = (P - D) / pairs, (W @ sums.q + q_fixed) / size
                stat = stat + (self_pairs - off) / size
                scale = scale + (np.abs(self_pairs) + np.abs(off)) / size
    return np.nan_to_num(stat), np.nan_to_num(scale)


def _chunked_statistics(sums, chunk_rows, start, A, C, m, n, unbiased, permutation):
    """:func:`_statistics` of resamples ``start, start + 1, ...``, bit-identical
    for any batching.

    BLAS may round a row of a matrix product differently depending on the
    matrix shape and the row's position, so the products are always taken on
    chunks of ``chunk_rows`` rows aligned on the global resample index, padded
    with empty resamples.
    """
    stats, scales = [], []
    first = start - start % chunk_rows
    for chunk in range(first, start + A.shape[0], chunk_rows):
        lo, hi = max(chunk, start), min(chunk + chunk_rows, start + A.shape[0])
        rows = slice(lo - chunk, hi - chunk)
        padded = []
        for W in (A, C):
            if W is None or hi - lo == chunk_rows:
                padded.append(None if W is None else W[lo - start : hi - start])
                continue
            P = np.zeros((chunk_rows, W.shape[1]))
            P[rows] = W[lo - start : hi - start]
            padded.append(P)
        stat, scale = _statistics(sums, *padded, m, n, unbiased, permutation)
        stats.append(stat[rows])
        scales.append(scale[rows])
    return np.concatenate(stats), np.concatenate(scales)


def _observed(n_units):
    g_x, g_y = n_units
    a = np.zeros((1, g_x + g_y))
    a[0, :g_x] = 1.0
    return a, 1.0 - a


def _draw(rng, method, n_resamples, n_units, out=None):
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


def resampled_statistics(
    sums,
    m,
    n,
    *,
    statistic="unbiased",
    method="permutation",
    n_resamples=999,
    batch=None,
    seed=0,
    n_jobs=None,
    verbose=0,
):
    """Observed MMD^2 and its null distribution by permutation or bootstrap.

    Parameters
    ----------
    sums : _FeatureSums or _KernelSums, or a list of them
        The pooled sample's features (unit sums) or Gram matrix; X occupies the
        first units. A list (one per kernel, same units) evaluates every
        kernel on the same resamples, as aggregated tests need.
    m, n : int
        Sizes of the two samples.
    statistic : {"unbiased", "biased"}
        The statistic.
    method : {"permutation", "bootstrap"}
        Calibration.
    n_resamples : int
        Number of resamples B.
    batch : int or None
        Resamples per matrix product; ``None`` bounds a batch to about
        ``2**23`` count entries.
    seed : int or numpy.random.Generator
        Seed of the one generator every resample is drawn from.
    n_jobs : int or None
        Threads computing batches in parallel (draws stay sequential).
    verbose : int
        Progress messages of the batches when positive.

    Returns
    -------
    observed : float, or ndarray of shape (n_kernels,) for a list
    null : ndarray of shape (n_resamples,), or (n_resamples, n_kernels)
    tolerance : float, or ndarray of shape (n_kernels,)
        Rounding scale of the observed statistic: null values within it count
        as ties.
    """
    many = isinstance(sums, list)
    sums_list = sums if many else [sums]
    unbiased = statistic == "unbiased"
    permutation = method == "permutation"
    n_units = sums_list[0].n_units or (m, n)
    G = sum(n_units)
    # Depends on n_resamples only, never on batch or n_jobs.
    chunk_rows = min(_CHUNK, n_resamples)
    if batch is None:
        batch = max(chunk_rows, _BATCH_ENTRIES // G // chunk_rows * chunk_rows)
    rng = np.random.default_rng(seed)

    def columns(pairs):
        return tuple(np.column_stack(part) for part in zip(*pairs))

    def work(start, A, C):
        return columns(
            _chunked_statistics(s, chunk_rows, start, A, C, m, n, unbiased, permutation)
            for s in sums_list
        )

    observed, scale = columns(
        _statistics(s, *_observed(n_units), m, n, unbiased, permutation)
        for s in sums_list
    )

    def draw(s):
        return _draw(rng, method, s.stop - s.start, n_units)

    rows = -(-min(batch, n_resamples) // chunk_rows) * chunk_rows
    buffer = []

    def sequential(s):
        # One batch after the other, all drawn into one buffer: fresh pages
        # for every batch's counts cost more than drawing them (measured).
        if permutation and not buffer:
            buffer.append(np.empty((rows, G)))
        out = buffer[0] if buffer else None
        size = s.stop - s.start
        A, C = _draw(rng, method, size, n_units, out)
        padded = -(-size // chunk_rows) * chunk_rows
        if out is None or s.start % chunk_rows or padded == size:
            return work(s.start, A, C)
        # A last, short chunk is padded with empty resamples in the buffer's
        # spare rows, not in a fresh copy (64 MB at N = 10^6).
        out[size:padded] = 0.0
        return tuple(part[:size] for part in work(s.start, out[:padded], None))

    results = _run_batches(
        gen_batches(n_resamples, batch), draw, work, n_jobs, verbose, sequential
    )
    null = np.concatenate([stat for stat, _ in results])
    tolerance = 100 * np.finfo(np.float64).eps * scale[0]
    if many:
        return observed[0], null, tolerance
    return float(observed[0, 0]), null[:, 0], float(tolerance[0])


def _run_batches(batches, draw, work, n_jobs, verbose, sequential=None):
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


def resampled_hsic(
    parts, *, n_resamples=999, batch=None, seed=0, n_jobs=None, verbose=0
):
    """Observed HSIC and its permutation null: the y observations (units)
    paired with the x ones by uniformly random permutations.

    ``parts``: the :class:`~skmmd.mmd._hsic.HSICParts` of the observations, or
    a list of them (several x variables against one y, e.g. each column of a
    table), all on the same pairings. Returns ``(observed, null, tolerance)``
    as :func:`resampled_statistics` (a column of ``null`` per part for a list).
    """
    many = isinstance(parts, list)
    parts = parts if many else [parts]
    rng = np.random.default_rng(seed)
    G = parts[0].G
    if batch is None:
        batch = max(1, _BATCH_ENTRIES // G)

    def draw(s):
        # Row after row from the one generator: any batching, same pairings.
        identity = np.broadcast_to(np.arange(G), (s.stop - s.start, G))
        return (rng.permuted(identity, axis=1),)

    def work(start, pairings):
        return np.column_stack([part.statistics(pairings)[0] for part in parts])

    results = _run_batches(gen_batches(n_resamples, batch), draw, work, n_jobs, verbose)
    observed, scale = np.array([part.observed() for part in parts]).T
    null = np.concatenate(results)
    tolerance = 100 * np.finfo(np.float64).eps * scale
    if many:
        return observed, null, tolerance
    return float(observed[0]), null[:, 0], float(tolerance[0])


def threshold(null, alpha):
    """The null's upper ``alpha`` quantile among ``B + 1`` values: the
    statistic rejects at level ``alpha`` when it exceeds it."""
    k = int(np.floor(alpha * (null.size + 1) + 1e-9))
    return float(np.sort(null)[::-1][k - 1]) if k >= 1 else np.inf


def p_value(observed, null, tolerance):
    """``(1 + #{T_b >= T - tolerance}) / (B + 1)``: never 0, never NaN."""
    return (1.0 + np.count_nonzero(null >= observed - tolerance)) / (null.size + 1.0)
