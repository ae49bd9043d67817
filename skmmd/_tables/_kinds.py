"""Which columns of a table are numeric: the one rule (:func:`numeric_dtype`)
that the table map, the column report, the HTML report's summaries, the
witness and the tests of numbers all ask.

Booleans are categories (two levels, one-hot) and datetimes and timedeltas
are numbers (seconds since the epoch, or seconds) wherever a column's kind
decides its kernel. A map of numbers only (the exact kernel, random Fourier
features, the tests that take numbers) reads a column's values as floats as
they are: there booleans are the numbers 0 and 1, and a datetime, which it
would have to convert, is refused (``numeric_dtype(dtype, as_floats=True)``).
"""

import numpy as np

from ._labels import column_labels, dtypes_by_label, is_dataframe


def numeric_dtype(dtype, *, as_floats=False):
    """Whether a column of ``dtype`` is numeric (read from a table's
    ``dtypes``, without taking its columns one by one).

    Parameters
    ----------
    dtype : numpy or pandas dtype
        The column's dtype.
    as_floats : bool, default=False
        False: whether the column is mapped as numbers where its kind
        decides its kernel (``TabularSampler``, the column report, the
        report's summaries): numbers (NumPy's, pandas' nullable and pyarrow
        ones), datetimes and timedeltas are, booleans and everything else
        (text, categories, objects) are not. True: whether a map of numbers
        only reads its values as floats as they are: numbers and booleans
        (0 and 1), no datetime or timedelta.

    Returns
    -------
    numeric : bool
    """
    kind = getattr(dtype, "kind", "O")
    if as_floats:
        return kind in "biuf"
    if isinstance(dtype, np.dtype):  # pandas' answer for every NumPy kind
        return kind in "iufcmM"
    import pandas as pd  # only reached with a DataFrame's extension dtype

    types = pd.api.types
    if types.is_bool_dtype(dtype):
        return False
    return (
        types.is_numeric_dtype(dtype)
        or types.is_datetime64_any_dtype(dtype)
        or types.is_timedelta64_dtype(dtype)
    )


def numeric_column(column):
    """:func:`numeric_dtype` of a column (a pandas Series or a 1-D array),
    except that the values of an array's column of objects decide (an
    array has one dtype for all its columns, so text in one column makes
    every column objects): it is numeric when they are numbers, None or
    NaN, and no boolean."""
    if not isinstance(column, np.ndarray) or column.dtype.kind != "O":
        return numeric_dtype(column.dtype)
    if any(isinstance(v, (bool, np.bool_)) for v in column):
        return False
    try:
        column.astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


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
        if dtype is not None and numeric_dtype(dtype, as_floats=True):
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
    other = [c for c, t in dtypes.items() if not numeric_dtype(t, as_floats=True)]
    if other:
        raise ValueError(
            f"{name}'s columns {other[:5]} are not numeric: the test needs numbers."
        )
