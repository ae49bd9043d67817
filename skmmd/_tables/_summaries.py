"""Bounded summaries of the columns of two samples, gathered batch by batch in
the pass that reads them: what a report draws, without a second read.

Per column and sample: the rows seen, the missing values, and a histogram
(numbers, datetimes and timedeltas as seconds) or category counts. Memory is
``O(columns x (n_bins + max_categories))`` whatever the number of rows.
"""

from numbers import Integral

import numpy as np

from .._utils._compat import Interval, validate_params
from ._kinds import numeric_column
from ._labels import is_dataframe
from ._values import missing_value, seconds, series_seconds

# The bins span the first batch's pooled range, or its quantiles at these
# levels where the range is more than _FAR times theirs, so that a few extreme
# values do not squash every other into one bin.
_TAIL, _FAR = 0.001, 2.0
_SAMPLE = 2**17  # values of the first batch the quantiles are estimated from


class ColumnSummaries:
    """Histograms, category counts and missing values of two samples' columns.

    Call :meth:`update` with every pair of batches, in the pass that feeds the
    test; the summaries stay bounded however many rows go through.

    Parameters
    ----------
    n_bins : int, default=30
        Bins of a numeric column's histogram, at most (about the square
        root of the first batch's rows when that is fewer, at least 5).
    max_categories : int, default=50
        Categories counted by name per column; later new ones are counted
        together as ``"(other)"``.

    Attributes
    ----------
    columns_ : list of str
        The column names, in the order of the batches' columns.
    n_rows_ : ndarray of shape (2,)
        Rows seen of each sample.

    Notes
    -----
    A numeric column's bins are equal bins over the range of the first
    batch with any of its values (both samples pooled), or between its 0.1 %
    and 99.9 % quantiles where the range is more than twice as wide (far
    values: the quantiles are estimated from an even subsample of at most
    131072 values); values outside the bins, in that batch or later ones, are
    counted in an underflow and an overflow bin at the two ends. In memory the
    first batch is all the data. A column is numeric or categorical as the
    test's table map reads it, from its first batch: by its dtype (numbers,
    datetimes and timedeltas, the latter two as seconds, are numeric;
    booleans, strings and other objects categorical), an array's column of
    objects by its values (numbers and missing values only: numeric).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.inspection import ColumnSummaries
    >>> rng = np.random.default_rng(0)
    >>> summaries = ColumnSummaries(n_bins=10)
    >>> for _ in range(3):  # three batches of each sample
    ...     summaries = summaries.update(rng.normal(size=(100, 2)),
    ...                                  rng.normal(size=(80, 2)) + 1)
    >>> summaries.columns_, summaries.n_rows_.tolist()
    (['0', '1'], [300, 240])
    >>> summaries.summary("0")["counts"].sum(axis=1).tolist()
    [300, 240]
    """

    @validate_params(
        {
            "n_bins": [Interval(Integral, 1, None, closed="left")],
            "max_categories": [Interval(Integral, 1, None, closed="left")],
        },
        prefer_skip_nested_validation=True,
    )
    def __init__(self, n_bins=30, max_categories=50):
        self.n_bins = n_bins
        self.max_categories = max_categories

    def update(self, X, Y, names=None):
        """Add a batch of each sample (either may have no rows).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows_x, n_columns)
            Rows of the first sample (the reference).
        Y : DataFrame or array-like of shape (n_rows_y, n_columns)
            Rows of the second sample (the current data), same columns.
        names : list of str, default=None
            Column names (default: a DataFrame's, else the positions).

        Returns
        -------
        self : ColumnSummaries
            The summaries, updated.
        """
        X, Y = _columns(X), _columns(Y)
        if names is None:
            names = [str(c) for c in X]
        if not hasattr(self, "columns_"):
            self.columns_ = list(map(str, names))
            self.n_rows_ = np.zeros(2, dtype=np.int64)
            self._state = dict.fromkeys(self.columns_)
        self.n_rows_ += [_n_rows(X), _n_rows(Y)]
        for name, x, y in zip(self.columns_, X.values(), Y.values()):
            state = self._state[name]
            if state is None and len(x) + len(y):  # the column's first rows
                numeric = numeric_column(x if len(x) else y)
                state = _Histogram(self.n_bins) if numeric else None
                state = state or _Categories(self.max_categories)
                self._state[name] = state
            if state is not None:
                state.add(x, y)
        return self

    def summary(self, column):
        """One column's summary.

        Parameters
        ----------
        column : str
            A name of ``columns_``.

        Returns
        -------
        summary : dict
            ``kind`` ("numeric" or "categorical"), ``rows`` and ``missing``
            (arrays of shape (2,): per sample), ``counts`` of shape (2, k) and
            ``labels``: for numbers the bin ``edges`` too (``n_bins + 1``) and
            ``counts`` with the underflow first and the overflow last (``k =
            n_bins + 2``); for categories the names, most frequent (pooled)
            first, ties by name, ``"(other)"`` last.
        """
        if not hasattr(self, "columns_") or column not in self._state:
            raise KeyError(f"no summary of column {column!r}.")
        state = self._state[column]
        if state is None:
            state = _Categories(self.max_categories)
        return {"rows": self.n_rows_.copy(), **state.summary()}


def _columns(X):
    """``{label: 1-D values}`` of a DataFrame or a 2-D array."""
    if is_dataframe(X):
        return dict(X.items())
    X = np.asarray(X)
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    return {str(j): X[:, j] for j in range(X.shape[1])}


def _n_rows(columns):
    return len(next(iter(columns.values()))) if columns else 0


