"""MMD^2 of every resample of the two samples' units, for the one calibration
loop (:mod:`skmmd._inference._calibration`).

A resample is a pair of count vectors over the pooled units (``a`` for X*,
``c`` for Y*); a batch of them is a pair of matrices ``A, C`` and every kernel
sum the statistic needs is one matrix product with the unit sums (or the Gram
matrix), from :func:`~skmmd.two_sample._sums.products`.
"""

import numpy as np

from .._inference import _calibration
from .._inference._calibration import (
    FeatureSums,
    resample_batches,
    run_batches,
    stop_when_settled,
)
from .._utils import _budgets
from .._utils._draws import permutation_counts
from ..statistics._features import mmd2_from_parts
from ._sums import draw_counts, observed_counts, products

# Features of the columns whose sums one slice of ColumnSums.products takes:
# the slice's unit sums (a few hundred units) and products stay in cache, and
# its two buffers (a chunk of resamples by the slice), a calibration's
# largest temporaries, stay small; the products' bits do not depend on it.
_CACHE_FEATURES = 1024
# Permutation counts a sequential test draws at least at once (its first looks
# are 16 resamples apart): a call of NumPy's swaps costs about as much for 64
# rows as for 16.
_AHEAD_ROWS = 64


class ColumnSums(FeatureSums):
    """The unit sums of a map of many columns side by side (a
    :class:`~skmmd._tables._columnwise_fourier.ColumnwiseFourier`: each
    column's block of equal width, every row of unit norm in each block),
    whose products are one per column: the MMD^2 of every column from one
    matrix product of a batch's counts with all the unit sums."""

    def __init__(self, sums, n_blocks):
        self.blocks, self.n_units, self.sizes = sums.blocks, sums.n_units, sums.sizes
        self.total, self.n_blocks = sums.total, n_blocks
        # Each row's squared norm is n_blocks, 1 per column.
        self.q = sums.q / n_blocks
        self.fixed = dict(
            sums.fixed,
            q_x=sums.fixed["q_x"] / n_blocks,
            q_y=sums.fixed["q_y"] / n_blocks,
        )
        # Each unit's and the remainder's products with the total, per
        # column: with permutations Y*'s sums are the total less X*'s, so
        # every product follows from ||s_x||^2 and these (one pass over a
        # batch's sums instead of three).
        w = self.total.size // n_blocks
        total = self.total.reshape(n_blocks, w)
        self._with_total = np.vstack(
            [
                np.einsum("gjk,jk->gj", b.reshape(-1, n_blocks, w), total)
                for b in self.blocks
            ]
        )
        self._fixed_with_total = np.einsum(
            "jk,jk->j", self.fixed["s_x"].reshape(n_blocks, w), total
        )
        self._total_norms = np.einsum("jk,jk->j", total, total)

    def products(self, A, C, permutation):
        """Each column's ``(a^T K a, c^T K c, a^T K c)``, (batch, n_blocks)
        each, over slices of the columns whose feature sums stay in cache.
        A report's columns are resampled by permutation only: Y*'s sums are
        the total ``t`` less X*'s, so ``c^T K c = t^T K t - 2 a^T K t + a^T
        K a`` and ``a^T K c = a^T K t - a^T K a``, where ``a^T K t`` is one
        small product with the units' products with the total."""
        if not permutation:
            raise ValueError("A report's columns are resampled by permutation.")
        width = self.blocks[0].shape[1] // self.n_blocks
        step = max(1, _CACHE_FEATURES // width)
        P_xx = np.empty((A.shape[0], self.n_blocks))
        # One slice's sums of X* and one product, reused by every slice
        # (summed in place, not a new array per product).
        shape = (A.shape[0], step * width)
        S_x, product = np.empty(shape), np.empty(shape)
        for lo in range(0, self.n_blocks, step):
            hi = min(lo + step, self.n_blocks)
            cols = slice(lo * width, hi * width)
            s_x, p = (S[:, : (hi - lo) * width] for S in (S_x, product))
            s_x[...], start = self.fixed["s_x"][cols], 0
            for block in self.blocks:
                rows = slice(start, start + block.shape[0])
                s_x += np.matmul(A[:, rows], block[:, cols], out=p)
                start += block.shape[0]
            s_x = s_x.reshape(A.shape[0], hi - lo, width)
            P_xx[:, lo:hi] = np.einsum("ijk,ijk->ij", s_x, s_x)
        with_total = A @ self._with_total + self._fixed_with_total
        return P_xx, self._total_norms - 2.0 * with_total + P_xx, with_total - P_xx


def _statistics(sums, A, C, m, n, unbiased, permutation):
    """MMD^2 (and its rounding scale) of each resample in a batch.

    Bootstrap resamples draw some pooled points several times. Pairs of two
    draws of one point would count at full similarity ``k(x, x)``, which the
    observed samples (distinct points) never have: in high dimension that
    makes the bootstrap null far too wide and the test conservative, for both
    statistics.
    So such pairs are excluded, and the biased statistic of a resample is the
    V-statistic of distinct points, ``(1 - 1/m) mean_{pairs} k + (1/m) mean
    k(x_i, x_i)`` for X* (likewise Y*).
    """
    P_xx, P_yy, P_xy = products(sums, A, C, permutation)
    f = sums.fixed
    if permutation and not unbiased:
        return mmd2_from_parts(
            P_xx, P_yy, P_xy, 0.0, 0.0, 0.0, m * m, n * n, m * n, False
        )
    if permutation:  # X* and Y* partition the pooled sample
        D_x = A @ sums.q + f["q_x"]
        D_y = sums.q.sum() + f["q_x"] + f["q_y"] - D_x
        if P_xx.ndim == 2:  # one statistic per column (ColumnSums)
            D_x, D_y = D_x[:, None], D_y[:, None]
        n_xx, n_yy = m * (m - 1), n * (n - 1)
        D_xy, n_xy = 0.0, m * n
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
        stat, scale = mmd2_from_parts(
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


def _chunked_statistics(sums, edges, start, A, C, m, n, unbiased, permutation):
    """:func:`_statistics`' statistics of resamples ``start, start + 1, ...``,
    bit-identical for any batching (their rounding scales are dropped: only
    the observed statistic's sets the ties' tolerance).

    BLAS may round a row of a matrix product differently depending on the
    matrix shape and the row's position, so the products are always taken on
    the same chunks of resamples, ``edges[i]:edges[i + 1]`` of the global
    resample index, padded with empty resamples.
    """
    stats = []
    stop = start + A.shape[0]
    i = int(np.searchsorted(edges, start, side="right")) - 1
    while edges[i] < stop:
        chunk, chunk_rows = edges[i], edges[i + 1] - edges[i]
        lo, hi = max(chunk, start), min(edges[i + 1], stop)
        rows = slice(lo - chunk, hi - chunk)
        padded = []
        for W in (A, C):
            if W is None or hi - lo == chunk_rows:
                padded.append(None if W is None else W[lo - start : hi - start])
                continue
            P = np.zeros((chunk_rows, W.shape[1]))
            P[rows] = W[lo - start : hi - start]
            padded.append(P)
        stat, _ = _statistics(sums, *padded, m, n, unbiased, permutation)
        stats.append(stat[rows])
        i += 1
    return np.concatenate(stats)


def _chunks(n_resamples, stopping):
    """``(n_resamples, edges, chunk_rows)``: the resamples drawn (the most a
    sequential rule draws), the edges of the chunks that share a matrix
    product and their largest size. Chunks end at a rule's looks, so that
    stopping wastes no padded rows; otherwise they depend on ``n_resamples``
    only, never on the batch or the threads."""
    if stopping is not None:
        n_resamples = stopping.n_max
        edges = np.array([0, *stopping.looks, n_resamples])
        return n_resamples, edges, int(np.diff(edges).max())
    chunk_rows = min(_budgets.RESAMPLE_ROWS, n_resamples)
    return n_resamples, np.arange(0, n_resamples + chunk_rows, chunk_rows), chunk_rows


class _Sequential:
    """The batches one after the other, all drawn into one buffer of ``rows``
    count rows (fresh pages for every batch's counts cost more than drawing
    them); ``work(start, A, C)`` computes a batch's statistics.

    A sequential test's (``pad=False``) permutation counts are drawn ahead:
    its batches between the early looks are a few rows each, and a small
    batch's swaps cost per call, not per row (NumPy loops over the units).
    Each draw fills the buffer to twice the rows the test has reached (at
    least ``_AHEAD_ROWS``), and the next batches are views of it. Every row
    comes from its own uniforms of the one stream, drawn in order, so the
    resamples are those of batch-by-batch draws; rows drawn past the test's
    stop are never read.
    """

    def __init__(self, rng, method, n_units, rows, chunk_rows, work, pad):
        self.rng, self.method, self.n_units = rng, method, n_units
        self.rows, self.chunk_rows, self.work, self.pad = rows, chunk_rows, work, pad
        self.out = None
        # The buffer holds resamples base .. drawn - 1 (drawn ahead).
        self.base = self.drawn = 0

    def __call__(self, s):
        if self.method == "permutation" and self.out is None:
            self.out = np.empty((self.rows, sum(self.n_units)))
        out = self.out
        size = s.stop - s.start
        if out is not None and not self.pad:
            return self.work(s.start, self._ahead(s), None)
        A, C = draw_counts(self.rng, self.method, size, self.n_units, out)
        padded = -(-size // self.chunk_rows) * self.chunk_rows
        # (A sequential test's batches end on its chunks: nothing to pad.)
        short = padded != size and not s.start % self.chunk_rows and self.pad
        if out is None or not short:
            return self.work(s.start, A, C)
        # A last, short chunk is padded with empty resamples in the buffer's
        # spare rows, not in a fresh copy (64 MB at N = 10^6).
        out[size:padded] = 0.0
        return tuple(part[:size] for part in self.work(s.start, out[:padded], None))

    def _ahead(self, s):
        """The counts of batch ``s`` (consecutive with the last batch), a view
        of the buffer, drawing ahead when the buffer does not hold them."""
        out = self.out
        if s.stop > self.drawn:
            # Keep the rows drawn for this batch already; draw on after them.
            kept = self.drawn - s.start
            out[:kept] = out[s.start - self.base : self.drawn - self.base]
            self.base = s.start
            stop = min(max(2 * s.stop, _AHEAD_ROWS), self.base + self.rows)
            permutation_counts(self.rng, stop - self.drawn, self.n_units, out[kept:])
            self.drawn = stop
        return out[s.start - self.base : s.stop - self.base]


def _first_p_value(observed, null, tolerance):
    """The fixed-size p-value of the first kernel."""
    return _calibration.p_value(observed[0], null[:, 0], tolerance[0])


def _columns(pairs):
    """``(statistics, scales)`` of every kernel, as columns."""
    return tuple(np.column_stack(part) for part in zip(*pairs))


def _null_of(results):
    return np.concatenate([stat for (stat,) in results])


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
    stopping=None,
    p_of=None,
    null_scale=1.0,
):
    """Observed MMD^2 and its null distribution by permutation or bootstrap.

    Parameters
    ----------
    sums : FeatureSums or KernelSums, or a list of them
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
        Number of resamples B (the most drawn with ``stopping``).
    batch : int or None
        Resamples per matrix product; ``None`` bounds a batch to about
        ``2**23`` count entries.
    seed : int or numpy.random.Generator
        Seed of the one generator every resample is drawn from.
    n_jobs : int or None
        Threads computing batches in parallel (draws stay sequential).
    verbose : int
        Progress messages of the batches when positive.
    stopping : SequentialRule or None
        Stop at the first look where the rule's decision is known (the option
        ``n_resamples="auto"``); ``n_resamples`` is then ``stopping.n_max``.
    p_of : callable or None
        ``p_of(observed, null, tolerance)``: the fixed-size p-value the rule
        reads, :func:`~skmmd._inference._calibration.p_value` of the first
        kernel by default (aggregated tests pass theirs).
    null_scale : float or ndarray of shape (n_statistics,)
        Factor of every resampled statistic (of each statistic's column):
        the correction of a block null for the dependence between
        neighbouring blocks (:class:`~skmmd._inference._blocks.BlockChoice`).

    Returns
    -------
    observed : float, or ndarray of shape (n_kernels,) for a list
    null : ndarray of shape (n_resamples,), or (n_resamples, n_kernels)
        Fewer rows when ``stopping`` stopped the loop.
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
    n_resamples, edges, chunk_rows = _chunks(n_resamples, stopping)
    if batch is None:
        batch = max(chunk_rows, _budgets.BATCH_ENTRIES // G // chunk_rows * chunk_rows)
    rng = np.random.default_rng(seed)

    def work(start, A, C):
        stat = np.column_stack(
            [
                _chunked_statistics(s, edges, start, A, C, m, n, unbiased, permutation)
                for s in sums_list
            ]
        )
        stat *= null_scale  # a new array: scaled in place
        return (stat,)

    observed, scale = _columns(
        _statistics(s, *observed_counts(n_units), m, n, unbiased, permutation)
        for s in sums_list
    )
    tolerance = 100 * np.finfo(np.float64).eps * scale[0]

    def draw(s):
        return draw_counts(rng, method, s.stop - s.start, n_units)

    rows = -(-min(batch, n_resamples) // chunk_rows) * chunk_rows
    sequential = _Sequential(
        rng, method, n_units, rows, chunk_rows, work, pad=stopping is None
    )
    p_of = _first_p_value if p_of is None else p_of
    stop = stop_when_settled(
        stopping, lambda null: p_of(observed[0], null, tolerance), _null_of
    )
    results = run_batches(
        resample_batches(n_resamples, batch, stop[0] if stop else ()),
        draw,
        work,
        n_jobs,
        verbose,
        sequential,
        stop,
    )
    null = _null_of(results)
    if many:
        return observed[0], null, tolerance
    return float(observed[0, 0]), null[:, 0], float(tolerance[0])
