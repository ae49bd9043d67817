"""Dask as an engine of the streaming pipeline (a thin adapter).

Dask is imported only here and in :mod:`skmmd._utils._dask`, and only when a
dask object arrives (the engine seam, :mod:`skmmd._inference._engines`, has
recognised it). A test reduces the blocks'
:class:`~skmmd._inference._streaming.UnitSums` on the workers in a tree, so
only the unit sums (units x features) travel to the client.

The fitted feature maps enter the graph once, as one key every task depends
on, not closed over in each task (which would serialize them per task). The
numba kernels run inside the worker processes; their thread count is numba's
default (all cores) unless ``NUMBA_NUM_THREADS`` is set in the workers'
environment, which a cluster of several workers per machine should do (e.g.
``LocalCluster(..., env={"NUMBA_NUM_THREADS": "1"})`` with one thread per
worker), or the workers' threads and numba's oversubscribe the cores.
"""

import sys
import time

import numpy as np

from .._tables._kinds import check_numbers_only
from .._utils._dask import dask_blocks, dask_rows, is_dask, known_rows
from ._streaming import _SUPERBLOCK, HOST, UnitSums, add_array

# States merged per task of the tree reduction.
_FAN_IN = 8


def two_samples(estimator, X, Y):
    """Validated dask samples ``(X, Y)`` of a test's ``fit``."""
    if not is_dask(Y):
        raise TypeError(
            "With a dask array X, give the second sample Y as a dask array too "
            "(fit(pooled, labels) takes in-memory arrays)."
        )
    X, Y = known_rows(X, "X"), known_rows(Y, "Y")
    if hasattr(X, "columns") != hasattr(Y, "columns"):
        raise TypeError("X and Y must both be dask arrays or both dask DataFrames.")
    if hasattr(X, "columns"):
        if list(X.columns) != list(Y.columns):
            differ = sorted(set(X.columns) ^ set(Y.columns), key=str)
            raise ValueError(
                "X and Y must have the same columns in the same order; "
                f"they differ in {differ or 'order'}."
            )
        estimator.feature_names_in_ = np.asarray(X.columns, dtype=object)
        n_features = len(X.columns)
    else:
        if X.shape[1] != Y.shape[1]:
            raise ValueError(
                f"X and Y must have the same number of features; got X with "
                f"{X.shape[1]} and Y with {Y.shape[1]}."
            )
        estimator.__dict__.pop("feature_names_in_", None)
        n_features = X.shape[1]
    sizes = [dask_rows(X), dask_rows(Y)]
    if min(sizes) < 2:
        raise ValueError(
            f"Each sample needs at least 2 points; got {sizes[0]} in X and "
            f"{sizes[1]} in Y."
        )
    estimator.n_features_in_ = n_features
    return X, Y


def one_sample(estimator, X):
    """A validated dask sample ``X`` of a one-sample test's ``fit``: a 2-D
    dask array with known row chunks, or a dask DataFrame of numeric
    columns (whose names become ``feature_names_in_``)."""
    X = known_rows(X, "X")
    if hasattr(X, "columns"):
        check_numbers_only(X)
        estimator.feature_names_in_ = np.asarray(X.columns, dtype=object)
        estimator.n_features_in_ = len(X.columns)
    else:
        estimator.__dict__.pop("feature_names_in_", None)
        estimator.n_features_in_ = X.shape[1]
    return X


def pairs(estimator, X, y):
    """Validated dask variables ``(X, Y)`` of an independence test's ``fit``:
    2-D dask arrays (a 1-D y becomes a column), Y's row chunks those of X."""
    if not is_dask(y):
        raise TypeError("With a dask array X, give y as a dask array too.")
    if getattr(y, "ndim", 2) == 1:
        y = y.reshape(-1, 1)
    X, Y = known_rows(X, "X"), known_rows(y, "y")
    if hasattr(X, "columns") or hasattr(Y, "columns"):
        raise TypeError("HSICTest takes dask arrays, not dask DataFrames.")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(
            f"X and y must be paired row by row; got {X.shape[0]} rows in X and "
            f"{Y.shape[0]} in y."
        )
    estimator.__dict__.pop("feature_names_in_", None)
    estimator.n_features_in_ = X.shape[1]
    return X, Y.rechunk({0: X.chunks[0]})


def _materialize(block):
    """A computed block as the pipeline's rows: a NumPy array, a pandas
    DataFrame, or a pair of them."""
    if isinstance(block, tuple):
        return tuple(_materialize(part) for part in block)
    return block if hasattr(block, "iloc") else np.asarray(block)


def _sample_blocks(A):
    """``(delayed block, first row, rows)`` of a sample, or of a pair of aligned
    samples (one delayed pair per block)."""
    if not isinstance(A, tuple):
        return dask_blocks(A)
    import dask

    parts = [dask_blocks(V) for V in A]
    return [
        (dask.delayed(tuple)([block for block, _, _ in row]), *row[0][1:])
        for row in zip(*parts)
    ]


