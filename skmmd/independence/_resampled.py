"""The independence family's resamples for the one calibration loop
(:mod:`skmmd._inference._calibration`): HSIC of every pairing of the x and y
units (the conditional test's multiplier bootstrap is the shared
:mod:`skmmd._inference._multiplier`)."""

import numpy as np

from .._inference._blocks import shift_pairings
from .._inference._multiplier import resampled


def resampled_hsic(
    parts,
    *,
    n_resamples=999,
    batch=None,
    seed=0,
    n_jobs=None,
    verbose=0,
    stopping=None,
    p_of=None,
    shift=None,
):
    """Observed HSIC and its permutation null: the y observations (units)
    paired with the x ones by uniformly random permutations.

    ``parts``: the :class:`~skmmd.statistics._hsic.HSICParts` of the observations,
    of one pair of kernels or of several (each x column group against y in
    ``explain``, an aggregated test's grid), all on the same pairings.
    Returns ``(observed, null, tolerance)`` as the two-sample tests'
    ``resampled_statistics``: floats and a null of shape (B,) for one pair of
    kernels, else arrays with a column of ``null`` per pair. ``stopping`` and
    ``p_of`` as there (``n_resamples="auto"``). ``shift``: for units of
    rows in time order (``block_size``), pair the units by circular shifts
    of y against x by at least ``shift`` units
    (:func:`~skmmd._inference._blocks.shift_pairings`) instead of
    permutations.
    """
    rng = np.random.default_rng(seed)
    G = parts.G

    def draw(s):
        # Row after row from the one generator: any batching, same pairings.
        if shift is not None:
            return (shift_pairings(rng, s.stop - s.start, G, shift),)
        identity = np.broadcast_to(np.arange(G), (s.stop - s.start, G))
        return (rng.permuted(identity, axis=1),)

    return resampled(parts, draw, n_resamples, batch, n_jobs, verbose, stopping, p_of)
