"""The cells of :class:`~skmmd.kernel_approximation._columnwise.ColumnwiseFourier`:
the grid cell of every value, and every column's feature rows summed per
group by cell. One small compiled loop, serial (it compiles in well under a
second, where parallel loops took seconds of a table's first test), counts
the cells of large inputs; NumPy counts small ones, and does the rest."""

import sys

import numpy as np

from .._utils._groups import indicator
from .._utils._jit import njit, num_threads
from .._utils._threads import one_blas_thread

# Features of a block of columns summed at once when groups have few rows
# (float64: 32 MB).
_BLOCK_ENTRIES = 2**22
# Values of a chunk counted by the compiled loop once numba is loaded (below,
# by NumPy: the counts are the same integers either way), and at which it is
# loaded: a table of a few hundred columns never loads it (its import and
# code were a third of such a test's memory), a wide numeric table's chunks
# (where the compiled loop's speed and threads pay for it) do.
_COMPILED_MIN = 2**18
_LOAD_MIN = 2**22


def bucket_starts(edges, n_buckets):
    """An index of each column's sorted ``edges`` (inf-padded): ``n_buckets``
    equal buckets over ``[edges[0], largest finite edge]``, each with the
    count of edges at or below its left end, ``start[j, k]``. A value in
    bucket ``k`` then has its cell in ``[start[k], start[k + 1]]``, a short
    range to search: ``(lo, scale, start)``, ``k = (v - lo) * scale``."""
    m, n_edges = edges.shape
    finite = np.isfinite(edges)
    last = np.where(finite.any(axis=1), n_edges - 1 - np.argmax(finite[:, ::-1], 1), 0)
    lo, hi = edges[:, 0], edges[np.arange(m), last]
    spread = np.isfinite(lo) & (hi > lo)
    scale = np.zeros(m)
    scale[spread] = n_buckets / (hi[spread] - lo[spread])
    k = np.arange(n_buckets + 1)
    with np.errstate(invalid="ignore"):
        lefts = np.where(
            spread[:, None],
            lo[:, None] + k * (hi - lo)[:, None] / n_buckets,
            lo[:, None],
        )
    start = np.empty((m, n_buckets + 1), dtype=np.int32)
    for j in range(m):
        # NaN edges (a column with no value) and a NaN left end count none.
        start[j] = (
            0 if np.isnan(lefts[j, 0]) else np.searchsorted(edges[j], lefts[j], "right")
        )
    return lo.copy(), scale, start


def grid_cells(X, edges):
    """The grid cell of every value, column major (``out[j, i]`` for
    ``X[i, j]``): ``#{edges[j] <= X[i, j]}`` (``searchsorted(edges[j], v,
    "right")``), and ``edges.shape[1] + 1`` for NaN (the cell of missing
    values); the cells :func:`_count_cells` counts."""
    out = np.empty(X.shape[::-1], dtype=np.int32)
    for j in range(X.shape[1]):
        out[j] = column_cells(X[:, j], edges[j])
    return out


def column_cells(x, e):
    """:func:`grid_cells` of one column ``x`` with edges ``e``."""
    cells = np.searchsorted(e, x, "right")
    cells[np.isnan(x)] = e.size + 1
    return cells


@njit(nogil=True, cache=True)
def _count_cells(x, e, a, s, first, groups, counts):  # pragma: no cover
    """``counts[groups[i], cell of x[i]] += 1`` for one column ``x`` with
    edges ``e`` (the cell as in :func:`grid_cells`): a binary search within
    the value's bucket ``k = (v - a) * s`` of :func:`bucket_starts`, then a
    step to either side while the cell's edges disagree (a value on a
    bucket's end, or outside the grid)."""
    n_edges, n_buckets = e.size, first.size - 1
    for i in range(x.size):
        v = x[i]
        if v != v:
            counts[groups[i], n_edges + 1] += 1.0
            continue
        t = (v - a) * s
        low, high = 0, n_edges
        if t >= 0 and t < n_buckets:
            k = int(t)
            low, high = first[k], first[k + 1]
        while low < high:
            mid = (low + high) >> 1
            if e[mid] <= v:
                low = mid + 1
            else:
                high = mid
        while low > 0 and e[low - 1] > v:
            low -= 1
        while low < n_edges and e[low] <= v:
            low += 1
        counts[groups[i], low] += 1.0


def _compiled(n_values):
    """Whether a chunk of ``n_values`` values is counted by the compiled loop."""
    loaded = "numba" in sys.modules
    return n_values >= _LOAD_MIN or (loaded and n_values >= _COMPILED_MIN)


def _counter(X, edges, index, groups):
    """``(count, threads)``: ``count(j, counts)`` sets ``counts`` (groups x
    cells) to column ``j``'s count of rows per (group, cell), and the columns
    are spread over ``threads``."""
    n, m = X.shape
    n_cells = edges.shape[1] + 2
    if not _compiled(n * m):

        def count(j, counts):
            flat = groups * n_cells + column_cells(X[:, j], edges[j])
            counts[...] = np.bincount(flat, minlength=counts.size).reshape(counts.shape)

        return count, 1
    lo, scale, start = index

    def count(j, counts):
        counts[...] = 0.0
        x = np.ascontiguousarray(X[:, j])  # one compiled layout
        _count_cells(x, edges[j], lo[j], scale[j], start[j], groups, counts)

    return count, min(num_threads(), m)


def cell_sums(X, edges, index, table, groups, n_groups, S):
    """``S[g, j * w : (j + 1) * w] += table[j, cell of X[i, j]]`` for every
    row ``i`` of group ``g = groups[i]`` and column ``j``. With many rows
    per group a column's rows are counted per (group, cell) and the counts
    multiplied by its table (one small matrix product instead of an add per
    row): by NumPy for a small input, by a compiled loop for a large one
    (columns spread over numba's threads; it releases the GIL), the same
    counts either way. With few rows per group, the rows' features are
    summed through a sparse 0/1 matrix."""
    n, m = X.shape
    n_cells, w = table.shape[1], table.shape[2]
    groups = np.ascontiguousarray(groups, dtype=np.int64)
    if n <= 4 * n_groups:
        cells = grid_cells(X, edges)
        M = indicator(groups, n_groups)
        step = max(1, _BLOCK_ENTRIES // max(n * w, 1))
        for a in range(0, m, step):
            b = min(m, a + step)
            Z = table[np.arange(a, b)[:, None], cells[a:b]]  # (k, n, w)
            Z = Z.transpose(1, 0, 2).reshape(n, -1).astype(np.float64)
            S[:, a * w : b * w] += M @ Z
        return
    count, threads = _counter(X, edges, index, groups)

    def columns(part):
        counts = np.empty((n_groups, n_cells))  # stays in cache: one column's
        for j in range(part, m, threads):
            count(j, counts)
            S[:, j * w : (j + 1) * w] += counts @ table[j].astype(np.float64)

    # The small products on one BLAS thread: BLAS's own threads would only
    # contend for the cores (and be called from several threads at once).
    with one_blas_thread():
        if threads < 2:
            columns(0)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(columns, range(threads)))
