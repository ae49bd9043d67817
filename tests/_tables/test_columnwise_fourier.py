"""The columnwise map behind explain (skmmd/_tables/_columnwise_fourier.py
and its cells, _columnwise_cells.py): grid cells against numpy, the
kernel it approximates, grouped sums, a column's map independent of the
others."""

import numpy as np

from skmmd._tables import _columnwise_cells
from skmmd._tables._columnwise_cells import (
    _count_cells,
    bucket_starts,
    cell_sums,
    grid_cells,
    sliced_cells,
)
from skmmd._tables._columnwise_fourier import ColumnwiseFourier

# The columnwise map against its ground truth.


def test_grid_cells_and_their_counts_match_numpy_searchsorted(rng):
    """Cells by searchsorted (NaN in the cell after the last), counted per
    group by the compiled loop over each value's bucket: values on the
    edges themselves (a grid is made of the fit rows' values), on a
    bucket's ends, outside the grid, a wide range (long buckets), a column
    of fewer cells and one of no value."""
    n_groups, n_edges = 5, 255
    X = rng.normal(size=(9000, 8))
    X[::11, 3] = np.nan
    X[:, 4] = rng.standard_cauchy(9000)
    X[:3, 5] = [np.inf, -np.inf, 1e300]
    edges = np.sort(rng.normal(size=(8, n_edges)), axis=1)
    edges[4] = np.sort(rng.standard_cauchy(n_edges))
    edges[6, 100:] = np.inf
    edges[7] = np.nan  # a column that had no value at fit
    X[100:355, :7] = edges[:7].T  # every edge is a value
    lo, scale, start = bucket_starts(edges, 64)
    ends = lo[0] + np.arange(65) / scale[0]
    X[400:465, 0] = ends  # the buckets' ends
    groups = rng.integers(0, n_groups, 9000)
    for values in (X, np.asfortranarray(X), X[:500]):
        cells = grid_cells(values, edges)
        for j in range(8):
            expected = np.searchsorted(edges[j], values[:, j], side="right")
            expected[np.isnan(values[:, j])] = n_edges + 1
            np.testing.assert_array_equal(cells[j], expected)
            counts = np.zeros((n_groups, n_edges + 2))
            column = np.ascontiguousarray(values[:, j])
            g = groups[: values.shape[0]]
            _count_cells(column, edges[j], lo[j], scale[j], start[j], g, counts)
            flat = np.bincount(g * (n_edges + 2) + expected, minlength=counts.size)
            np.testing.assert_array_equal(counts.ravel(), flat)


def test_cells_found_from_buckets_are_searchsorted_s(rng, monkeypatch):
    """NumPy's steps from each value's bucket give searchsorted's cells: on
    the edges, on and just below the buckets' ends (where rounding may
    place a value in the next bucket), outside the grid, at infinity, on
    tied edges, NaN, a column of no value, and columns whose buckets hold
    too many edges to step through (searched instead), in slices of
    columns of any width."""
    n_edges = 255
    X = rng.normal(size=(3000, 9))
    X[::11, 3] = np.nan
    X[:, 4] = rng.standard_cauchy(3000)
    X[:3, 5] = [np.inf, -np.inf, 1e300]
    X[:, 8] = np.round(X[:, 8], 1)
    edges = np.sort(rng.normal(size=(9, n_edges)), axis=1)
    edges[4] = np.sort(rng.standard_cauchy(n_edges))
    edges[6, 100:] = np.inf
    edges[7] = np.nan
    edges[8] = np.round(edges[8], 1)  # tied edges
    X[100:355, :7] = edges[:7].T
    for n_buckets in (16, 1024):
        index = bucket_starts(edges, n_buckets)
        lo, scale, _ = index
        ends = lo[:2, None] + np.arange(n_buckets + 1) / scale[:2, None]
        X[400 : 401 + n_buckets, 0] = ends[0]
        X[1500 : 1501 + n_buckets, 1] = np.nextafter(ends[1], -np.inf)
        for width in (1, 4, 32):
            monkeypatch.setattr(_columnwise_cells, "_SLICE_COLUMNS", width)
            found, searched = {}, set()
            for columns, cells in sliced_cells(X, edges, index):
                if isinstance(columns, list):  # a column searched alone
                    searched.update(columns)
                found.update(zip(columns, cells))
            assert sorted(found) == list(range(9))
            for j in range(9):
                expected = np.searchsorted(edges[j], X[:, j], side="right")
                expected[np.isnan(X[:, j])] = n_edges + 1
                np.testing.assert_array_equal(found[j], expected)
        steps = np.diff(index[2], axis=1).max(axis=1)
        assert searched == set(np.flatnonzero(steps > _columnwise_cells._MAX_STEPS))
        # 1024 buckets step through a normal column's grid; 16 do not.
        assert {0, 1} & searched == (set() if n_buckets == 1024 else {0, 1})


