"""The parts of a table map's column transformer where scikit-learn's own
transformers would make wide tables slow: median imputation of the columns
that hold a missing value, the robust scaler's quartiles of all columns at
once, missingness indicators summed by counting and the clip of the scaled
values; the column transformer of all parts fitted without computing the
features of its fit rows, and its fitted parts mapped without its checks
and copies (:func:`prepared_parts`)."""

import warnings
from contextlib import contextmanager

import numpy as np
from scipy import sparse
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils.validation import check_array, check_is_fitted

from .._utils import _budgets
from .._utils._compat import (
    check_feature_names_in,
    handle_zeros_in_scale,
    validate_data,
)
from ._labels import is_dataframe
from ._values import float_values


def clip_far(Z):
    """Scaled values beyond +-1e12 (interquartile ranges; inf when a value near
    1e308 is divided by a small range) are as far as any: clipped there, so
    that the Fourier features stay finite. In place: ``Z`` is the scaler's
    own output, never the caller's data."""
    return np.clip(Z, -1e12, 1e12, out=Z)


class MedianFill(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """``SimpleImputer(strategy="median", keep_empty_features=True)``'s
    output, touching only the columns that hold a missing value: the medians
    of the full columns are taken at once, those of the others by NumPy's
    ``nanmedian``, rather than by the imputer's masked array's sort, costly
    on a wide numeric table. ``transform`` returns a new
    array, filled in place, which the table map's scaler then scales in
    place: one copy of a chunk's values, not one per step."""

    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan")
        return self._fit_values(X)

    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)`` from one read of ``X``'s values (a
        DataFrame's two reads would be the table map fit's largest arrays)."""
        values = _new_values(self, X, reset=True)
        return self._fit_values(values)._filled(values)

    def _fit_values(self, X):
        """Fit on the validated values ``X``, left as they are."""
        medians = np.zeros(X.shape[1])
        if X.shape[0]:
            # nanmedian goes column by column; the full columns, all at once
            # (a slice at a time, partitioned in place: no copy of them all)
            gaps = np.isnan(X).any(axis=0)
            full = np.flatnonzero(~gaps)
            for part in _budgets.column_slices(full.size, X.shape[0]):
                columns = X[:, full[part]]  # a copy, partitioned in place
                medians[full[part]] = np.median(columns, axis=0, overwrite_input=True)
            medians[gaps] = _gap_medians(X[:, gaps])
        self.statistics_ = np.where(np.isnan(medians), 0.0, medians)
        return self

    def transform(self, X):
        check_is_fitted(self)
        return self._filled(_new_values(self, X, reset=False))

    def transform_in_place(self, X):
        """``transform`` of a new array of values that the caller gives up:
        filled in place (a float64 array is not copied)."""
        check_is_fitted(self)
        values = validate_data(
            self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False
        )
        return self._filled(values)

    def _filled(self, X):
        """``X`` (a new array) with each missing value set to its column's
        median, in place."""
        gaps = np.isnan(X)
        for j in np.flatnonzero(gaps.any(axis=0)):
            X[gaps[:, j], j] = self.statistics_[j]
        return X


def _gap_medians(X):
    """``np.nanmedian(X, axis=0)`` of columns holding a missing value, NaN
    (no warning) for a column of missing values only: its fill becomes 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(X, axis=0)


def _new_values(estimator, X, reset):
    """``X``'s values as float64 (``validate_data``, NaN allowed) in an
    array of their own, which the caller may change in place: a copy only
    where they are ``X``'s own memory. A DataFrame's are read once, a part
    of its columns at a time, into one C-ordered array (scikit-learn's
    ``copy=True`` read a DataFrame twice to find that out: a wide table's
    largest arrays; and the Fourier map's bandwidth gathers rows, which a
    Fortran-ordered array would have it copy once more)."""
    if is_dataframe(X):
        validate_data(estimator, X, skip_check_array=True, reset=reset)
        values = _frame_values(X, range(X.shape[1]), order="C")
        return check_array(values, ensure_all_finite="allow-nan", copy=False)
    values = validate_data(
        estimator, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=reset
    )
    if values.flags.writeable and not np.may_share_memory(values, np.asarray(X)):
        return values
    return values.copy()