def _numbers(values):
    """Float values of a numeric column (missing values as NaN)."""
    if hasattr(values, "iloc"):
        if values.dtype.kind in "Mm":  # a time zone's datetimes in UTC
            return series_seconds(values)
        values = values.to_numpy(dtype=None)
    values = np.asarray(values)
    if values.dtype.kind in "Mm":
        return seconds(values)
    if values.dtype == object:  # pandas' nullable dtypes: pd.NA as NaN
        return np.array(
            [np.nan if missing_value(v) else v for v in values], dtype=float
        )
    return values.astype(np.float64, copy=False)


class _Histogram:
    """Counts in equal bins fixed by the first batch, with under- and overflow."""

    def __init__(self, n_bins):
        self.n_bins = n_bins
        self.edges = None
        self.counts = np.zeros((2, n_bins + 2), dtype=np.int64)
        self.missing = np.zeros(2, dtype=np.int64)

    def _set_bins(self, x, y):
        """The bins of the first batch: its pooled range, or its tail
        quantiles (from at most ``_SAMPLE`` of its values) if that is far."""
        low = high = 0.0
        with np.errstate(invalid="ignore"):
            parts = [v for v in (x, y) if v.size and not np.isnan(v).all()]
            if parts:
                low = min(np.nanmin(v) for v in parts)
                high = max(np.nanmax(v) for v in parts)
        if not (np.isfinite(low) and np.isfinite(high)):  # infinities: rare
            finite = np.concatenate([v[np.isfinite(v)] for v in (x, y)])
            low, high = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
        size = x.size + y.size
        if size and high > low:
            step = max(1, size // _SAMPLE)
            sample = np.concatenate([x[::step], y[::step]])
            sample = sample[np.isfinite(sample)]
            q_low, q_high = np.quantile(sample, [_TAIL, 1 - _TAIL])
            if high - low > _FAR * (q_high - q_low):  # far values: the tails
                low, high = q_low, q_high
        if not high > low:  # one value: a bin around it
            pad = max(abs(low) * 0.05, 0.5)
            low, high = low - pad, high + pad
        # Fewer bins for few rows (about sqrt(rows)), so each holds some.
        n_bins = int(min(self.n_bins, max(5, np.sqrt(size))))
        self.edges = np.linspace(low, high, n_bins + 1)
        self.counts = np.zeros((2, n_bins + 2), dtype=np.int64)

    def add(self, x, y):
        x, y = _numbers(x), _numbers(y)
        if self.edges is None:
            self._set_bins(x, y)
        n_bins = self.edges.size - 1
        low, high = self.edges[0], self.edges[-1]
        for i, values in enumerate((x, y)):
            nan = np.isnan(values)
            n_nan = int(np.count_nonzero(nan))
            if n_nan:
                values = values[~nan]
            self.missing[i] += n_nan
            # Bin k of [0, n_bins) is slot k + 1, the tails (and +-inf) slots 0
            # and n_bins + 1; values at the top edge (k = n_bins up to
            # rounding) belong to the last bin.
            with np.errstate(invalid="ignore", over="ignore"):
                k = (values - low) * (n_bins / (high - low))
            np.floor(k, out=k)
            np.clip(k, -1, n_bins, out=k)
            k += 1
            counts = np.bincount(k.astype(np.intp), minlength=n_bins + 2)
            above = np.count_nonzero(values > high)
            counts[-2] += counts[-1] - above
            counts[-1] = above
            self.counts[i] += counts

    def summary(self):
        labels = ["below"] + [f"{e:.4g}" for e in self.edges[:-1]] + ["above"]
        return {
            "kind": "numeric",
            "edges": self.edges.copy(),
            "counts": self.counts.copy(),
            "labels": labels,
            "missing": self.missing.copy(),
        }


class _Categories:
    """Counts by category name, the first ``max_categories`` names seen."""

    def __init__(self, max_categories):
        self.max_categories = max_categories
        self.counts = {}
        self.missing = np.zeros(2, dtype=np.int64)

    def add(self, x, y):
        for i, values in enumerate((x, y)):
            names, counts, n_missing = _value_counts(values)
            self.missing[i] += n_missing
            for name, count in zip(names, counts):
                if name not in self.counts:
                    full = len(self.counts) >= self.max_categories
                    name = "(other)" if full else name
                    self.counts.setdefault(name, np.zeros(2, dtype=np.int64))
                self.counts[name][i] += count

    def summary(self):
        # Most frequent first, ties by name, "(other)" last: one order
        # whatever the order the rows came in.
        labels = sorted(
            self.counts,
            key=lambda k: (k == "(other)", -self.counts[k].sum(), str(k)),
        )
        counts = np.array([self.counts[k] for k in labels], dtype=np.int64)
        return {
            "kind": "categorical",
            "counts": counts.T.reshape(2, len(labels)),
            "labels": labels,
            "missing": self.missing.copy(),
        }


def _value_counts(values):
    """``(names, counts, n_missing)`` of a column's values, names as strings."""
    if hasattr(values, "value_counts"):  # pandas: fast for categoricals
        counts = values.value_counts(dropna=True, sort=False)
        n_missing = int(len(values) - counts.sum())
        counts = counts[counts > 0]
        return [str(k) for k in counts.index], counts.to_numpy(), n_missing
    values = np.asarray(values, dtype=object)
    missing = np.array([missing_value(v) for v in values], dtype=bool)
    names, counts = np.unique(values[~missing].astype(str), return_counts=True)
    return list(names), counts, int(missing.sum())
