"""Dask as an engine of the streaming pipeline (a thin adapter).

Dask is imported only here, and only when a dask object arrives
(:func:`is_dask` looks at the type's module, importing nothing). A sampler maps
a dask array block by block with its own ``transform``; a test reduces the
blocks' :class:`~skmmd._streaming.UnitSums` on the workers in a tree, so only
the unit sums (units x features) travel to the client.

The fitted feature maps enter the graph once, as one key every task depends
on, not closed over in each task (which would serialize them per task). The
numba kernels run inside the worker processes; their thread count is numba's
default (all cores) unless ``NUMBA_NUM_THREADS`` is set in the workers'
environment, which a cluster of several workers per machine should do (e.g.
``LocalCluster(..., env={"NUMBA_NUM_THREADS": "1"})`` with one thread per
worker), or the workers' threads and numba's oversubscribe the cores.
"""

import functools

import numpy as np
from sklearn.utils import check_random_state

from ._streaming import _SUPERBLOCK, UnitSums, add_array, take_rows

# Rows a sampler's fit on a dask array reads: a seeded uniform subsample
# (what the data-dependent parts need: the median bandwidth, landmarks).
FIT_ROWS = 100_000
# States merged per task of the tree reduction.
_FAN_IN = 8


def is_dask(X):
    """Whether ``X`` is a dask collection (without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "dask")


def _known_rows(X, name):
    """A dask array with known row chunks and one column chunk, or a dask
    DataFrame (its partitions go to the transformers as pandas DataFrames)."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        return X
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{name} must be a dask array or DataFrame; got {type(X).__name__}."
        )
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D dask array; got {X.ndim} dimensions.")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()  # one pass over the data, as dask requires
    if X.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold numbers; got dtype {X.dtype}.")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return X.rechunk({1: -1})


def _blocks(A):
    """``(delayed block, first row, rows)`` of each block or partition."""
    if hasattr(A, "columns"):
        sizes = A.map_partitions(len).compute().tolist()
        blocks = A.to_delayed()
    else:
        sizes = [int(c) for c in A.chunks[0]]
        blocks = A.to_delayed().ravel()
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    return list(zip(blocks, starts.tolist(), sizes))


def two_samples(estimator, X, Y):
    """Validated dask samples ``(X, Y)`` of a test's ``fit``."""
    if not is_dask(Y):
        raise TypeError(
            "With a dask array X, give the second sample Y as a dask array too "
            "(fit(pooled, labels) takes in-memory arrays)."
        )
    X, Y = _known_rows(X, "X"), _known_rows(Y, "Y")
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
    sizes = [_n_rows(X), _n_rows(Y)]
    if min(sizes) < 2:
        raise ValueError(
            f"Each sample needs at least 2 points; got {sizes[0]} in X and "
            f"{sizes[1]} in Y."
        )
    estimator.n_features_in_ = n_features
    return X, Y


def _n_rows(A):
    return len(A) if hasattr(A, "columns") else int(A.shape[0])


def take_pooled(X, Y, idx):
    """Rows ``idx`` (sorted) of the pooled sample, in memory."""
    import dask

    from ._streaming import _concat

    parts = []
    for A, wanted, shift in ((X, idx[idx < _n_rows(X)], 0), (Y, None, _n_rows(X))):
        wanted = idx[idx >= shift] - shift if wanted is None else wanted
        for block, start, size in _blocks(A):
            inside = wanted[(wanted >= start) & (wanted < start + size)] - start
            if inside.size:
                parts.append(dask.delayed(take_rows)(block, inside))
    return _concat(list(dask.compute(*parts)))


def _block_sums(transformers, widths, block, sample, start, total, unit, seed, rows):
    """The state of the first ``rows`` rows of one block, chunk by chunk
    (bounded memory)."""
    block = block if hasattr(block, "iloc") else np.asarray(block)
    return add_array(
        UnitSums(widths, unit, seed),
        transformers,
        widths,
        take_rows(block, slice(0, rows)),
        sample,
        start,
        total,
    )


def _merge(*states):
    total = UnitSums(states[0].n_features, states[0].unit, states[0].seed)
    for state in states:
        total.add(state)
    return total


def add_to_stream(stream, X, Y, unit):
    """Add two dask samples to a new stream: the rows of complete superblocks
    are reduced to unit sums on the workers, the last superblock's rows (fewer
    than ``_SUPERBLOCK`` per sample) are added on the client."""
    import dask

    from ._streaming import _concat

    maps = dask.delayed(stream.transformers, pure=True, traverse=False)
    parts, tails = [], [[], []]
    for sample, A in enumerate((X, Y)):
        flush = _n_rows(A) // _SUPERBLOCK * _SUPERBLOCK
        for block, start, size in _blocks(A):
            head = min(size, max(flush - start, 0))
            if head:
                parts.append(
                    dask.delayed(_block_sums, pure=True)(
                        maps,
                        stream.widths,
                        block,
                        sample,
                        start,
                        flush,
                        unit,
                        stream.seed,
                        head,
                    )
                )
            if head < size:
                tails[sample].append(dask.delayed(take_rows)(block, slice(head, size)))
    while len(parts) > 1:
        parts = [
            dask.delayed(_merge, pure=True)(*parts[i : i + _FAN_IN])
            for i in range(0, len(parts), _FAN_IN)
        ]
    state, x_tail, y_tail = dask.compute(parts[0] if parts else None, *tails)
    if state is not None:
        stream.state = state
    rows = [_concat(list(t)) if len(t) else np.empty((0, 0)) for t in (x_tail, y_tail)]
    return stream.add(rows, unit)


def fit_sample(X, random_state):
    """A sampler's fit data from a dask array: at most ``FIT_ROWS`` rows, a
    seeded uniform subsample (drawn from ``random_state``) when there are more."""
    X = _known_rows(X, "X")
    if X.shape[0] <= FIT_ROWS:
        return X.compute()
    rng = check_random_state(random_state)
    idx = np.sort(
        np.random.default_rng(rng.randint(np.iinfo(np.int32).max)).choice(
            X.shape[0], FIT_ROWS, replace=False
        )
    )
    return X[idx].compute()


def _transform_block(block, sampler):
    return sampler.transform(block)


def transform(sampler, X):
    """``sampler.transform`` of a dask array: a lazy dask array, rows chunked."""
    import dask
    import dask.array as da

    X = _known_rows(X, "X")
    n_out = sampler.transform(np.zeros((1, X.shape[1]), dtype=X.dtype)).shape[1]
    meta = sampler.transform(np.zeros((1, X.shape[1]), dtype=X.dtype))[:0]
    return da.map_blocks(
        _transform_block,
        X,
        dask.delayed(sampler, pure=True, traverse=False),
        chunks=(X.chunks[0], (n_out,)),
        dtype=meta.dtype,
        meta=meta,
    )


def dispatching(method):
    """Wrap a sampler's ``fit`` or ``transform`` to take dask arrays."""

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if not is_dask(X):
            return method(self, X, *args, **kwargs)
        if method.__name__ == "transform":
            return transform(self, X)
        return method(self, fit_sample(X, self.random_state), *args, **kwargs)

    return wrapper
