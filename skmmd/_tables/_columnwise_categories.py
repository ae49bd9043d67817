"""Each categorical column of a table one-hot encoded on its own, all columns
in one vectorized pass: the categorical half of the per-column reports of
``explain`` (the numeric half is :class:`~._columnwise_fourier.ColumnwiseFourier`)."""

import numpy as np

from ._labels import is_dataframe
from ._one_hot import OneHotLevels, column_values, grouped_counts, lookup_columns


class ColumnwiseCategories:
    """One-hot features of each categorical column on its own, for all
    columns at once.

    Column ``j`` has the delta kernel ``1[x = y]`` on its levels seen at fit
    (the ``max_categories - 1`` most frequent where there are more), a
    missing value (NaN, None, ``pd.NA``) one level of its own, and every
    other value (rarer levels, levels unseen at fit) one shared level:
    its MMD^2 is the squared distance of the two samples' level shares.
    Each column's block has the same width (the most levels of any column,
    plus the missing and the other level), and every row of a block has
    unit norm, so the statistics of all columns come from one product
    (:class:`~skmmd.two_sample._resampled.ColumnSums`). Levels are found by
    pandas' hashing, not a Python loop over the values.

    Parameters
    ----------
    columns : list
        The categorical columns (labels of a DataFrame, positions of an
        array).
    max_categories : int or None, default=100
        Most levels of a column, the shared other level included (as
        :class:`~skmmd.TabularSampler`'s); None keeps every level.

    Attributes
    ----------
    levels_ : list of pandas.Index
        Each column's kept levels, most frequent first (levels of equal
        counts in ``OneHotEncoder``'s sorted order).
    column_width_ : int
        Features per column: the most kept levels plus 2.
    n_columns_ : int
        The number of columns.
    """

    def __init__(self, columns, *, max_categories=100):
        self.columns = list(columns)
        self.max_categories = max_categories

    def _values(self, X):
        """Each of the map's columns' values (:func:`._one_hot.column_values`)."""
        return column_values(X[self.columns] if is_dataframe(X) else X[:, self.columns])

    def fit(self, X, y=None):
        import pandas as pd

        self.levels_ = []
        # Every column's levels and counts in one pass over the text columns
        # (:meth:`OneHotLevels.levels_of`, the table map's), not one hashing
        # of each column.
        selected = X[self.columns] if is_dataframe(X) else X[:, self.columns]
        for categories, counts in OneHotLevels.levels_of(selected):
            present = ~pd.isna(categories)
            categories, counts = categories[present], counts[present]
            few = self.max_categories is None or counts.size <= self.max_categories
            keep = counts.size if few else self.max_categories - 1
            order = np.argsort(-counts, kind="stable")[:keep]
            self.levels_.append(pd.Index(categories[order], dtype=categories.dtype))
        self.column_width_ = max(len(levels) for levels in self.levels_) + 2
        self.n_columns_ = len(self.columns)
        self._n_features_out = self.n_columns_ * self.column_width_
        return self

    def codes(self, X):
        """``(n, m)`` int64: each value's position in its column's block."""
        w = self.column_width_
        codes, missing = lookup_columns(self.levels_, self._values(X))
        unknown = codes < 0
        codes[unknown] = np.where(missing[unknown], w - 2, w - 1)
        return codes + w * np.arange(self.n_columns_)

    def transform(self, X):
        codes = self.codes(X)
        Z = np.zeros((codes.shape[0], self._n_features_out))
        np.put_along_axis(Z, codes, 1.0, axis=1)
        return Z

    def grouped_sums(self, X, groups, n_groups, out=None):
        """Features summed per group (counts of each level) without storing
        them; each row's squared norm is the number of columns."""
        if out is None:
            out = (np.zeros((n_groups, self._n_features_out)), np.zeros(n_groups))
        S, q = grouped_counts(self.codes(X), groups, n_groups, self._n_features_out)
        out[0][...] += S
        out[1][...] += q
        return out

    def subset(self, start, stop):
        """The fitted map of columns ``start:stop`` alone (the same kernels)."""
        part = ColumnwiseCategories(
            self.columns[start:stop], max_categories=self.max_categories
        )
        part.levels_ = self.levels_[start:stop]
        part.column_width_ = self.column_width_
        part.n_columns_ = stop - start
        part._n_features_out = part.n_columns_ * part.column_width_
        return part
