"""Compiled loops of :class:`~skmmd.kernel_approximation._columnwise.ColumnwiseFourier`:
the grid cell of every value, and every column's feature rows summed per
group by cell."""

import numpy as np
from numba import njit, prange

# Rows of one column per task of grid_cells.
_ROW_BLOCK = 4096


@njit(parallel=True, cache=True)
def bucket_starts(edges, n_buckets):  # pragma: no cover - compiled
    """An index of each column's sorted ``edges`` (inf-padded): ``n_buckets``
    equal buckets over ``[edges[0], largest finite edge]``, each with the
    count of edges at or below its left end, ``start[j, k]``. A value in
    bucket ``k`` then has its cell in ``[start[k], start[k + 1]]``, a short
    range to search: ``(lo, scale, start)``, ``k = (v - lo) * scale``."""
    m, n_edges = edges.shape
    lo, scale = np.empty(m), np.zeros(m)
    start = np.empty((m, n_buckets + 1), dtype=np.int32)
    for j in prange(m):
        e = edges[j]
        last = n_edges - 1
        while last > 0 and not np.isfinite(e[last]):
            last -= 1
        a, b = e[0], e[last]
        lo[j] = a
        if np.isfinite(a) and b > a:
            scale[j] = n_buckets / (b - a)
        c = 0
        for k in range(n_buckets + 1):
            left = a + k * (b - a) / n_buckets if scale[j] > 0 else a
            while c < n_edges and e[c] <= left:
                c += 1
            start[j, k] = c
    return lo, scale, start


@njit(parallel=True, cache=True)
def grid_cells(X, edges, lo, scale, start):  # pragma: no cover - compiled
    """The grid cell of every value, column major (``out[j, i]`` for
    ``X[i, j]``): ``#{edges[j] <= X[i, j]}`` (``searchsorted(edges[j], v,
    "right")``), and ``edges.shape[1] + 1`` for NaN (the cell of missing
    values). A binary search within the value's bucket of
    :func:`bucket_starts`; a task per column and block of rows, so that a
    column's edges and index stay in cache while its values are read (a
    DataFrame's columns are contiguous), and a narrow table's rows still
    spread over the threads."""
    n, m = X.shape
    n_edges, n_buckets = edges.shape[1], start.shape[1] - 1
    out = np.empty((m, n), dtype=np.int32)
    n_blocks = (n + _ROW_BLOCK - 1) // _ROW_BLOCK
    for task in prange(m * n_blocks):
        j, block = task // n_blocks, task % n_blocks
        e, a, s, first = edges[j], lo[j], scale[j], start[j]
        for i in range(block * _ROW_BLOCK, min(n, (block + 1) * _ROW_BLOCK)):
            v = X[i, j]
            if v != v:
                out[j, i] = n_edges + 1
                continue
            t = (v - a) * s
            low, high = 0, n_edges
            if t >= 0 and t < n_buckets:
                k = int(t)
                low, high = first[k], first[k + 1]
            elif t >= n_buckets:
                low = first[n_buckets]
            else:
                high = first[0]
            while low < high:
                mid = (low + high) >> 1
                if e[mid] <= v:
                    low = mid + 1
                else:
                    high = mid
            out[j, i] = low
    return out


@njit(parallel=True, cache=True)
def cell_sums(cells, table, groups, n_groups, S):  # pragma: no cover - compiled
    """``S[g, j * w : (j + 1) * w] += table[j, cells[j, i]]`` for every row
    ``i`` of group ``g = groups[i]`` and column ``j``. Each thread owns whole
    columns, so no two write one entry. With many rows per group a column's
    rows are counted per (group, cell) and the counts multiplied by its
    table (one small matrix product instead of a scattered add per row)."""
    m, n = cells.shape
    n_cells, w = table.shape[1], table.shape[2]
    by_counts = n > 4 * n_groups
    for j in prange(m):
        base = j * w
        if by_counts:
            counts = np.zeros((n_groups, n_cells))
            for i in range(n):
                counts[groups[i], cells[j, i]] += 1.0
            S[:, base : base + w] += counts @ table[j].astype(np.float64)
        else:
            for i in range(n):
                row = table[j, cells[j, i]]
                g = groups[i]
                for k in range(w):
                    S[g, base + k] += row[k]