def _take_rows(rows, block, wanted):
    """Rows ``wanted`` of a computed block, with the row operations ``rows``."""
    return rows.take(_materialize(block), wanted)


def _delayed_rows(A, wanted, rows=HOST):
    """Delayed rows ``wanted`` (sorted positions) of ``A``, block by block."""
    import dask

    parts = []
    for block, start, size in _sample_blocks(A):
        inside = wanted[(wanted >= start) & (wanted < start + size)] - start
        if inside.size:
            parts.append(dask.delayed(_take_rows)(rows, block, inside))
    return parts


# Seconds a computation on a distributed cluster waits with no worker at all
# (every one killed or closed) before it fails; a nanny restarts a killed
# worker within a few seconds, and lost pieces are recomputed meanwhile.
NO_WORKERS_TIMEOUT = 30.0


def _together(*parts):
    return parts


def _client():
    """The ``distributed.Client`` dask computes with, or None (dask's local
    schedulers)."""
    if "distributed" not in sys.modules:
        return None
    import dask
    from distributed import Client

    client = getattr(dask.base.get_scheduler(), "__self__", None)
    return client if isinstance(client, Client) else None


def compute(*parts):
    """``dask.compute(*parts)``; on a distributed cluster, a RuntimeError
    rather than a wait without end when the cluster has had no worker for
    ``NO_WORKERS_TIMEOUT`` seconds. A worker lost while others remain is
    dask's own business: it recomputes the lost pieces elsewhere."""
    import dask

    client = _client()
    if client is None:
        return dask.compute(*parts)
    from distributed import wait

    future = client.compute(dask.delayed(_together, pure=True)(*parts))
    alone_since = None
    while True:
        try:
            wait(future, timeout=0.25)
            return future.result()
        except TimeoutError:
            if client.nthreads():
                alone_since = None
                continue
            alone_since = alone_since or time.monotonic()
            if time.monotonic() - alone_since > NO_WORKERS_TIMEOUT:
                future.cancel()
                raise RuntimeError(
                    "The Dask cluster has had no worker for "
                    f"{NO_WORKERS_TIMEOUT:g} s in the middle of the test (every "
                    "worker was lost or closed), so the test cannot finish: "
                    "start workers (cluster.scale) and fit again."
                ) from None


def take_pooled(X, Y, idx):
    """Rows ``idx`` (sorted) of the pooled sample, in memory."""

    m = dask_rows(X)
    parts = _delayed_rows(X, idx[idx < m]) + _delayed_rows(Y, idx[idx >= m] - m)
    return HOST.concat(list(compute(*parts)))


def take(A, idx, rows):
    """Rows ``idx`` (sorted) of a sample or a pair, in memory."""

    return rows.concat(list(compute(*_delayed_rows(A, idx, rows))))


def _block_sums(
    transformers, widths, rows, block, sample, start, total, unit, seed, head, ordered
):
    """The state of the first ``head`` rows of one block, chunk by chunk
    (bounded memory)."""
    return add_array(
        UnitSums(widths, unit, seed, ordered),
        transformers,
        widths,
        rows.take(_materialize(block), slice(0, head)),
        sample,
        start,
        total,
        rows,
    )


def _merge(*states):
    first = states[0]
    total = UnitSums(first.n_features, first.unit, first.seed, first.ordered)
    for state in states:
        total.add(state)
    return total


def add_to_stream(stream, X, Y, unit):
    """Add two dask samples (or one pair, ``Y`` None) to a new stream: the rows
    of complete superblocks are reduced to unit sums on the workers, the last
    superblock's rows (fewer than ``_SUPERBLOCK`` per sample) are added on the
    client."""
    import dask

    rows = stream.rows
    maps = dask.delayed(stream.transformers, pure=True, traverse=False)
    parts, tails = [], [[], []]
    for sample, A in enumerate((X, Y)):
        if A is None:
            continue
        flush = rows_of(A) // _SUPERBLOCK * _SUPERBLOCK
        for block, start, size in _sample_blocks(A):
            head = min(size, max(flush - start, 0))
            if head:
                parts.append(
                    dask.delayed(_block_sums, pure=True)(
                        maps,
                        stream.widths,
                        rows,
                        block,
                        sample,
                        start,
                        flush,
                        unit,
                        stream.seed,
                        head,
                        stream.ordered,
                    )
                )
            if head < size:
                tail = dask.delayed(_take_rows)(rows, block, slice(head, size))
                tails[sample].append(tail)
    while len(parts) > 1:
        parts = [
            dask.delayed(_merge, pure=True)(*parts[i : i + _FAN_IN])
            for i in range(0, len(parts), _FAN_IN)
        ]
    state, x_tail, y_tail = compute(parts[0] if parts else None, *tails)
    if state is not None:
        stream.state = state
    return stream.add(
        [rows.concat(list(t)) if len(t) else None for t in (x_tail, y_tail)], unit
    )


def rows_of(A):
    """Rows of a dask sample or pair."""
    return dask_rows(A[0] if isinstance(A, tuple) else A)