def test_small_and_large_inputs_give_the_same_sums(rng, monkeypatch):
    """NumPy counts a small input's cells, the compiled loop a large one's
    (or a medium one's once numba is loaded): the same integers, so the same
    sums bit for bit, on one thread and on several (a chunk's size never
    changes a result)."""
    X = rng.standard_t(3, size=(3000, 9))
    X[::7, 2] = np.nan
    X[:, 5] = rng.poisson(2.0, 3000)  # a cell per value
    block = ColumnwiseFourier(list(range(9)), random_state=0).fit(X)
    groups = rng.integers(0, 40, 3000)
    args = (X, block.edges_, block._index, block.table_, groups, 40)
    sums = []
    for smallest, threads in ((np.inf, 1), (0, 1), (0, 3)):
        monkeypatch.setattr(_columnwise_cells, "_COMPILED_MIN", smallest)
        monkeypatch.setattr(_columnwise_cells, "_LOAD_MIN", smallest)
        monkeypatch.setattr(_columnwise_cells, "num_threads", lambda: threads)  # noqa: B023
        S = np.zeros((40, block._n_features_out))
        cell_sums(*args, S)
        sums.append(S)
    np.testing.assert_array_equal(sums[0], sums[1])
    np.testing.assert_array_equal(sums[0], sums[2])


def test_columnwise_kernel_is_the_scale_mixture_of_gaussians(global_random_seed):
    """Each column's feature products approximate the average of its
    Gaussian kernels at 0.5, 1, 2 and 4 times its median distance. Four
    stratified frequencies per scale: over seeds 0-99 the mean error is at
    most 0.048 and the largest 0.142 (bounds 0.06 and 0.2)."""
    rng = np.random.default_rng(global_random_seed)
    # At most 256 distinct values per column: each value is its cell's centre.
    X = np.column_stack([rng.integers(0, 200, 600) / 20, rng.integers(0, 4, 600)])
    block = ColumnwiseFourier([0, 1], random_state=global_random_seed).fit(X)
    Z = block.transform(X).reshape(600, 2, -1)
    np.testing.assert_allclose((Z**2).sum(axis=2), 1.0, rtol=1e-6)
    for j in range(2):
        squared = (X[:, j, None] - X[None, :, j]) ** 2
        exact = np.mean(
            [
                np.exp(-squared / (2 * (s * block.bandwidths_[j]) ** 2))
                for s in block.bandwidth_scales
            ],
            axis=0,
        )
        error = np.abs(Z[:, j] @ Z[:, j].T - exact)
        assert error.mean() < 0.06 and error.max() < 0.2


def test_columnwise_sums_equal_summed_features(rng):
    X = rng.standard_t(2, size=(3000, 5))
    X[::7, 2] = np.nan
    block = ColumnwiseFourier(list(range(5)), random_state=1).fit(X)
    groups = rng.integers(0, 40, size=3000)
    S, q = block.grouped_sums(X, groups, 40)
    Z = block.transform(X)
    M = np.zeros((40, 3000))
    M[groups, np.arange(3000)] = 1.0
    np.testing.assert_allclose(S, M @ Z, atol=1e-10)
    np.testing.assert_allclose(q, M @ (Z**2).sum(axis=1))


def test_columnwise_map_of_a_column_does_not_depend_on_the_others(rng):
    """A column keeps its own directions whatever the others keep: in a
    wider block its features are those it has alone, then zeros."""
    X = np.column_stack(
        [
            rng.normal(size=(800, 10)),
            rng.standard_cauchy((800, 10)),
            rng.poisson(2.0, (800, 10)),
        ]
    )
    wide = ColumnwiseFourier(list(range(30)), random_state=3).fit(X)
    widths = []
    for j in (3, 17, 25):
        alone = ColumnwiseFourier([j], random_state=3).fit(X)
        k = alone.column_width_ - 1
        widths.append(alone.column_width_)
        for table in (wide.table_[j], wide.subset(j, j + 1).table_[0]):
            np.testing.assert_array_equal(table[:, :k], alone.table_[0, :, :k])
            np.testing.assert_array_equal(table[:, k:-1], 0.0)
            np.testing.assert_array_equal(table[:, -1], alone.table_[0, :, -1])
    assert wide.column_width_ >= max(widths) > min(widths)


