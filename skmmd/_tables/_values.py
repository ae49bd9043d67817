"""The values of a table's columns as the column tools read them: floats
with NaN where missing, datetimes and timedeltas in seconds (NaT is
missing), pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``,
``string``) keeping their kind with ``pd.NA`` a missing value, and objects
of one kind per column."""

from numbers import Number

import numpy as np

from ._labels import is_dataframe


def float_values(X):
    """The values of numeric columns (a DataFrame's, read once, or an array)
    as float64, NaN where missing (pandas' ``pd.NA`` included); a float64
    array is not copied."""
    if is_dataframe(X):
        return X.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(X, dtype=np.float64)


def missing_value(value):
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
    present = [v for v in values if not missing_value(v)]
    if len({_value_kind(v) for v in present}) > 1:
        kinds = sorted({type(v).__name__ for v in present})
        raise TypeError(
            f"{name}: column {label!r} mixes value types {kinds[:5]}; each "
            "argument must be a string or a number, of one type per column "
            "(convert the column, e.g. to strings)."
        )


def seconds(values):
    """Datetimes (since the epoch) or timedeltas in float seconds, NaT as NaN."""
    values = np.asarray(values)
    if values.dtype.kind == "M":
        values = values.astype("datetime64[ns]")
        seconds = (values - np.datetime64(0, "ns")) / np.timedelta64(1, "s")
    else:
        values = values.astype("timedelta64[ns]")
        seconds = values / np.timedelta64(1, "s")
    return np.where(np.isnat(values), np.nan, seconds)


def series_seconds(column):
    """A pandas datetime (a time zone's in UTC) or timedelta column in float
    seconds (:func:`seconds`)."""
    if getattr(column.dtype, "tz", None) is not None:
        column = column.dt.tz_convert("UTC").dt.tz_localize(None)
    return seconds(column.to_numpy())


def canonical_array(X, name="X"):
    """A 2-D array as the column tools take it: datetimes and timedeltas in
    float seconds, pandas' missing values (``pd.NA``, ``NaT``) in an object
    array as None, each object column checked with :func:`check_uniform`."""
    if X.dtype.kind in "Mm":
        return seconds(X)
    if X.dtype != object:
        return X
    missing = np.vectorize(missing_value, otypes=[bool])(X) if X.size else X != X
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
            changed[position] = series_seconds(column)
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
