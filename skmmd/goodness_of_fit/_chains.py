"""MCMC chains as the rows of a goodness-of-fit test: arrays shaped
``(draws, chains, d)`` as emcee's ``get_chain()`` returns them, and ArviZ
``InferenceData`` (its posterior group) or an xarray ``Dataset`` with
``chain`` and ``draw`` dimensions. The chains are concatenated, each in its
own time order, so that ``block_size`` resamples blocks of consecutive
draws."""

import numpy as np


def _posterior(X):
    """The posterior Dataset of ``X`` (InferenceData or Dataset), or None."""
    group = getattr(X, "posterior", X)
    dims = getattr(group, "dims", None)
    if hasattr(group, "data_vars") and dims is not None:
        if "chain" in dims and "draw" in dims:
            return group
    return None


def is_chains(X):
    """Whether ``X`` holds MCMC chains: a 3-D array or an ArviZ posterior."""
    return _posterior(X) is not None or np.ndim(X) == 3


def chain_rows(X):
    """``(rows, n_chains)``: the draws of every chain as rows (chain after
    chain, each in time order), float64 of shape (chains x draws, d).

    An array is read as ``(draws, chains, d)`` (emcee's layout); a posterior
    as each variable's ``(chain, draw, ...)`` values, flattened per draw and
    side by side in the order of its variables.
    """
    posterior = _posterior(X)
    if posterior is not None:
        columns = []
        for name in posterior.data_vars:
            values = posterior[name].transpose("chain", "draw", ...).values
            columns.append(values.reshape(values.shape[0], values.shape[1], -1))
        draws = np.concatenate(columns, axis=2)  # (chain, draw, d)
    else:
        array = np.asarray(X, dtype=np.float64)
        draws = np.swapaxes(array, 0, 1)  # (chain, draw, d)
    n_chains, n_draws, d = draws.shape
    if n_draws < 2:
        raise ValueError(
            f"The chains hold {n_draws} draw(s) each; a test of their draws needs "
            "more (an array of chains is (draws, chains, d), as emcee returns it)."
        )
    return np.ascontiguousarray(draws.reshape(n_chains * n_draws, d), np.float64), (
        n_chains
    )
