"""Rows summed per group (skmmd/_utils/_groups.py) against a loop over the
groups."""

import numpy as np

from skmmd._utils._groups import indicator, summed


def test_rows_and_squared_norms_summed_per_group(rng):
    Z = rng.normal(size=(50, 4))
    groups = rng.integers(0, 7, 50)
    groups[:3] = 6  # the last group; group 5 may have no row
    S, q = summed(Z, groups, 8)
    assert indicator(groups, 8).shape == (8, 50)
    for g in range(8):
        rows = Z[groups == g]
        np.testing.assert_allclose(S[g], rows.sum(axis=0), atol=1e-12)
        np.testing.assert_allclose(q[g], (rows**2).sum(), atol=1e-12)