def test_columnwise_directions_keep_the_kernel(rng, monkeypatch):
    """The leading directions of a column's cosines and sines change no
    kernel value by more than the tolerance (against all 2 D of them,
    rotated), with rows of unit norm and far fewer features."""
    from skmmd._tables import _columnwise_fourier as _columnwise

    X = np.column_stack(
        [rng.normal(size=3000), rng.standard_t(3, 3000), rng.poisson(3.0, 3000)]
    )
    X[::11, 0] = np.nan
    kept = ColumnwiseFourier([0, 1, 2], random_state=0).fit(X)
    monkeypatch.setattr(_columnwise, "_KERNEL_TOLERANCE", -1.0)  # keep all
    full = ColumnwiseFourier([0, 1, 2], random_state=0).fit(X)
    assert full.column_width_ == 2 * 16 + 1
    assert kept.column_width_ <= 17
    rows = rng.choice(3000, 400, replace=False)
    Z, Z_full = (m.transform(X[rows]).reshape(400, 3, -1) for m in (kept, full))
    np.testing.assert_allclose((Z**2).sum(axis=2), 1.0, rtol=1e-6)
    for j in range(3):
        error = np.abs(Z[:, j] @ Z[:, j].T - Z_full[:, j] @ Z_full[:, j].T)
        assert 0 < error.max() < 3e-6


def test_fit_a_part_of_the_columns_at_a_time_is_the_whole_fit(rng, monkeypatch):
    """The fit reads a wide table's values a part of its columns at a time:
    its grids, bandwidths and table are those of one read of all columns,
    bit for bit, on a DataFrame (integer and float columns, NaN, ties) and
    an array."""
    import pandas as pd

    from skmmd._utils import _budgets

    values = rng.standard_t(3, size=(5000, 7))
    values[::9, 2] = np.nan
    values[:, 4] = np.round(values[:, 4])
    frame = pd.DataFrame(values, columns=list("abcdefg"))
    frame["h"] = rng.poisson(3.0, 5000)
    for X, columns in ((frame, list(frame.columns)), (values, list(range(7)))):
        fits = []
        for entries in (2**40, 2, 3 * 4096):
            monkeypatch.setattr(_budgets, "PART_ENTRIES", entries)
            fits.append(ColumnwiseFourier(columns, random_state=3).fit(X))
        for other in fits[1:]:
            np.testing.assert_array_equal(other.edges_, fits[0].edges_)
            np.testing.assert_array_equal(other.bandwidths_, fits[0].bandwidths_)
            np.testing.assert_array_equal(other.table_, fits[0].table_)


def test_median_distances_are_the_median_gaps(rng):
    """Each column's median distance is the median of its finite gaps over
    the pairs (found by partition, bit for bit np.median's); where that is
    0 (mostly ties), the mean of the nonzero gaps; 1 for a constant
    column."""
    from skmmd._tables._columnwise_fourier import (
        _median_distances,
        _median_pairs,
    )

    values = rng.standard_cauchy((700, 6))
    values[rng.random(700) < 0.3, 1] = np.nan
    values[:, 2] = rng.random(700) < 0.1  # mostly ties: median gap 0
    values[:, 3] = 5.0  # constant
    values[:3, 4] = np.inf
    pairs = _median_pairs(700, np.random.default_rng(2))
    found = _median_distances(values, pairs)
    for j in range(6):
        gaps = np.abs(values[pairs[0], j] - values[pairs[1], j])
        gaps = gaps[np.isfinite(gaps)]
        median = np.median(gaps)
        if median > 0:
            assert found[j] == median
        elif np.any(gaps > 0):
            np.testing.assert_allclose(found[j], gaps[gaps > 0].mean(), rtol=1e-12)
        else:
            assert found[j] == 1.0
    assert found[2] > 0 and found[3] == 1.0


def test_fit_on_rows_of_a_frame_is_the_fit_on_those_rows(rng):
    """Fit on positions ``rows`` of a DataFrame (read a part of its columns
    at a time) is the fit on the frame of those rows, bit for bit."""
    import pandas as pd

    values = rng.standard_t(3, size=(6000, 5))
    values[::13, 1] = np.nan
    frame = pd.DataFrame(values, columns=list("abcde"))
    frame["f"] = rng.poisson(3.0, 6000)
    rows = np.sort(rng.choice(6000, 4096, replace=False))
    columns = list(frame.columns)
    whole = ColumnwiseFourier(columns, random_state=5).fit(frame.iloc[rows])
    read = ColumnwiseFourier(columns, random_state=5).fit(frame, rows=rows)
    for name in ("edges_", "bandwidths_", "table_"):
        np.testing.assert_array_equal(getattr(read, name), getattr(whole, name))
