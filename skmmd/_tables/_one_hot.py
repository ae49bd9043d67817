"""The categorical block of :class:`~skmmd.TabularSampler`: scikit-learn's
``OneHotEncoder(handle_unknown="ignore", max_categories=k,
sparse_output=False)`` (the same categories, order, infrequent column,
features and names), with the levels found and looked up by pandas' hashing
instead of a Python loop over the values, which on text columns would cost
more than the rest of a table test (``benchmarks/bench_mixed_tables.py``)."""

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted


def column_values(X):
    """Each column's values: a DataFrame's Series (pandas hashes them in
    their own storage, without a Python object per value), an array's
    columns."""
    if hasattr(X, "iloc"):
        return [column for _, column in X.items()]
    X = np.asarray(X)
    return [X[:, j] for j in range(X.shape[1])]


def _objects(values):
    """A column as the array OneHotEncoder reads: a pandas category or
    string column as objects, NaN where missing."""
    if not hasattr(values, "iloc"):
        return values
    if values.dtype.name == "category":
        return values.to_numpy(dtype=object)
    return values.to_numpy()


def _categories(values):
    """OneHotEncoder's categories of one column and their counts: numbers
    sorted by ``np.unique`` (NaN last); objects sorted, then None, then NaN.
    A pandas string column is counted in its own storage (its missing
    values are all NaN)."""
    import pandas as pd

    if hasattr(values, "iloc") and isinstance(values.dtype, pd.StringDtype):
        counts = values.value_counts(dropna=True, sort=False)
        n_missing = values.size - int(counts.sum())
        counts = counts.sort_index()
        categories = list(counts.index) + [np.nan] * (n_missing > 0)
        tallies = list(counts.to_numpy()) + [n_missing] * (n_missing > 0)
        return _object_array(categories), np.array(tallies, dtype=np.int64)
    values = _objects(values)
    if values.dtype != object:
        return np.unique(values, return_counts=True)
    missing = pd.isna(values)
    counts = pd.Series(values[~missing], dtype=object).value_counts(sort=False)
    order = sorted(range(counts.size), key=counts.index.__getitem__)
    categories = [counts.index[i] for i in order]
    tallies = [int(counts.iloc[i]) for i in order]
    if missing.any():
        none = np.fromiter((v is None for v in values[missing]), bool, missing.sum())
        for kind, count in ((None, none.sum()), (np.nan, (~none).sum())):
            if count:
                categories.append(kind)
                tallies.append(int(count))
    return _object_array(categories), np.array(tallies, dtype=np.int64)


def _text_levels(columns):
    """:func:`_categories` of pyarrow text columns of equal length, hashed
    together in one pass (:func:`_encoded`) and counted by one
    ``bincount``: each column's levels sorted as pandas sorts them (by
    code point), then NaN for its missing values."""
    codes, uniques = _encoded(columns)
    width = len(uniques) + 1  # the last entry counts the missing values
    _stack_codes(codes, len(uniques))
    counts = np.bincount(codes.ravel(), minlength=len(columns) * width)
    counts = counts.reshape(len(columns), width)
    order = np.array(sorted(range(len(uniques)), key=uniques.__getitem__), dtype=int)
    for tally in counts:
        present = order[tally[order] > 0]
        gaps = int(tally[-1] > 0)
        categories = [uniques[u] for u in present] + [np.nan] * gaps
        tallies = np.concatenate([tally[present], tally[-1:][:gaps]])
        yield _object_array(categories), tallies.astype(np.int64)


