"""Compiled loops of :class:`~skmmd.kernel_approximation._columnwise.ColumnwiseFourier`:
the grid cell of every value, and every column's feature rows summed per
group by cell."""

import numpy as np
from numba import njit, prange

# Rows per block of grid_cells: each column's edges are read once per block.
_ROW_BLOCK = 64


@njit(inline="always")
def _cell(edges, v):  # pragma: no cover - compiled
    """``#{edges <= v}`` (``searchsorted(edges, v, "right")``) by a
    branchless binary search; ``edges.size`` is a power of two minus one."""
    base, step = 0, (edges.size + 1) >> 1
    while step > 0:
        base += step * (edges[base + step - 1] <= v)
        step >>= 1
    return base


@njit(parallel=True, cache=True)
def grid_cells(X, edges):  # pragma: no cover - compiled
    """The grid cell of every value, column major (``out[j, i]`` for
    ``X[i, j]``): ``#{edges[j] <= X[i, j]}``, and ``edges.shape[1] + 1`` for
    NaN (the cell of missing values). Blocks of rows in parallel."""
    n, m = X.shape
    missing = edges.shape[1] + 1
    out = np.empty((m, n), dtype=np.int32)
    for block in prange((n + _ROW_BLOCK - 1) // _ROW_BLOCK):
        stop = min(n, (block + 1) * _ROW_BLOCK)
        for j in range(m):
            e = edges[j]
            for i in range(block * _ROW_BLOCK, stop):
                v = X[i, j]
                out[j, i] = missing if v != v else _cell(e, v)
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
            S[:, base : base + w] += counts @ table[j]
        else:
            for i in range(n):
                row = table[j, cells[j, i]]
                g = groups[i]
                for k in range(w):
                    S[g, base + k] += row[k]
