"""The cells of :class:`~skmmd._tables._columnwise_fourier.ColumnwiseFourier`:
the grid cell of every value, and every column's feature rows summed per
group by cell. One small compiled loop, serial (a serial loop compiles
far faster than a parallel one, and a table's first test waits for it),
counts the cells of large inputs; NumPy counts small ones, each value's
cell found from its bucket in a few vectorised steps, and does the rest."""

import sys

import numpy as np

from .._utils import _budgets
from .._utils._groups import indicator
from .._utils._jit import njit, num_threads
from .._utils._threads import one_blas_thread

# Values of a chunk counted by the compiled loop once numba is loaded (below,
# by NumPy: the counts are the same integers either way), and at which it is
# loaded: a table of a few hundred columns never loads it (numba's import
# and code would add much to such a test's memory), a wide numeric table's
# chunks (where the compiled loop's speed and threads pay for it) do.
_COMPILED_MIN = 2**18
_LOAD_MIN = 2**22
# Columns whose cells NumPy finds together from their buckets (a slice's
# temporaries, about 1 MB each at 4096 rows, stay in cache).
_SLICE_COLUMNS = 32
# Steps from a value's bucket to its cell beyond which a column is searched
# by searchsorted instead (a heavy tail crowds its grid into a few buckets).
_MAX_STEPS = 8


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


def sliced_cells(X, edges, index):
    """:func:`grid_cells` of ``X`` a slice of columns at a time: ``(columns,
    cells)`` pairs, ``cells[i]`` those of column ``columns[i]``. A column
    whose buckets (:func:`bucket_starts`) hold at most ``_MAX_STEPS`` edges
    each has them found from its buckets (:func:`_bucketed`), in fewer
    steps than a binary search; another by searchsorted."""
    lo, scale, start = index
    steps = np.diff(start, axis=1).max(axis=1, initial=0)
    for j in np.flatnonzero(steps > _MAX_STEPS):
        yield [j], column_cells(X[:, j], edges[j])[None]
    near = np.flatnonzero(steps <= _MAX_STEPS)
    for a in range(0, near.size, _SLICE_COLUMNS):
        columns = near[a : a + _SLICE_COLUMNS]
        at = (edges[columns], lo[columns], scale[columns], start[columns])
        yield columns, _bucketed(X.T[columns], *at, int(steps[columns].max()))


def _bucketed(V, edges, lo, scale, start, steps):
    """The cells of the rows of ``V`` (one column's values each, ``edges``
    and bucket index ``lo, scale, start`` theirs): each value starts at the
    first cell of its bucket and steps past every edge of the bucket at or
    below it, all values at once; a cell is then checked against its two
    edges, and the values it fails (NaN; a value rounding placed in the
    next bucket) are searched by searchsorted. ``steps``: the most edges a
    bucket of these columns holds. The same integers as
    :func:`column_cells`."""
    k, n_edges = edges.shape
    n_buckets = start.shape[1] - 1
    # first[b + 1]: the first cell of bucket b; first[0] = 0 (below the
    # grid), first[-1] = first[-2] (above it).
    first = np.empty((k, n_buckets + 3), dtype=np.intp)
    first[:, 0], first[:, 1:-1], first[:, -1] = 0, start, start[:, -1]
    t = V - lo[:, None]
    t *= scale[:, None]
    t += 1.0
    np.fmax(t, 0.0, out=t)  # NaN too
    np.fmin(t, n_buckets + 1, out=t)
    b = t.astype(np.intp)
    b += np.arange(k)[:, None] * first.shape[1]
    # Each column's edges after -inf and before NaN (no value is at or above
    # it: no step passes it), all columns in one array: cell c of column i
    # is right for v when below[at] <= v and not above[at] <= v, at = c +
    # base[i].
    bounded = np.empty((k, n_edges + 2))
    bounded[:, 0], bounded[:, 1:-1], bounded[:, -1] = -np.inf, edges, np.nan
    below, above = bounded.ravel(), bounded.ravel()[1:]
    base = np.arange(k)[:, None] * (n_edges + 2)
    at = first.ravel().take(b)
    at += base
    for _ in range(steps):
        at += above.take(at) <= V
    wrong = above.take(at) <= V
    wrong |= below.take(at) > V
    wrong |= np.isnan(V)
    at -= base
    for i in np.flatnonzero(wrong.any(axis=1)):
        at[i, wrong[i]] = column_cells(V[i, wrong[i]], edges[i])
    return at


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
        # Features of a chunk of columns summed at once (groups of few rows).
        step = max(1, _budgets.MAP_CHUNK_ENTRIES // max(n * w, 1))
        for a in range(0, m, step):
            b = min(m, a + step)
            Z = table[np.arange(a, b)[:, None], cells[a:b]]  # (k, n, w)
            Z = Z.transpose(1, 0, 2).reshape(n, -1).astype(np.float64)
            S[:, a * w : b * w] += M @ Z
        return
    # The small products on one BLAS thread: BLAS's own threads would only
    # contend for the cores (and be called from several threads at once).
    with one_blas_thread():
        if not _compiled(n * m):
            counts = np.empty((n_groups, n_cells))
            offsets = groups * n_cells
            for columns, cells in sliced_cells(X, edges, index):
                trig = _trig_rows(table, columns)
                for j, c, rows in zip(columns, cells, trig):
                    flat = np.bincount(offsets + c, minlength=counts.size)
                    counts[...] = flat.reshape(counts.shape)
                    _add_product(S, j, counts, rows)
            return
        lo, scale, start = index
        threads = min(num_threads(), m)

        def columns(part):
            counts = np.empty((n_groups, n_cells))  # stays in cache: one column's
            for j in range(part, m, threads):
                counts[...] = 0.0
                x = np.ascontiguousarray(X[:, j])  # one compiled layout
                _count_cells(x, edges[j], lo[j], scale[j], start[j], groups, counts)
                _add_product(S, j, counts, _trig_rows(table, [j])[0])

        if threads < 2:
            columns(0)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(columns, range(threads)))


def _trig_rows(table, columns):
    """The cosine and sine features of the value cells of ``columns`` (all
    cells but the last, the missing values'), float64: ``(k, cells - 1,
    w - 1)``, each column's C-contiguous."""
    return table[columns, :-1, :-1].astype(np.float64)


def _add_product(S, j, counts, trig):
    """Column ``j``'s counts per (group, cell) times its table, added to its
    block of ``S``: the one product both counters share, so that their sums
    are equal bit for bit. ``trig``: its :func:`_trig_rows`. The last cell
    (missing values), whose table row is the missing indicator alone (the
    only feature that is 0 in every other cell), adds its counts to that
    feature; the other cells (a power of two, the shape BLAS multiplies
    fastest) give the cosines and sines."""
    present, w = trig.shape[0], trig.shape[1] + 1
    S[:, j * w : (j + 1) * w - 1] += counts[:, :present] @ trig
    S[:, (j + 1) * w - 1] += counts[:, present]
