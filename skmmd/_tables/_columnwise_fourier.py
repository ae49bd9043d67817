"""Each numeric column of a table with a kernel of its own, all columns mapped
in one pass: the feature map behind the per-column reports of ``explain``."""

import numpy as np
from scipy.stats import norm
from sklearn.utils import check_random_state

from .._utils import _budgets
from .._utils._streams import draw_seed
from ._columnwise_cells import bucket_starts, cell_sums, grid_cells
from ._labels import column_labels, is_dataframe
from ._values import canonical, float_values, seconds

# Buckets of the index that narrows each value's search for its cell.
_BUCKETS = 1024
# A column's cosines and sines on its grid span few directions (its kernel's
# eigenvalues fall fast): the directions kept are the fewest whose dropped
# eigenvalues sum to at most this, so no kernel value between two cells, nor
# a row's squared norm, changes by more (before rows are rescaled to unit
# norm). Every cost of a report's columns (their products, unit sums and
# resamples) is in proportion to the width kept.
_KERNEL_TOLERANCE = 1e-6


def _values(X, columns, rows=None):
    """The float64 values of ``columns`` (labels of a DataFrame, positions of
    an array; datetimes and timedeltas in seconds), NaN where missing; a
    DataFrame's at positions ``rows`` only (None: all); no copy of a float64
    array's consecutive columns."""
    columns = list(columns)
    if is_dataframe(X):
        if columns != column_labels(X):
            X = X[columns]
        if rows is not None:
            X = X.iloc[rows]
        return float_values(canonical(X))
    X = np.asarray(X)
    if columns == list(range(columns[0], columns[0] + len(columns))):
        X = X[:, columns[0] : columns[0] + len(columns)]  # a view
    else:
        X = X[:, columns]
    if X.dtype.kind in "Mm":  # datetimes and timedeltas in seconds, NaT as NaN
        return seconds(X)
    return float_values(X)


def _median_distances(values, pairs):
    """Each column's median distance between the pairs of rows ``pairs =
    (a, b)`` (:func:`_median_pairs`) of its finite values; where that is 0
    (mostly ties), the mean nonzero distance; 1 for a column of one
    value."""
    n = values.shape[0]
    a, b = pairs
    # A slice of columns at a time: the temporaries of a slice, not of all.
    out = np.empty(values.shape[1])
    for columns in _budgets.column_slices(values.shape[1], _budgets.MEDIAN_PAIRS):
        out[columns] = _median_gaps(values[a, columns], values[b, columns], n)
    return out


def _median_pairs(n, rng):
    """The random pairs of the ``n`` fit rows behind each column's median
    distance, the same for every column."""
    return rng.integers(0, n, size=(2, _budgets.MEDIAN_PAIRS))


