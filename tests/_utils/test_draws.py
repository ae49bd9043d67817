"""The permutation draws (skmmd/_utils/_draws.py)."""

import numpy as np
import pytest


@pytest.mark.parametrize("units", [(37, 60), (60, 37), (1, 1), (5, 0)])
def test_permutation_draws_equal_by_numpy_and_compiled(monkeypatch, units):
    # Small batches are drawn by NumPy, large ones by the compiled parallel
    # loop: both must draw the same subsets from the same uniforms.
    from skmmd._utils import _draws

    def draws(threshold):
        monkeypatch.setattr(_draws, "_PARALLEL_MIN_SWAPS", threshold)
        return _draws.permutation_counts(np.random.default_rng(3), 40, units)

    small, large = draws(2**62), draws(0)
    np.testing.assert_array_equal(small, large)
    assert (small.sum(axis=1) == units[0]).all()