class MedianQuartiles(MedianFill):
    """:class:`MedianFill` and then ``RobustScaler()`` (centred on the median,
    scaled by the interquartile range) as one step: the imputer's medians
    and the scaler's ``center_`` and ``scale_``, bit for bit those of the
    two (``SimpleImputer``, then ``RobustScaler`` on its output), from one
    partition of each column (a full column's median is both its fill and
    its centre, where the two steps partitioned every column twice).
    ``transform`` fills and scales one new array in place: one copy of a
    chunk's values, not one per step."""

    def _fit_values(self, X):
        """Fit on the validated values ``X``, left as they are."""
        m = X.shape[1]
        self.center_, low, high = np.empty((3, m))
        gaps = np.isnan(X).any(axis=0)
        full, gappy = np.flatnonzero(~gaps), np.flatnonzero(gaps)
        # A slice of the full columns at a time: copies of a slice, not of all.
        for part in _budgets.column_slices(full.size, X.shape[0]):
            columns = full[part]
            self.center_[columns], (low[columns], high[columns]) = (
                _median_and_quantiles(X[:, columns], (25.0, 75.0))
            )
        medians = self.center_.copy()
        medians[gappy] = _gap_medians(X[:, gappy])
        self.statistics_ = np.where(np.isnan(medians), 0.0, medians)
        if gappy.size:  # the scaler's statistics of the filled columns
            filled = X[:, gappy]  # a copy, filled in place
            np.copyto(filled, self.statistics_[gappy], where=np.isnan(filled))
            for part in _budgets.column_slices(gappy.size, X.shape[0]):
                columns = gappy[part]
                self.center_[columns], (low[columns], high[columns]) = (
                    _median_and_quantiles(filled[:, part], (25.0, 75.0))
                )
        self.scale_ = handle_zeros_in_scale(high - low, copy=False)
        return self

    def _filled(self, X):
        """``X`` (a new array) filled (:meth:`MedianFill._filled`), centred and
        scaled in place, as ``RobustScaler(copy=False).transform`` does."""
        X = super()._filled(X)
        X -= self.center_
        X /= self.scale_
        return X


def _median_and_quantiles(X, percents):
    """``np.median(X, axis=0)`` and ``np.percentile(X, percents, axis=0)``
    (its linear interpolation) of an array without NaN, bit for bit, from
    one partition of one copy: NumPy's two calls each copy and partition it.
    The median is the mean of the middle order statistics (one for an odd
    number of rows); a percentile interpolates between the order statistics
    around ``(n - 1) q`` as NumPy's ``_lerp`` does."""
    n = X.shape[0]
    virtual = (n - 1) * np.true_divide(np.asarray(percents, dtype=np.float64), 100)
    previous = np.floor(virtual)
    following = previous + 1
    previous[virtual >= n - 1] = following[virtual >= n - 1] = -1
    previous[virtual < 0] = following[virtual < 0] = 0
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    t = (virtual - previous)[:, None]
    half = n // 2
    middle = [half - 1, half] if n % 2 == 0 else [half]
    kth = np.unique(np.concatenate([previous, following, middle]) % n)
    X = np.partition(X, kth, axis=0)
    median = np.mean(X[middle[0] : middle[-1] + 1], axis=0)
    a, b = X[previous], X[following]
    diff = b - a
    quantiles = np.add(a, diff * t)
    np.subtract(b, diff * (1 - t), out=quantiles, where=t >= 0.5)
    return median, quantiles


class MissingFlags(TransformerMixin, BaseEstimator):
    """``MissingIndicator(features="all")``'s output and feature names (one
    0/1 column per input column, 1 where the value is NaN), whose sums per
    group are counts of the missing values: the indicator rows are never
    built, and a wide table's chunk is not validated column by column again."""

    def fit(self, X, y=None):
        # A DataFrame's width and names are all the fit keeps: its values are
        # read, and checked, by transform (not converted here as well).
        if is_dataframe(X):
            validate_data(self, X, skip_check_array=True)
        else:
            validate_data(self, X, dtype=None, ensure_all_finite="allow-nan")
        return self

    def transform(self, X):
        check_is_fitted(self, "n_features_in_")
        X = validate_data(
            self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False
        )
        return np.isnan(X)

    def grouped_sums(self, V, groups, n_groups):
        """The indicators summed per group, and their squared norms (each
        row's number of missing values) summed per group, from the
        missing values' positions; ``V`` is the part's values."""
        gaps = np.isnan(float_values(V))
        S = np.zeros((n_groups, gaps.shape[1]))
        for j in np.flatnonzero(gaps.any(axis=0)):
            S[:, j] = np.bincount(groups[gaps[:, j]], minlength=n_groups)
        q = np.bincount(groups, weights=gaps.sum(axis=1), minlength=n_groups)
        return S, q.astype(np.float64)

    def sums_and_head(self, V, groups, n_groups, n_rows, R):
        """:meth:`grouped_sums` ``(S, q)``, and the indicators of the first
        ``n_rows`` rows times ``R`` (``(n_features_in_, k)``): ``(S, q,
        head)``."""
        S, q = self.grouped_sums(V, groups, n_groups)
        head = np.isnan(float_values(V)[:n_rows]) @ R
        return S, q, head

    def get_feature_names_out(self, input_features=None):
        """``"missingindicator_{column}"`` per input column (MissingIndicator's
        names)."""
        check_is_fitted(self, "n_features_in_")
        names = check_feature_names_in(self, input_features)
        return np.asarray([f"missingindicator_{name}" for name in names], dtype=object)


