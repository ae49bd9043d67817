"""The resampling units of two samples, rebuilt from the stream's virtual
positions."""

import numpy as np

from skmmd._inference._streaming import virtual_positions


def unit_members(m, n, unit, seed=0):
    """Pooled rows of each resampled unit (in the pipeline's order: complete
    units of X by unit id, then Y's) and the fixed rows of X and of Y."""
    units, fixed = [], []
    for sample, (size, shift) in enumerate(((m, 0), (n, m))):
        ids = virtual_positions(seed, sample, 0, size, size) // unit
        complete = [g for g in np.unique(ids) if np.sum(ids == g) == unit]
        units += [np.flatnonzero(ids == g) + shift for g in complete]
        fixed.append(np.flatnonzero(~np.isin(ids, complete)) + shift)
    return units, fixed
