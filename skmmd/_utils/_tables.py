"""The input contract of tables: which DataFrames the library takes, and the
dtypes their columns are read as.

Every entry that takes a DataFrame (the tests' samples, ``TabularSampler``,
the online detector through its transformer, the CLI's files) checks its
column labels here, so the same table gets the same answer everywhere:

- labels are unique and flat (no MultiIndex), all strings or none (scikit-
  learn stores string names as ``feature_names_in_``; other labels, e.g.
  integers in any order, are kept as they are and columns are used by
  position);
- datetime and timedelta columns are numbers (seconds; NaT is missing);
  pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``, ``string``)
  keep their kind, their ``pd.NA`` is a missing value.
"""

from numbers import Number

import numpy as np


def is_dataframe(X):
    """Whether ``X`` is a pandas-like DataFrame."""
    return hasattr(X, "columns") and hasattr(X, "iloc")


def column_labels(X):
    """The column labels of DataFrame ``X``, a list made in one call: a
    pandas 3 text ``Index`` (held by pyarrow) iterated in Python yields
    its labels one at a time, about a microsecond each, and a wide table's
    checks list them many times."""
    return X.columns.tolist()


def dtypes_by_label(X):
    """``{label: dtype}`` of DataFrame ``X``'s columns (:func:`column_labels`)."""
    return dict(zip(column_labels(X), X.dtypes.tolist()))


def float_values(X):
    """The values of numeric columns (a DataFrame's, read once, or an array)
    as float64, NaN where missing (pandas' ``pd.NA`` included); a float64
    array is not copied."""
    if is_dataframe(X):
        return X.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(X, dtype=np.float64)


def numeric_array_column(column):
    """Whether an ndarray column holds numbers (or None/NaN) only."""
    if column.dtype.kind in "iuf":
        return True
    if column.dtype.kind != "O" or any(isinstance(v, (bool, np.bool_)) for v in column):
        return False
    try:
        column.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


def numeric_series(column):
    """Whether a pandas column holds numbers (booleans are categories;
    datetimes and timedeltas are numbers, see :func:`canonical`)."""
    return numeric_dtype(column.dtype)


def numeric_dtype(dtype):
    """:func:`numeric_series` of a column of ``dtype`` (read from a table's
    ``dtypes``, without taking its columns one by one)."""
    import pandas as pd  # only reached with a DataFrame

    types = pd.api.types
    if types.is_bool_dtype(dtype):
        return False
    return (
        types.is_numeric_dtype(dtype)
        or types.is_datetime64_any_dtype(dtype)
        or types.is_timedelta64_dtype(dtype)
    )


def not_numbers(X, columns=None, times=True):
    """``(labels, example)``: the columns of ``X`` (a DataFrame, or a 2-D
    array by position; ``columns``: those only) whose values do not read as
    numbers, and one such value. Columns of a numeric or boolean dtype are
    not read; datetimes and timedeltas are numbers with ``times``."""
    import pandas as pd  # only reached to name the columns of an error

    frame = is_dataframe(X)
    if columns is None:
        columns = column_labels(X) if frame else range(X.shape[1])
    dtypes = dtypes_by_label(X) if frame else {}
    bad, example = [], None
    for c in columns:
        dtype = dtypes.get(c)
        if dtype is not None and getattr(dtype, "kind", "O") in "biuf":
            continue
        values = X[c].to_numpy() if frame else X[:, c]
        values = values[~np.asarray(pd.isna(values), dtype=bool)]
        if dtype is not None and numeric_dtype(dtype):  # datetimes, timedeltas
            unreadable = values[:0] if times else values[:1]
        elif _reads_as_numbers(values):
            continue
        else:
            unreadable = [v for v in values if not _reads_as_number(v)][:1]
        if len(unreadable):
            bad.append(c)
            example = unreadable[0] if example is None else example
    return bad, example


def _reads_as_number(value):
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _reads_as_numbers(values):
    try:
        values.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


def check_numbers_only(frame, name="X"):
    """Raise a ValueError naming the columns of a pandas or dask DataFrame
    that do not hold numbers or booleans (by dtype: nothing is computed)."""
    dtypes = dtypes_by_label(frame)
    other = [c for c, t in dtypes.items() if getattr(t, "kind", "O") not in "biuf"]
    if other:
        raise ValueError(
            f"{name}'s columns {other[:5]} are not numeric: the test needs numbers."
        )


def column_kind(dtype):
    """``"numeric"``, ``"datetime"``, ``"timedelta"`` or ``"categorical"``, the
    kind of a column of ``dtype``: two samples' columns of one name must be
    of one kind."""
    import pandas as pd  # only reached with a DataFrame

    types = pd.api.types
    if types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if types.is_timedelta64_dtype(dtype):
        return "timedelta"
    return "numeric" if numeric_dtype(dtype) else "categorical"