def _object_array(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def lookup(index, values):
    """Each value's position in ``index`` (-1 if absent; a missing value at
    the index's missing entry), and where values are missing: hashing the
    distinct values once (``pd.factorize``), then looking up only those."""
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return _positions_of(index, codes, index.get_indexer(uniques))


def lookup_columns(indexes, columns):
    """:func:`lookup` of every column in its index: ``(positions, missing)``,
    each ``(n, m)``. Text columns held by pyarrow are hashed together, in one
    pass over all their values (``dictionary_encode`` of their
    concatenation): per column, only its few distinct values are looked up.
    Other columns are looked up one by one. The positions are those of
    :func:`lookup` column by column."""
    n = len(columns[0]) if columns else 0
    positions = np.empty((n, len(columns)), dtype=np.int64)
    missing = np.empty((n, len(columns)), dtype=bool)
    arrow = []
    for j, values in enumerate(columns):
        if _arrow_strings(values):
            arrow.append(j)
        else:
            positions[:, j], missing[:, j] = lookup(indexes[j], values)
    if arrow:
        codes, uniques = _encoded([columns[j] for j in arrow])
        where = {value: u for u, value in enumerate(uniques)}
        # Every column's positions of the distinct values side by side, and
        # of a missing value: one gather for all columns.
        found = np.empty((len(arrow), len(uniques) + 1), dtype=np.int64)
        for k, j in enumerate(arrow):
            found[k, :-1] = _found(indexes[j], where, len(uniques))
            found[k, -1] = _missing_at(indexes[j])
        missing[:, arrow] = _stack_codes(codes, len(uniques)).T
        positions[:, arrow] = found.ravel().take(codes).T
    return positions, missing


def _stack_codes(codes, n_distinct):
    """``codes`` ((k, n), from :func:`_encoded`) made positions in one flat
    table of ``n_distinct + 1`` entries per column, the last a missing
    value's, in place; returns where values are missing."""
    gaps = codes < 0
    codes[gaps] = n_distinct
    codes += np.arange(codes.shape[0])[:, None] * (n_distinct + 1)
    return gaps


def _missing_at(index):
    """The position of the missing value in ``index``, -1 if it has none."""
    import pandas as pd

    return int(np.flatnonzero(pd.isna(index))[0]) if index.hasnans else -1


def _found(index, where, size):
    """``index.get_indexer(uniques)`` for text ``uniques`` (``where``: each
    one's position among them), read from the index's few levels: a
    column's index is looked up in the chunk's values, not each of the
    chunk's distinct values (of all columns) in the index."""
    found = np.full(size, -1, dtype=np.intp)
    for position, level in enumerate(index.tolist()):  # unique levels
        u = where.get(level) if isinstance(level, str) else None
        if u is not None:
            found[u] = position
    return found


def _arrow_strings(values):
    """Whether ``values`` is a pandas text column held by pyarrow."""
    import pandas as pd

    dtype = getattr(values, "dtype", None)
    return isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"


def _encoded(columns):
    """``(codes, uniques)`` of pyarrow text columns of equal length, as
    ``pd.factorize`` gives them but over all the columns at once: ``codes``
    ``(m, n)``, -1 where missing, into the list of ``uniques``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = []
    for values in columns:
        stored = pa.array(values.array)  # pandas' own arrays, no copy
        parts = stored.chunks if isinstance(stored, pa.ChunkedArray) else [stored]
        chunks += [part.cast(pa.large_string()) for part in parts]
    # Encoded as chunks (not one concatenated copy of the text): the chunks
    # of the result share one dictionary.
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, pa.large_string()))
    indices = pa.chunked_array([c.indices for c in encoded.chunks], pa.int32())
    codes = pc.fill_null(indices, -1).to_numpy()
    codes = codes.astype(np.int64).reshape(len(columns), len(columns[0]))
    return codes, [] if not encoded.num_chunks else encoded.chunks[
        0
    ].dictionary.to_pylist()


def _positions_of(index, codes, found):
    """:func:`lookup`'s result from a column's ``codes`` into distinct
    values whose positions in ``index`` are ``found``."""

    out = found[codes] if found.size else np.full(codes.shape, -1)
    missing = codes < 0
    if missing.any():
        out[missing] = _missing_at(index)
    return out, missing


def grouped_counts(positions, groups, n_groups, width):
    """One-hot rows of ``width`` given by their ones' ``positions`` (n, k;
    -1: none) summed per group, and their squared norms (their ones) summed
    per group, counted without building the rows."""
    known = positions >= 0
    groups = np.asarray(groups, dtype=np.int64)
    flat = (groups[:, None] * width + positions)[known]
    S = np.bincount(flat, minlength=n_groups * width).reshape(n_groups, width)
    q = np.bincount(groups, weights=known.sum(axis=1), minlength=n_groups)
    return S.astype(np.float64), q


def one_hot_rows(positions, width):
    """The one-hot rows of ``width`` given by their ones' ``positions`` (n, k;
    -1: none), as a sparse CSR matrix."""
    known = positions >= 0
    columns = positions[known]
    indptr = np.concatenate([[0], np.cumsum(known.sum(axis=1))])
    shape = (positions.shape[0], width)
    return sparse.csr_matrix((np.ones(columns.size), columns, indptr), shape=shape)


def _infrequent(counts, max_categories):
    """OneHotEncoder's infrequent categories (positions), or an empty array:
    all but the ``max_categories - 1`` most frequent, ties in the order of
    the categories, when there are at least ``max_categories``."""
    if max_categories is None or counts.size + 1 <= max_categories:
        return np.zeros(0, dtype=np.int64)
    keep = max_categories - 1
    if keep == 0:
        return np.arange(counts.size)
    return np.sort(np.argsort(counts, kind="mergesort")[:-keep])


class OneHotLevels(TransformerMixin, BaseEstimator):
    """One-hot features of categorical columns, as scikit-learn's
    ``OneHotEncoder(handle_unknown="ignore", max_categories=max_categories,
    sparse_output=False)`` computes them (unknown values: a row of zeros;
    the rarer categories of a column with ``max_categories`` or more share
    its last column), found and looked up by hashing.

    Parameters
    ----------
    max_categories : int or None, default=None
        Most output columns per input column, the infrequent one included.
    levels : list of tuple or None, default=None
        Each column's ``(categories, counts)`` found on other rows
        (:meth:`levels_of`); ``fit`` then takes them instead of its rows'
        (a map fit on some rows keeps every category of all of them).

    Attributes
    ----------
    categories_ : list of ndarray
        Each column's categories, in OneHotEncoder's order.
    n_features_in_ : int
        Columns seen during ``fit``.
    """

    def __init__(self, *, max_categories=None, levels=None):
        self.max_categories = max_categories
        self.levels = levels

    @staticmethod
    def levels_of(X):
        """Each column's ``(categories, counts)`` in ``X``: text columns held
        by pyarrow counted together (:func:`_text_levels`), others one by
        one (:func:`_categories`)."""
        columns = column_values(X)
        levels = [None if _arrow_strings(v) else _categories(v) for v in columns]
        text = [j for j, found in enumerate(levels) if found is None]
        if text:
            for j, found in zip(text, _text_levels([columns[j] for j in text])):
                levels[j] = found
        return levels

    def fit(self, X, y=None):
        import pandas as pd

        self.n_features_in_ = X.shape[1]
        if hasattr(X, "columns"):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.categories_, self._index, self._slots = [], [], []
        levels = self.levels_of(X) if self.levels is None else self.levels
        for categories, counts in levels:
            infrequent = _infrequent(counts, self.max_categories)
            frequent = np.setdiff1d(np.arange(categories.size), infrequent)
            slots = np.empty(categories.size, dtype=np.int64)
            slots[frequent] = np.arange(frequent.size)
            slots[infrequent] = frequent.size
            self.categories_.append(categories)
            self._index.append(pd.Index(categories, dtype=categories.dtype))
            self._slots.append((slots, frequent, infrequent))
        self._widths = [f.size + (i.size > 0) for _, f, i in self._slots]
        return self

    def _positions(self, X):
        """``(n, n_columns)``: each value's output column, -1 where unknown."""
        check_is_fitted(self)
        codes, _ = lookup_columns(self._index, column_values(X))
        # Every column's output columns of its categories in one array, a
        # last entry -1 for the unknown: one gather for all columns.
        offsets = np.cumsum([0, *self._widths[:-1]])
        slots = [offset + s for (s, _, _), offset in zip(self._slots, offsets)]
        flat = np.concatenate([*slots, [-1]]).astype(np.int64)
        starts = np.cumsum([0, *(s.size for s in slots[:-1])])
        known = codes >= 0
        codes += starts
        codes[~known] = flat.size - 1
        return flat.take(codes)

    def transform(self, X):
        positions = self._positions(X)
        Z = np.zeros((positions.shape[0], sum(self._widths)))
        rows, columns = np.nonzero(positions >= 0)
        Z[rows, positions[rows, columns]] = 1.0
        return Z

    def grouped_sums(self, X, groups, n_groups):
        """``transform(X)`` summed per group and the rows' squared norms
        summed per group, counted from the values' positions (the one-hot
        rows are never stored)."""
        return grouped_counts(self._positions(X), groups, n_groups, sum(self._widths))

    def sums_and_head(self, X, groups, n_groups, n_rows, R):
        """:meth:`grouped_sums` ``(S, q)``, and the features of the first
        ``n_rows`` rows times ``R`` (``(width, k)``), from the same positions:
        ``(S, q, head)``. The values are looked up once; the head is the
        sparse one-hot rows times ``R``."""
        positions = self._positions(X)
        width = sum(self._widths)
        S, q = grouped_counts(positions, groups, n_groups, width)
        return S, q, one_hot_rows(positions[:n_rows], width) @ R

    def get_feature_names_out(self, input_features=None):
        """``"{column}_{category}"`` per output column, and
        ``"{column}_infrequent_sklearn"`` for the shared one (OneHotEncoder's
        names)."""
        check_is_fitted(self)
        if input_features is None:
            input_features = getattr(
                self,
                "feature_names_in_",
                [f"x{j}" for j in range(self.n_features_in_)],
            )
        names = []
        for name, categories, (_, frequent, infrequent) in zip(
            input_features, self.categories_, self._slots
        ):
            names += [f"{name}_{c}" for c in categories[frequent]]
            if infrequent.size:
                names.append(f"{name}_infrequent_sklearn")
        return np.asarray(names, dtype=object)
