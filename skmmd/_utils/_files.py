"""Numeric samples read from files in batches of rows, for the streamed test.

Parquet and CSV go through pyarrow (an optional dependency, imported here
only), NPY through a memory map; each yields float64 arrays of at most
``batch_rows`` rows, so memory does not grow with the file.
"""

from pathlib import Path

import numpy as np

STREAMED_SUFFIXES = (".parquet", ".pq", ".csv", ".npy")


def _pyarrow(path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ValueError(
            f"{path}: reading it in batches needs pyarrow: pip install 'skmmd[tables]'."
        ) from None


def _numeric(batch, path, columns):
    """A pyarrow record batch as a float64 array; a clear error otherwise."""
    import pyarrow.types as pat

    arrays = []
    for name, column in zip(batch.schema.names, batch.columns):
        kind = column.type
        if not (pat.is_integer(kind) or pat.is_floating(kind) or pat.is_boolean(kind)):
            raise ValueError(
                f"{path}: column {name!r} holds {kind}, not numbers; the streamed "
                "test takes numeric columns (choose them with --columns)."
            )
        arrays.append(column.to_numpy(zero_copy_only=False).astype(np.float64))
    if not arrays:
        raise ValueError(f"{path}: no columns to test (--columns {columns}).")
    return np.column_stack(arrays)


def iter_batches(path, batch_rows, columns=None):
    """Rows of a Parquet, CSV (header row) or NPY file, ``batch_rows`` at a time.

    Parameters
    ----------
    path : str or Path
        The file.
    batch_rows : int
        Rows per batch.
    columns : list of str, default=None
        Columns to read (Parquet and CSV); all by default.

    Yields
    ------
    batch : ndarray of shape (rows, n_columns), float64
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
        for lo in range(0, data.shape[0], batch_rows):
            yield np.asarray(data[lo : lo + batch_rows], dtype=np.float64)
        return
    _pyarrow(path)
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        # pre_buffer=True (pyarrow's default) keeps every column chunk read so
        # far: memory grew with the file (2.9 GB at 10^7 rows, 45 MB without).
        reader = pq.ParquetFile(path, pre_buffer=False).iter_batches(
            batch_size=batch_rows, columns=columns
        )
    else:
        import pyarrow.csv as pcsv

        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(block_size=1 << 22),
            convert_options=pcsv.ConvertOptions(include_columns=columns),
        )
    pending, size = [], 0
    for batch in reader:
        pending.append(_numeric(batch, path, columns))
        size += pending[-1].shape[0]
        while size >= batch_rows:
            rows = np.vstack(pending)
            yield rows[:batch_rows]
            pending, size = [rows[batch_rows:]], rows.shape[0] - batch_rows
    if size:
        yield np.vstack(pending)


def count_rows(path):
    """Rows of a Parquet or NPY file (from its metadata), or None."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return int(np.load(path, mmap_mode="r").shape[0])
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    return None
