"""Dask arrays and DataFrames as lazy blocks, for any estimator of the package.

Dask is imported only here and in the tests' Dask driver
(:mod:`skmmd._inference._dask`), and only when a dask object arrives
(:func:`is_dask` looks at the type's module, importing nothing). A sampler maps
a dask array block by block with its own ``transform`` and fits on a seeded,
bounded subsample: :func:`dispatching` wraps its ``fit`` and ``transform``, the
sampler's one entry for Dask input.
"""

import functools

import numpy as np
from sklearn.utils import check_random_state

from . import _budgets
from ._streams import draw_seed


def is_dask(X):
    """Whether ``X`` is a dask collection (without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "dask")


def known_rows(X, name):
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


def dask_blocks(A):
    """``(delayed block, first row, rows)`` of each block or partition."""
    if hasattr(A, "columns"):
        sizes = A.map_partitions(len).compute().tolist()
        blocks = A.to_delayed()
    else:
        sizes = [int(c) for c in A.chunks[0]]
        blocks = A.to_delayed().ravel()
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    return list(zip(blocks, starts.tolist(), sizes))


def dask_rows(A):
    return len(A) if hasattr(A, "columns") else int(A.shape[0])


def fit_sample(X, random_state):
    """A sampler's fit data from a dask array: at most
    ``_budgets.FIT_SUBSAMPLE_ROWS`` rows, a seeded uniform subsample (drawn
    from ``random_state``) when there are more."""
    X = known_rows(X, "X")
    if X.shape[0] <= _budgets.FIT_SUBSAMPLE_ROWS:
        return X.compute()
    rng = check_random_state(random_state)
    idx = np.sort(
        np.random.default_rng(draw_seed(rng)).choice(
            X.shape[0], _budgets.FIT_SUBSAMPLE_ROWS, replace=False
        )
    )
    return X[idx].compute()


def _transform_block(block, sampler):
    return sampler.transform(block)


def transform(sampler, X):
    """``sampler.transform`` of a dask array: a lazy dask array, rows chunked."""
    import dask
    import dask.array as da

    X = known_rows(X, "X")
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