def part_sums_and_head(part, V, grouping, P, R):
    """A table map's part's grouped sums of ``V`` (``grouping = (groups,
    n_groups)``), and its features of ``V``'s first ``len(P)`` rows added
    into ``P``, times ``R`` (None: as they are): the Fourier part's from
    the features its sums compute (the Fourier, one-hot and missing-value
    parts' ``sums_and_head``), another's mapped (a few rows)."""
    if not P.shape[0]:
        return part.grouped_sums(V, *grouping)
    if R is not None and hasattr(part, "sums_and_head"):
        *sums, head = part.sums_and_head(V, *grouping, P.shape[0], R)
        P += head
        return sums
    # A part of the rows at a time (features within PART_ENTRIES): the
    # stream's sums are held meanwhile.
    width = P.shape[1] if R is None else R.shape[0]
    step = max(1, _budgets.PART_ENTRIES // max(width, 1))
    for lo in range(0, P.shape[0], step):
        rows = slice(lo, min(lo + step, P.shape[0]))
        features = part.transform(V.iloc[rows] if is_dataframe(V) else V[rows])
        P[rows] += features if R is None else features @ R
    return part.grouped_sums(V, *grouping)


class _Measured(TransformerMixin, BaseEstimator):
    """A part inside :func:`fit_parts`: ``fit_transform`` fits a clone of
    ``estimator`` and returns, instead of its features, an all-zero sparse
    matrix of their shape: the column transformer reads only the widths."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y=None):
        self.estimator_ = clone(self.estimator).fit(X, y)
        return self

    def transform(self, X):
        return self.estimator_.transform(X)

    def fit_transform(self, X, y=None):
        self.fit(X, y)
        shape = (X.shape[0], len(self.estimator_.get_feature_names_out()))
        if not shape[0] * shape[1]:  # empty: dense (no density of 0 entries)
            return np.zeros(shape)
        return sparse.csr_matrix(shape)


def fit_parts(column_transformer, X):
    """``column_transformer`` fitted on ``X``, as ``fit`` fits it, without
    the features of ``X`` that its ``fit`` computes and stacks (``fit`` is
    ``fit_transform``), which on a wide table would hold two copies of
    them, its largest arrays, and spend time on features nobody reads. Every
    part is fitted on the same columns as by ``fit``; afterwards the
    transformer holds the parts themselves, as if ``fit`` had run."""
    parts = column_transformer.transformers
    column_transformer.set_params(
        transformers=[(name, _Measured(t), columns) for name, t, columns in parts]
    )
    try:
        column_transformer.fit(X)
    finally:
        column_transformer.set_params(transformers=parts)
    column_transformer.transformers_ = [
        (name, t.estimator_ if isinstance(t, _Measured) else t, columns)
        for name, t, columns in column_transformer.transformers_
    ]
    column_transformer.sparse_output_ = False  # the parts' features are dense
    return column_transformer


@contextmanager
def names_checked():
    """Silence scikit-learn's "X does not have valid feature names" while the
    numeric part's steps, fitted on the DataFrame's columns, take the
    part's values as one array: the names were checked against ``fit``'s
    by the sampler itself."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "X does not have valid feature names")
        yield


def prepared_parts(column_transformer, X):
    """``(name, part, V)`` for each fitted part of a table map's
    ``column_transformer`` on checked ``X``: the map of the part's features
    of ``V``, as the column transformer's ``transform`` would (without its
    checks and per-part copies). The numeric columns are read once, into
    one array of this chunk's own (a part of the columns at a time), for
    two parts: first the missing values', then the numeric part's, which
    prepares them in place (imputed, scaled, clipped) for the Fourier map:
    a wide chunk's numeric values are held once, not beside a prepared copy.
    The parts come in that order (the missing values first), the
    categorical last; callers whose rounding depends on the order add their
    results in the column transformer's."""
    frame = is_dataframe(X)
    rank = {"missing": 0, "numeric": 1}
    parts = sorted(
        (b for b in column_transformer.transformers_ if b[0] != "remainder"),
        key=lambda b: rank.get(b[0], 2),
    )
    numbers = None
    for name, part, columns in parts:
        if name == "categorical":  # counted from the levels' positions
            yield name, part, X.iloc[:, columns] if frame else X[:, columns]
            continue
        if numbers is None:  # a new array: an array's columns taken (a copy)
            numbers = (
                _frame_values(X, columns, order="F")  # pandas' to_numpy layout
                if frame
                else np.asarray(X[:, columns], dtype=np.float64)
            )
        if name == "numeric":  # prepared in place, then the Fourier map
            prepared, numbers = part[0].transform_in_place(numbers), None
            if len(part) > 2:
                prepared = part[1:-1].transform(prepared)
            yield name, part[-1], prepared
            del prepared
        else:  # the missing values
            yield name, part, numbers


def _frame_values(X, columns, order):
    """The float64 values of DataFrame ``X``'s ``columns`` (positions; NaN
    where missing) in a new array of ``order``, read a part of the columns
    at a time (no copy of the frame's block beside the array)."""
    columns = list(columns)
    values = np.empty((X.shape[0], len(columns)), order=order)
    for part in _budgets.column_slices(len(columns), X.shape[0], _budgets.PART_ENTRIES):
        taken = columns[part]
        if taken == list(range(taken[0], taken[-1] + 1)):  # a view, not a take
            taken = slice(taken[0], taken[-1] + 1)
        values[:, part] = X.iloc[:, taken].to_numpy(dtype=np.float64, na_value=np.nan)
    return values