def check_columns(X, name="X"):
    """Raise a ValueError or TypeError naming ``name`` when the column labels
    of the DataFrame ``X`` are not unique, flat labels of one kind."""
    columns = X.columns
    if getattr(columns, "nlevels", 1) > 1:
        raise ValueError(
            f"{name} has MultiIndex columns ({columns.nlevels} levels); flatten "
            f"them first, e.g. {name}.columns = ['_'.join(map(str, c)) for c in "
            f"{name}.columns]."
        )
    names = columns.tolist()
    if len(set(names)) != len(names):
        seen, repeated = set(), []
        for label in names:
            if label in seen and label not in repeated:
                repeated.append(label)
            seen.add(label)
        raise ValueError(
            f"{name} has duplicate column labels {repeated[:10]}; each column "
            "needs its own label."
        )
    kinds = {isinstance(label, str) for label in names}
    if len(kinds) > 1:
        odd = [label for label in names if not isinstance(label, str)]
        raise TypeError(
            f"{name} mixes string and non-string column labels (e.g. {odd[:5]}); "
            f"use one kind, e.g. {name}.columns = {name}.columns.astype(str)."
        )


def _missing(value):
    """None, NaN, pd.NA or NaT (without importing pandas)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and value != value


def _value_kind(value):
    if isinstance(value, str):
        return "str"
    if isinstance(value, (Number, np.bool_)):
        return "number"
    return type(value).__name__


def check_uniform(values, label, name="X"):
    """A TypeError naming column ``label`` of ``name`` when its objects mix
    strings, numbers and other values (they have no common order)."""
    present = [v for v in values if not _missing(v)]
    if len({_value_kind(v) for v in present}) > 1:
        kinds = sorted({type(v).__name__ for v in present})
        raise TypeError(
            f"{name}: column {label!r} mixes value types {kinds[:5]}; each "
            "argument must be a string or a number, of one type per column "
            "(convert the column, e.g. to strings)."
        )


def _seconds(values):
    """Datetimes (since the epoch) or timedeltas in float seconds, NaT as NaN."""
    values = np.asarray(values)
    if values.dtype.kind == "M":
        values = values.astype("datetime64[ns]")
        seconds = (values - np.datetime64(0, "ns")) / np.timedelta64(1, "s")
    else:
        values = values.astype("timedelta64[ns]")
        seconds = values / np.timedelta64(1, "s")
    return np.where(np.isnat(values), np.nan, seconds)


def canonical_array(X, name="X"):
    """A 2-D array as the column tools take it: datetimes and timedeltas in
    float seconds, pandas' missing values (``pd.NA``, ``NaT``) in an object
    array as None, each object column checked with :func:`check_uniform`."""
    if X.dtype.kind in "Mm":
        return _seconds(X)
    if X.dtype != object:
        return X
    missing = np.vectorize(_missing, otypes=[bool])(X) if X.size else X != X
    if missing.any():
        X = X.copy()
        X[missing] = None
    for j in range(X.shape[1]):
        check_uniform(X[~missing[:, j], j], j, name)
    return X


def canonical(X, name="X"):
    """``X`` with the columns whose dtype the column tools cannot take
    converted (a copy of those columns only; ``X`` itself if none):
    datetimes and timedeltas to float seconds (NaT to NaN), pandas ``string``
    columns with missing values to objects with None for ``pd.NA``. A
    TypeError names a column of objects mixing strings with other values (no
    order, no encoding)."""
    import pandas as pd  # only reached with a DataFrame

    types = pd.api.types
    changed = {}
    # Numbers and booleans have nothing to convert or check; text columns
    # holding no missing value, found together (one call over all of them,
    # not one per column), are taken as they are.
    others = [(p, d) for p, d in enumerate(X.dtypes.tolist()) if d.kind not in "iufb"]
    text = [p for p, dtype in others if isinstance(dtype, pd.StringDtype)]
    gaps = X.iloc[:, text].isna().any().to_numpy(dtype=bool) if text else []
    complete = {p for p, gap in zip(text, gaps) if not gap}
    for position, dtype in others:
        if position in complete:
            continue
        label, column = X.columns[position], X.iloc[:, position]
        if types.is_object_dtype(dtype) and types.infer_dtype(column, skipna=True) in (
            "mixed",
            "mixed-integer",
        ):
            check_uniform(column.to_numpy(), label, name)
        if types.is_datetime64_any_dtype(dtype) or types.is_timedelta64_dtype(dtype):
            if getattr(dtype, "tz", None) is not None:
                column = column.dt.tz_convert("UTC").dt.tz_localize(None)
            changed[position] = _seconds(column.to_numpy())
        elif (
            isinstance(dtype, pd.StringDtype) or types.is_object_dtype(dtype)
        ) and column.isna().any():  # one missing value, None, for the encoder
            # (not pd.NA or NaN); strings with none are taken as they are
            changed[position] = column.astype(object).where(column.notna(), None)
    if not changed:
        return X
    X = X.copy(deep=False)
    for position, values in changed.items():
        X.isetitem(position, values)
    return X
