"""Samples read from files: in chunks of rows for the streamed test, or whole
(a float array, or a DataFrame for a table).

Parquet and CSV chunks go through pyarrow (an optional dependency, imported
here only), NPY through a memory map; each yields float64 arrays of at most
``chunk_rows`` rows, so memory does not grow with the file. Whole files: NPY,
numeric CSV (one optional header row) by numpy, tables by pandas.
"""

import csv
import warnings
from pathlib import Path

import numpy as np

from .._tables._kinds import column_kind, numeric_dtype

STREAMED_SUFFIXES = (".parquet", ".pq", ".csv", ".npy")
# Rows per chunk when a file is read in chunks.
CHUNK_ROWS = 65536


# A column of a CSV table read as text only because of a few values that are
# not numbers (a typo, a decimal comma "12,5") is numeric, those values
# missing, when they are at most this share of its non-missing values.
STRAY_SHARE = 0.05


def listed(names, limit=20):
    """``names`` for a message: all of them, or the first ``limit`` and how
    many more."""
    names = list(names)
    if len(names) <= limit:
        return str(names)
    return f"{names[:limit]} and {len(names) - limit} more ({len(names)} in all)"


def _pyarrow(path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ValueError(
            f"{path}: reading it in chunks needs pyarrow: pip install 'skmmd[tables]'."
        ) from None


def _numeric(batch, path, columns):
    """A pyarrow record batch as a float64 array (numbers and booleans, as
    ``numeric_dtype(dtype, as_floats=True)`` reads them); a clear error
    otherwise."""
    import pandas as pd

    arrays = []
    for name, column in zip(batch.schema.names, batch.columns):
        kind = column.type
        if not numeric_dtype(pd.ArrowDtype(kind), as_floats=True):
            raise ValueError(
                f"{path}: column {name!r} holds {kind}, not numbers"
                f"{_first_strays(column)}; files read in chunks take numeric "
                "columns (choose them with --columns, or leave out --chunk-rows "
                "to read the file as a table)."
            )
        arrays.append(column.to_numpy(zero_copy_only=False).astype(np.float64))
    if not arrays:
        raise ValueError(f"{path}: no columns to test (--columns {columns}).")
    return np.column_stack(arrays)


def _first_strays(column):
    """How many values of a pyarrow text column are not numbers, and the
    first, for a message ('' for other columns)."""
    values = column.to_pylist()
    if not all(isinstance(v, str) or v is None for v in values):
        return ""
    bad = [v for v in values if v is not None and not _is_number(v)]
    if not bad:
        return ""
    return (
        f" ({len(bad)} of the first {len(values)} values are not numbers, the "
        f"first {bad[0]!r})"
    )


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def file_columns(path):
    """``(names, width)`` of a file's columns: the names of a Parquet schema or
    of a CSV's header row (a first row that is not all numbers), else None
    (NPY, headerless CSV)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            shape = np.load(path, mmap_mode="r", allow_pickle=False).shape
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: not a readable .npy file ({exc}).") from None
        return None, (shape[1] if len(shape) == 2 else 1)
    if suffix in (".parquet", ".pq"):
        _pyarrow(path)
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(path)
        except Exception as exc:  # pyarrow's errors of a damaged file
            raise ValueError(f"{path}: not a readable Parquet file ({exc}).") from None
        # A DataFrame's index stored by pandas (e.g. "__index_level_0__") is
        # not data: pandas reads it back as the index.
        index = (schema.pandas_metadata or {}).get("index_columns", [])
        names = [n for n in schema.names if n not in index]
        return names, len(names)
    try:
        with open(path, newline="") as f:
            first = next(
                (row for row in csv.reader(f) if row and any(c.strip() for c in row)),
                None,
            )
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text CSV file.") from None
    if first is None:
        raise ValueError(f"{path}: the file holds no data.")
    header = not all(_is_number(c) for c in first)
    return ([c.strip() for c in first] if header else None), len(first)


def column_positions(path, names, width, requested, option="--columns"):
    """0-based positions of the ``requested`` columns (names of the file, or
    positions); a ValueError listing the file's columns when one is absent."""
    out, missing = [], []
    for column in requested:
        if names is not None and column in names:
            out.append(names.index(column))
        elif column.strip().isdigit() and int(column) < width:
            out.append(int(column))
        else:
            missing.append(column)
    if missing:
        has = f"columns {listed(names)}" if names is not None else f"{width} columns"
        raise ValueError(
            f"{path}: {option} names columns {missing} that the file does not "
            f"have; it has {has} (give names, or 0-based positions)."
        )
    return out


def matched_columns(paths, requested=None):
    """The columns of two files to compare: ``(positions, names)``, the
    0-based positions in each file and the names (None if neither file names
    its columns).

    ``requested`` (names or positions, default all) must all be in each file.
    Files that both name their columns are matched by name: the second's are
    taken in the first's order, and differing names are an error, so that
    CSV and Parquet behave alike.
    """
    (names_a, width_a), (names_b, width_b) = (file_columns(p) for p in paths)
    if requested is None:
        pos_a = list(range(width_a))
        if names_a is not None and names_b is not None:
            if sorted(names_a) != sorted(names_b):
                only_a = [c for c in names_a if c not in names_b]
                only_b = [c for c in names_b if c not in names_a]
                raise ValueError(
                    f"{paths[0]} and {paths[1]} have different columns: only in "
                    f"the first {listed(only_a)}, only in the second {listed(only_b)} "
                    "(choose common ones with --columns)."
                )
            pos_b = [names_b.index(c) for c in names_a]
        else:
            pos_b = list(range(width_b))
    else:
        pos_a = column_positions(paths[0], names_a, width_a, requested)
        pos_b = column_positions(paths[1], names_b, width_b, requested)
    if len(pos_a) != len(pos_b):
        raise ValueError(
            f"{paths[0]} has {len(pos_a)} columns but {paths[1]} has "
            f"{len(pos_b)}: both samples need the same features."
        )
    picked = [None if n is None else [n[i] for i in p] for n, p in
              ((names_a, pos_a), (names_b, pos_b))]  # fmt: skip
    if None not in picked and picked[0] != picked[1]:
        raise ValueError(
            f"the columns of {paths[0]} {listed(picked[0])} and of {paths[1]} "
            f"{listed(picked[1])} differ; choose columns by name with --columns."
        )
    names = picked[0] if picked[0] is not None else picked[1]
    return (pos_a, pos_b), names


def iter_chunks(path, chunk_rows, columns=None):
    """Rows of a Parquet, CSV (header row) or NPY file, ``chunk_rows`` at a time.

    Parameters
    ----------
    path : str or Path
        The file.
    chunk_rows : int
        Rows per chunk.
    columns : list of int, default=None
        0-based positions of the columns to read, in this order; all by default.

    Yields
    ------
    chunk : ndarray of shape (rows, n_columns), float64
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        data = np.load(path, mmap_mode="r", allow_pickle=False)
        if data.ndim not in (1, 2) or not np.issubdtype(data.dtype, np.number):
            raise ValueError(
                f"{path}: expected a 1-D or 2-D numeric array; got shape "
                f"{data.shape} and dtype {data.dtype}."
            )
        data = data.reshape(-1, 1) if data.ndim == 1 else data
        if columns is not None:
            data = data[:, columns]
        for lo in range(0, data.shape[0], chunk_rows):
            yield np.asarray(data[lo : lo + chunk_rows], dtype=np.float64)
        return
    _pyarrow(path)
    names, width = file_columns(path)
    header = names is not None
    if not header:  # a headerless CSV: pyarrow's names f0, f1, ...
        names = [f"f{i}" for i in range(width)]
    selected = None if columns is None else [names[i] for i in columns]
    if selected is None and suffix in (".parquet", ".pq"):
        selected = names  # not a stored pandas index
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        # pre_buffer=True (pyarrow's default) keeps every column chunk read so
        # far, so that memory would grow with the file.
        reader = pq.ParquetFile(path, pre_buffer=False).iter_batches(
            batch_size=chunk_rows, columns=selected
        )
    else:
        import pyarrow.csv as pcsv

        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(
                block_size=1 << 22, autogenerate_column_names=not header
            ),
            convert_options=pcsv.ConvertOptions(include_columns=selected),
        )
    pending, size = [], 0
    for batch in _checked(reader, path):
        pending.append(_numeric(batch, path, selected))
        size += pending[-1].shape[0]
        while size >= chunk_rows:
            rows = np.vstack(pending)
            yield rows[:chunk_rows]
            pending, size = [rows[chunk_rows:]], rows.shape[0] - chunk_rows
    if size:
        yield np.vstack(pending)


def _checked(reader, path):
    """The batches of a pyarrow reader; its errors (a damaged or truncated
    file) as one ValueError naming the file."""
    try:
        yield from reader
    except Exception as exc:  # pyarrow's OSError / ArrowInvalid / thrift errors
        raise ValueError(f"{path}: not a readable file ({exc}).") from None


def count_rows(path):
    """Rows of a Parquet or NPY file (from its metadata), or None."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return int(np.load(path, mmap_mode="r").shape[0])
    if suffix in (".parquet", ".pq"):
        _pyarrow(path)
        import pyarrow.parquet as pq

        try:
            return int(pq.ParquetFile(path).metadata.num_rows)
        except Exception as exc:  # pyarrow's errors of a damaged file
            raise ValueError(f"{path}: not a readable Parquet file ({exc}).") from None
    return None


def _read_csv(path, columns=None):
    """A numeric CSV (one optional header row) as a float array; ``columns``:
    0-based positions of the only columns read (the others may hold text)."""
    data = _read_csv_fast(path, columns)
    return _read_csv_checked(path, columns) if data is None else data


def _read_csv_fast(path, columns=None):
    """numpy's C parser (faster than Python's ``csv`` module, which
    :func:`_read_csv_checked` uses); None when it cannot read the file, which
    then goes through :func:`_read_csv_checked` for its message."""
    with open(path, newline="") as f:
        skip = 0
        for skip, line in enumerate(f, start=1):
            if line.strip(" ,\t\r\n"):
                break
        else:
            return None
        header = not all(_is_number(c) for c in next(csv.reader([line])))
        if not header:
            skip -= 1
        f.seek(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # e.g. a header and no data
                data = np.loadtxt(
                    f,
                    delimiter=",",
                    skiprows=skip,
                    ndmin=2,
                    comments=None,
                    usecols=columns,
                )
        except (ValueError, UserWarning):
            return None
    return data if data.size else None


def _read_csv_checked(path, columns=None):
    with open(path, newline="") as f:
        rows = [row for row in csv.reader(f) if row and any(c.strip() for c in row)]
    if not rows:
        raise ValueError(f"{path}: the file holds no data.")
    if columns is not None:
        try:
            rows = [[row[i] for i in columns] for row in rows]
        except IndexError:
            widths = sorted({len(row) for row in rows})
            raise ValueError(
                f"{path}: rows have different numbers of columns {widths}."
            ) from None

    def numbers(row, line):
        try:
            return [float(c) for c in row]
        except ValueError:
            bad = next(c for c in row if not _is_number(c))
            raise ValueError(
                f"{path}: line {line}: non-numeric value {bad!r}; expected comma-"
                "separated numbers (one optional header row)."
            ) from None

    start = 0 if all(_is_number(c) for c in rows[0]) else 1  # header row
    data = [numbers(row, i + 1) for i, row in enumerate(rows) if i >= start]
    widths = {len(row) for row in data}
    if len(widths) > 1:
        raise ValueError(
            f"{path}: rows have different numbers of columns {sorted(widths)}."
        )
    if not data:
        raise ValueError(f"{path}: the file holds a header but no data.")
    return np.array(data)


def load_sample(path, columns=None):
    """Read one sample (n_samples x n_features) from a CSV or NPY file
    (``columns``: 0-based positions of the only columns read)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    if path.suffix.lower() == ".npy":
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: not a readable .npy file ({exc}).") from None
        if data.ndim not in (1, 2) or not np.issubdtype(data.dtype, np.number):
            raise ValueError(
                f"{path}: expected a 1-D or 2-D numeric array; got shape "
                f"{data.shape} and dtype {data.dtype}."
            )
        data = data.astype(np.float64)
        data = data.reshape(-1, 1) if data.ndim == 1 else data
        return data if columns is None else data[:, columns]
    try:
        data = _read_csv(path, columns)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text CSV file.") from None
    return data.reshape(-1, 1) if data.ndim == 1 else data


def read_table(path, tabular, columns=None):
    """Read one sample: a pandas DataFrame for the tabular test (Parquet, or
    CSV with a header row and columns of any type), else a float array
    (:func:`load_sample`). ``columns``: 0-based positions of the columns to
    keep (see :func:`matched_columns`)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    if tabular:
        try:
            import pandas as pd
        except ImportError:
            raise ValueError(
                f"{path}: a table (a CSV with a header row, Parquet, or --"
                "transformer tabular) is read with pandas, which is not installed: "
                "python -m pip install 'skmmd[tables]', or pass --transformer rff "
                "to test its numeric columns as an array."
            ) from None
        suffix = path.suffix.lower()
        try:
            if suffix in (".parquet", ".pq"):
                data = pd.read_parquet(path)
            elif suffix == ".npy":
                data = pd.DataFrame(load_sample(path))
            else:
                header = file_columns(path)[0] is not None
                data = pd.read_csv(path, header=0 if header else None)
        except (OSError, ValueError, ImportError) as exc:
            raise ValueError(f"{path}: not a readable table ({exc}).") from None
        if data.shape[0] == 0:
            what = "its columns" if suffix in (".parquet", ".pq") else "a header"
            raise ValueError(f"{path}: the file holds {what} but no data.")
        data = data if columns is None else data.iloc[:, columns]
        if suffix not in (".parquet", ".pq", ".npy"):  # typed columns
            data = numeric_strays(data, path)
        return data
    if path.suffix.lower() in (".parquet", ".pq"):
        return np.vstack(list(iter_chunks(path, CHUNK_ROWS, columns)))
    return load_sample(path, columns)


def numeric_strays(table, path):
    """``table`` (read from the CSV file ``path``) with each text column
    whose values are numbers but for a few (at most ``STRAY_SHARE`` of them:
    a typo, a decimal comma) read as numbers, those few missing, with a
    warning naming the file, the column, how many and the first."""
    import pandas as pd

    out = table
    for position, name in enumerate(table.columns):
        column = table.iloc[:, position]
        if not (
            pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)
        ):
            continue
        present = column.notna().to_numpy()
        numbers = pd.to_numeric(column.where(present, None), errors="coerce")
        stray = present & numbers.isna().to_numpy()
        count, total = int(stray.sum()), int(present.sum())
        if not 0 < count <= STRAY_SHARE * total:
            continue
        row = int(np.flatnonzero(stray)[0])
        warnings.warn(
            f"{path}: column {name!r} holds numbers but for {count} of its "
            f"{total} values, read as missing values; the first is "
            f"{column.iloc[row]!r} in data row {row + 1}.",
            UserWarning,
            stacklevel=2,
        )
        if out is table:
            out = table.copy()
        out.isetitem(position, numbers.astype(np.float64))
    return out


def check_same_kinds(tables, paths):
    """Raise a ValueError naming the file, the column, how many values are not
    numbers and the first, when a column of two CSV tables holds numbers in
    one and text in the other."""

    first, second = tables
    if list(first.columns) != list(second.columns):
        return  # the test's own error lists the columns
    for position, name in enumerate(first.columns):
        kinds = [column_kind(t.dtypes.iloc[position]) for t in tables]
        if kinds[0] == kinds[1] or "numeric" not in kinds:
            continue
        text = kinds.index("categorical") if "categorical" in kinds else None
        if text is None:
            continue
        column = tables[text].iloc[:, position]
        present = column.notna().to_numpy()
        strays = present & ~np.array([_is_number(str(v)) for v in column])
        if not strays.any():
            continue
        row = int(np.flatnonzero(strays)[0])
        raise ValueError(
            f"{paths[text]}: column {name!r} holds numbers in "
            f"{paths[1 - text]} but {int(strays.sum())} of its "
            f"{int(present.sum())} values here are not numbers, the first "
            f"{column.iloc[row]!r} in data row {row + 1}; fix or remove them "
            "(a few are read as missing values)."
        )


def is_table(path):
    """Whether a file is a table (named columns: Parquet, or CSV with a header
    row), read as a DataFrame would be, rather than an array (NPY, headerless
    CSV)."""
    return file_columns(path)[0] is not None


def all_numeric(path):
    """Whether every column of a Parquet file holds numbers that a table's
    map reads as numbers and a map of numbers as floats (no boolean, which
    a table's map reads as a category; no datetime): it can then be read in
    chunks of float arrays."""
    import pandas as pd
    import pyarrow.parquet as pq

    dtypes = [pd.ArrowDtype(field.type) for field in pq.read_schema(path)]
    return all(numeric_dtype(d) and numeric_dtype(d, as_floats=True) for d in dtypes)