def _median_gaps(left, right, n):
    """:func:`_median_distances` of the pairs of rows ``(left, right)`` of
    ``n`` rows."""
    with np.errstate(invalid="ignore"):
        gaps = np.abs(left - right)
    gaps[~np.isfinite(gaps)] = np.nan
    # NaN sorts last: the median of each column's finite gaps by position,
    # two order statistics, which a partition finds without a sort; the
    # fallback's mean is summed over the sorted gaps (its rounding as ever).
    count = np.count_nonzero(~np.isnan(gaps), axis=0)
    low, high = np.maximum(count - 1, 0) // 2, count // 2
    gaps.partition(np.unique(np.concatenate([low, high])), axis=0)
    middle = np.take_along_axis(gaps, low[None], 0)[0]
    upper = np.take_along_axis(gaps, high[None], 0)[0] if n else middle
    median = np.where(count > 0, (middle + np.where(count % 2, middle, upper)) / 2, 0)
    if np.all(median > 0):
        return median
    gaps.sort(axis=0)
    nonzero = np.where(gaps > 0, gaps, 0.0)
    n_nonzero = np.count_nonzero(nonzero, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        fallback = np.where(n_nonzero > 0, np.nansum(nonzero, axis=0) / n_nonzero, 1.0)
    return np.where(median > 0, median, fallback)


def _grids(values, n_cells):
    """Each column's cells: ``(edges, centres)`` of shapes (m, n_cells - 1)
    and (m, n_cells). A column of at most ``n_cells`` distinct values has a
    cell per value (the value its centre, edges halfway between values,
    ``inf`` past the last); others have cells between their quantiles
    ``k / n_cells`` with centres at the quantiles ``(k + 1/2) / n_cells``.
    Unused cells repeat the last centre. A slice of columns at a time: the
    sorted copies of a slice, not of all the values."""
    m = values.shape[1]
    edges, centres = np.empty((m, n_cells - 1)), np.empty((m, n_cells))
    for part in _budgets.column_slices(m, values.shape[0]):
        edges[part], centres[part] = _slice_grids(values[:, part], n_cells)
    return edges, centres


def _slice_grids(values, n_cells):
    """:func:`_grids` of some columns."""
    ordered = np.where(np.isfinite(values), values, np.nan)
    ordered.sort(axis=0)  # in place: no second copy of the values
    count = np.count_nonzero(~np.isnan(ordered), axis=0)
    new = np.zeros(ordered.shape, dtype=bool)
    new[0] = count > 0
    new[1:] = ordered[1:] != ordered[:-1]
    new &= ~np.isnan(ordered)
    n_distinct = new.sum(axis=0)
    k = np.arange(n_cells)[:, None]
    at = lambda p: np.take_along_axis(  # noqa: E731
        ordered, np.minimum((p * count).astype(np.int64), np.maximum(count - 1, 0)), 0
    )
    centres = at((k + 0.5) / n_cells).T
    edges = at(k[1:] / n_cells).T
    for j in np.flatnonzero(n_distinct <= n_cells):
        distinct = ordered[new[:, j], j]
        centres[j] = distinct[-1] if distinct.size else 0.0
        centres[j, : distinct.size] = distinct
        edges[j] = np.inf
        edges[j, : max(distinct.size - 1, 0)] = (distinct[1:] + distinct[:-1]) / 2
    return edges, centres


def _principal(trig):
    """``(rotated, ranks)``: the rows of each column's cosines and sines
    ``trig`` (k, cells, 2 D), float64, on the leading eigenvectors of their
    Gram matrix (largest first), as many as the highest rank of the ``k``
    columns (a column's rank: the fewest whose dropped eigenvalues sum to at
    most ``_KERNEL_TOLERANCE``; zeros past it), every row rescaled to unit
    norm; and the ranks (k,)."""
    values, vectors = np.linalg.eigh(np.matmul(trig.transpose(0, 2, 1), trig))
    # Ascending eigenvalues: those dropped are the smallest whose sum stays
    # within the tolerance.
    dropped = np.count_nonzero(np.cumsum(values, axis=1) <= _KERNEL_TOLERANCE, axis=1)
    ranks = np.maximum(values.shape[1] - dropped, 1)
    # The kept eigenvectors, largest first, contiguous (a product BLAS takes).
    kept = np.ascontiguousarray(vectors[:, :, ::-1][:, :, : ranks.max()])
    kept *= np.arange(kept.shape[2]) < ranks[:, None, None]
    rotated = np.matmul(trig, kept)
    rotated /= np.sqrt(np.einsum("kcf,kcf->kc", rotated, rotated))[:, :, None]
    return rotated, ranks


class ColumnwiseFourier:
    """Random Fourier features of each numeric column on its own, for all
    columns at once.

    Column ``j`` has the Gaussian kernel at its own median distance
    ``sigma_j`` on its values rounded to a grid of ``n_cells`` cells (a cell
    per distinct value, or between its quantiles ``k / n_cells`` of the fit
    rows), a missing value its own cell: the average over the scales ``s``
    of ``bandwidth_scales`` of ``exp(-(c(x) - c(y))^2 / (2 s^2 sigma_j^2))``
    for present values, and ``1[both missing]`` otherwise. Several scales
    keep one column's kernel sensitive to a shift (the large ones) and to a
    change of shape (the small ones) alike. The features of each cell are
    computed once at fit, so mapping a value is a lookup: the cost of a row
    is ``O(m (log n_cells + 2 D))`` with no trigonometric call, and a value
    and its cell centre are never further apart than the column's cell.
    Frequencies are stratified Gaussian quantiles ``Phi^-1((k + u) / L) /
    s``, ``L = D / len(bandwidth_scales)`` per scale, one uniform ``u``
    drawn per map, so a column's map is the same in a table of any width.
    The cosines and sines of a column's cells span few directions: they are
    rotated onto the leading eigenvectors of their Gram matrix, the fewest
    that change no kernel value by more than ``1e-6``, and every cost of a
    report's columns is in proportion to the width kept (a block is as wide
    as the most any column keeps, with zeros past a column's own). Every
    row of a column's features has unit norm.

    Parameters
    ----------
    columns : list
        The numeric columns (labels of a DataFrame, positions of an array).
    n_frequencies : int, default=16
        Frequencies ``D`` per column: ``2 D`` cosines and sines, of which
        the leading directions are kept, and the missing indicator.
    n_cells : int, default=256
        Cells of each column's grid (a power of two).
    bandwidth_scales : tuple of float, default=(0.5, 1.0, 2.0, 4.0)
        Multiples of each column's median distance whose Gaussian kernels
        are averaged (their number divides ``n_frequencies``).
    random_state : int, RandomState instance or None, default=None
        The frequencies' offset and the fit subsample.

    Attributes
    ----------
    bandwidths_ : ndarray of shape (m,)
        Each column's ``sigma_j``.
    column_width_ : int
        Features per column: the most directions any column keeps (at most
        ``2 D``) and the missing indicator.
    """

    def __init__(
        self,
        columns,
        *,
        n_frequencies=16,
        n_cells=256,
        bandwidth_scales=(0.5, 1.0, 2.0, 4.0),
        random_state=None,
    ):
        self.columns = list(columns)
        self.n_frequencies = n_frequencies
        self.n_cells = n_cells
        self.bandwidth_scales = bandwidth_scales
        self.random_state = random_state

    def fit(self, X, y=None, rows=None):
        """Fit each column's grid, bandwidth and features on the rows of
        ``X`` at positions ``rows`` (default: a seeded sample of at most
        4096 of them). A DataFrame's rows are read a part of its columns at
        a time (no copy of the sample's rows of all columns at once)."""
        rng = check_random_state(self.random_state)
        u = rng.uniform()
        gen = np.random.default_rng(draw_seed(rng))
        n = X.shape[0]
        if rows is None and n > _budgets.COLUMN_GRID_ROWS:
            rows = np.sort(gen.choice(n, _budgets.COLUMN_GRID_ROWS, replace=False))
        if not is_dataframe(X):
            X = np.asarray(X) if rows is None else np.asarray(X)[rows]
            rows = None
        m, n = len(self.columns), X.shape[0] if rows is None else len(rows)
        pairs = _median_pairs(n, gen)
        self.edges_, centres = (
            np.empty((m, self.n_cells - 1)),
            np.empty((m, self.n_cells)),
        )
        self.bandwidths_ = np.empty(m)
        # A part of the columns at a time: a wide table's values are never
        # read into one array.
        for part in _budgets.column_slices(m, n, _budgets.PART_ENTRIES):
            values = _values(X, self.columns[part], rows)
            self.edges_[part], centres[part] = _grids(values, self.n_cells)
            self.bandwidths_[part] = _median_distances(values, pairs)
        self._index = bucket_starts(self.edges_, _BUCKETS)
        D, scales = self.n_frequencies, np.asarray(self.bandwidth_scales, float)
        per_scale = D // scales.size
        if per_scale * scales.size != D:
            raise ValueError(
                f"n_frequencies={D} must be a multiple of the number of "
                f"bandwidth_scales ({scales.size})."
            )
        stratified = norm.ppf((np.arange(per_scale) + u) / per_scale)
        frequencies = (stratified[None, :] / scales[:, None]).ravel()
        # Centred on each column's middle cell: the same kernel, smaller phases.
        middle = centres[:, self.n_cells // 2 : self.n_cells // 2 + 1]
        # float32: half the memory of a wide table's cells (its rounding,
        # 1e-7, is far below the features' own error); sums are float64.
        # Each part's kept directions are held until the widest is known.
        slices = _budgets.column_slices(m, self.n_cells * D)  # float64 phases
        ranks, kept = np.empty(m, dtype=np.int64), []
        for part in slices:
            phases = ((centres[part] - middle[part]) / self.bandwidths_[part, None])[
                :, :, None
            ] * frequencies
            trig = np.concatenate([np.cos(phases), np.sin(phases)], axis=2)
            trig /= np.sqrt(D)
            rotated, ranks[part] = _principal(trig)
            kept.append(rotated.astype(np.float32))
        # Each column keeps its own directions (zeros past them, so its map
        # is the same in a table of any width); the block is as wide as the
        # most any column keeps, plus the missing values' indicator.
        width = int(ranks.max())
        table = np.zeros((m, self.n_cells + 1, width + 1), dtype=np.float32)
        for part, rotated in zip(slices, kept):
            table[part, :-1, : rotated.shape[2]] = rotated
        table[:, -1, -1] = 1.0  # the missing values' cell
        self.table_ = table
        self.column_width_ = width + 1
        self.n_columns_ = m
        self._n_features_out = m * self.column_width_
        return self

    def transform(self, X):
        cells = grid_cells(_values(X, self.columns), self.edges_)
        m = len(self.columns)
        Z = self.table_[np.arange(m)[None, :], cells.T]  # (n, m, w)
        return Z.reshape(cells.shape[1], -1).astype(np.float64)

    def grouped_sums(self, X, groups, n_groups, out=None):
        """Features summed per group without storing them; each row's
        squared norm is the number of columns."""
        if out is None:
            out = (np.zeros((n_groups, self._n_features_out)), np.zeros(n_groups))
        S, q = out
        values = _values(X, self.columns)
        cell_sums(values, self.edges_, self._index, self.table_, groups, n_groups, S)
        q += self.n_columns_ * np.bincount(groups, minlength=n_groups)
        return S, q

    def subset(self, start, stop):
        """The fitted map of columns ``start:stop`` alone (the same kernels)."""
        part = ColumnwiseFourier(
            self.columns[start:stop],
            n_frequencies=self.n_frequencies,
            n_cells=self.n_cells,
            bandwidth_scales=self.bandwidth_scales,
            random_state=self.random_state,
        )
        part.edges_ = self.edges_[start:stop]
        part._index = tuple(a[start:stop] for a in self._index)
        part.table_ = self.table_[start:stop]
        part.bandwidths_ = self.bandwidths_[start:stop]
        part.column_width_ = self.column_width_
        part.n_columns_ = stop - start
        part._n_features_out = part.n_columns_ * part.column_width_
        return part
