"""MCMC chains as the rows of a goodness-of-fit test: 3-D arrays, whose
chains' axis is stated (``chain_axis``) or read from their shape, and ArviZ
``InferenceData`` (its posterior group) or an xarray ``Dataset`` with
``chain`` and ``draw`` dimensions. The chains are concatenated, each in its
own time order, so that ``block_size`` resamples blocks of consecutive
draws."""

import numpy as np

# chain_axis="auto": the first two axes of a 3-D array must differ by more
# than this factor for the shorter to be read as the chains (chains are few,
# draws many); closer ones are refused as ambiguous.
CHAIN_AXIS_RATIO = 2


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


def resolved_chain_axis(shape, chain_axis="auto"):
    """The axis (0 or 1) of a 3-D array of this shape that indexes chains.

    ``"auto"``: the shorter of the first two axes, when it is shorter than the
    other by more than ``CHAIN_AXIS_RATIO``; else a ValueError that says how
    to state it.
    """
    if chain_axis != "auto":
        return int(chain_axis)
    first, second = shape[0], shape[1]
    if second * CHAIN_AXIS_RATIO < first:
        return 1
    if first * CHAIN_AXIS_RATIO < second:
        return 0
    raise ValueError(
        f"An array of chains of shape {tuple(shape)} does not say which axis "
        f"holds the chains: its first two axes ({first} and {second}) are within "
        f"a factor of {CHAIN_AXIS_RATIO} of each other. State it with "
        "chain_axis=0 for (chains, draws, d) (PyMC, NumPyro, Stan) or "
        "chain_axis=1 for (draws, chains, d) (emcee's get_chain()), or pass an "
        "ArviZ InferenceData, whose dims say."
    )


def chain_rows(X, chain_axis="auto"):
    """``(rows, n_chains)``: the draws of every chain as rows (chain after
    chain, each in time order), float64 of shape (chains x draws, d).

    An array is read with its chains on ``chain_axis`` (0: ``(chains, draws,
    d)``; 1: ``(draws, chains, d)``; ``"auto"``: see
    :func:`resolved_chain_axis`); a posterior as each variable's ``(chain,
    draw, ...)`` values, flattened per draw and side by side in the order of
    its variables (``chain_axis`` is not read: the dims say).
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
        if resolved_chain_axis(array.shape, chain_axis) == 1:
            draws = np.swapaxes(array, 0, 1)  # (chain, draw, d)
        else:
            draws = array
    n_chains, n_draws, d = draws.shape
    if n_draws < 2:
        hint = "" if posterior is not None else f" with chain_axis={chain_axis!r}"
        raise ValueError(
            f"The chains hold {n_draws} draw(s) each ({n_chains} chain(s){hint}); "
            "a test of their draws needs more."
        )
    return np.ascontiguousarray(draws.reshape(n_chains * n_draws, d), np.float64), (
        n_chains
    )
