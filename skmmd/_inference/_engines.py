"""The one seam between a test's input and its pipeline.

:func:`engine_for` recognises the kind of a test's input once, at the entry of
``fit`` / ``partial_fit``, and returns the driver that runs the one streaming
pipeline (:mod:`skmmd._inference._streaming`) for that kind:

- :class:`InMemory`: NumPy arrays, SciPy sparse matrices, DataFrames and
  sequences of objects (the pipeline's :data:`~._streaming.HOST` row
  operations), or arrays of another array-API namespace on their device
  (:class:`DeviceRows`);
- :class:`Lazy`: Dask arrays and DataFrames, reduced to unit sums on the
  workers by :mod:`skmmd._inference._dask`.

Below this module nothing asks what kind its rows are: the pipeline calls
the row operations it was given, the calibration loop sees only unit sums.
"""

import numpy as np

from .._utils import _array_api, _budgets
from .._utils._dask import is_dask
from . import _dask, _inputs
from ._streaming import HOST, HostRows, into, transformer_width


class DeviceRows(HostRows):
    """Row operations on arrays of an array-API namespace (PyTorch, CuPy), on
    their device: features and per-unit sums are computed there, only the sums
    come to host memory."""

    def __init__(self, xp, device):
        self.xp, self.device = xp, device
        self.namespace = (xp, device)

    def take(self, X, rows):
        return _array_api.take_rows(X, rows, self.xp, self.device)

    def concat(self, parts):
        return _array_api.concat(parts, self.xp)

    def copy(self, X):
        return _array_api.copy(X, self.xp)

    def to_host(self, X):
        return _array_api.to_numpy(X, self.xp)

    def fuses(self, transformers):
        return False  # the fused per-unit sums are NumPy kernels

    def chunk_rows(self, transformers, widths):
        """Rows per chunk: within ``_budgets.DEVICE_CHUNK_ENTRIES`` features
        on an accelerator, the host's budget on a CPU device."""
        if "cpu" in str(self.device).lower():
            return super().chunk_rows(transformers, widths)
        widest = max(max(widths, default=1), 1)
        return max(1, _budgets.DEVICE_CHUNK_ENTRIES // widest)

    def grouped_sums(self, transformer, X, groups, n_groups, out=None):
        S, q = _array_api.grouped_sums(
            transformer.transform(X), groups, n_groups, self.xp, self.device
        )
        return into(out, S, q)


class PairRows(HostRows):
    """Row operations on the paired rows ``(X, Y)`` of an independence test:
    each operation applies to both variables, with the row operations of
    their kind (``inner``), so a chunk of pairs stays a pair."""

    def __init__(self, inner=HOST):
        self.inner = inner

    def n_rows(self, P):
        return self.inner.n_rows(P[0])

    def take(self, P, rows):
        return tuple(self.inner.take(V, rows) for V in P)

    def concat(self, parts):
        return tuple(self.inner.concat(list(V)) for V in zip(*parts))

    def copy(self, P):
        return tuple(self.inner.copy(V) for V in P)

    def to_host(self, P):
        return tuple(self.inner.to_host(V) for V in P)

    def fuses(self, transformers):
        return self.inner.fuses(transformers)

    def chunk_rows(self, transformers, widths):
        return self.inner.chunk_rows(transformers, widths)


class InMemory:
    """Driver of samples held in memory: the pipeline runs on the client,
    chunk by chunk, with the row operations ``rows``."""

    lazy = False

    def __init__(self, rows):
        self.rows = rows

    def samples(self, test, X, y, validate):
        """Validated ``(X, Y, classes)`` of a test's ``fit``: in memory, the
        family's own ``validate(X, y, reset=True, rows=...)`` with this
        driver's row operations (the family passes its validation in, so
        the driver reads nothing private of the test)."""
        return validate(X, y, reset=True, rows=self.rows)

    def n_rows(self, X):
        return self.rows.n_rows(X)

    def width(self, transformer, X):
        return transformer_width(transformer, X, self.rows)

    def pooled(self, X, Y, idx=None):
        """The pooled sample (X's rows first), or its rows ``idx`` (sorted)."""
        if idx is None:
            return _inputs.stack(X, Y, self.rows.namespace)
        m = self.n_rows(X)
        return _inputs.stack(
            self.rows.take(X, idx[idx < m]),
            self.rows.take(Y, idx[idx >= m] - m),
            self.rows.namespace,
        )

    def add(self, stream, X, Y, unit, watch=None):
        """Add both samples (or one pair of variables, ``Y`` None) to
        ``stream`` at unit size ``unit`` (``watch``: see
        :meth:`~._streaming.Stream.add`)."""
        return stream.add((X, Y), unit, watch)

    def pairs(self, test, X, y, validate):
        """Validated variables ``(X, Y)`` of an independence test's ``fit``:
        in memory, the family's own ``validate(X, y, reset=True)``."""
        return validate(X, y, reset=True)

    def paired(self):
        """This driver for the pairs ``(X, Y)`` of an independence test."""
        return type(self)(PairRows(self.rows))

    def rows_of(self, X, idx):
        """Rows ``idx`` (sorted; None: all) of ``X``, in memory."""
        return X if idx is None else self.rows.take(X, idx)


class Lazy(InMemory):
    """Driver of Dask samples: complete superblocks are reduced to unit sums on
    the workers, the last rows of each sample are added on the client (with
    the host row operations)."""

    lazy = True

    def __init__(self, rows=HOST):
        super().__init__(rows)

    def samples(self, test, X, y, validate):
        X, Y = _dask.two_samples(test, X, y)
        return X, Y, None

    def n_rows(self, X):
        return _dask.rows_of(X)

    def width(self, transformer, X):
        if isinstance(X, tuple):  # a pair: the first row of each variable
            first = tuple(V[:1] for V in X)
        else:
            first = X.head(1) if hasattr(X, "columns") else X[:1]
        return int(transformer.transform(first).shape[1])

    def pooled(self, X, Y, idx=None):
        if idx is None:
            idx = np.arange(self.n_rows(X) + self.n_rows(Y))
        return _dask.take_pooled(X, Y, idx)

    def add(self, stream, X, Y, unit, watch=None):
        if watch is not None:
            raise ValueError("A stream of dask arrays reads no rows on the client.")
        return _dask.add_to_stream(stream, X, Y, unit)

    def pairs(self, test, X, y, validate):
        return _dask.pairs(test, X, y)

    def sample(self, test, X):
        """A validated dask sample of a one-sample test's ``fit``."""
        return _dask.one_sample(test, X)

    def rows_of(self, X, idx):
        if idx is None:
            idx = np.arange(self.n_rows(X))
        return _dask.take(X, idx, self.rows)


def rows_for(X):
    """The row operations of in-memory ``X``: its array-API namespace's on its
    device, or the host ones."""
    xp, device = _array_api.namespace(X)
    return HOST if xp is None else DeviceRows(xp, device)


def engine_for(X):
    """The driver of a test's input ``X`` (recognised here, and only here)."""
    return Lazy() if is_dask(X) else InMemory(rows_for(X))
