"""The permutation draws (skmmd/_utils/_draws.py)."""

import numpy as np
import pytest


@pytest.mark.parametrize("units", [(37, 60), (60, 37), (1, 1), (5, 0)])
def test_permutation_draws_equal_by_numpy_serial_and_parallel(monkeypatch, units):
    # Small batches of few units are drawn by NumPy, others by the compiled
    # loop, serial or parallel: all must draw the same subsets from the same
    # uniforms.
    from skmmd._utils import _draws

    def draws(parallel_from, numpy_up_to):
        monkeypatch.setattr(_draws, "_PARALLEL_MIN_SWAPS", parallel_from)
        monkeypatch.setattr(_draws, "_NUMPY_MAX_SWAPS_PER_ROW", numpy_up_to)
        return _draws.permutation_counts(np.random.default_rng(3), 40, units)

    by_numpy, serial, parallel = draws(2**62, 2**62), draws(2**62, -1), draws(0, -1)
    np.testing.assert_array_equal(by_numpy, serial)
    np.testing.assert_array_equal(by_numpy, parallel)
    assert (by_numpy.sum(axis=1) == units[0]).all()
