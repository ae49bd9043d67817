"""The compiled permutation draws (skmmd/_utils/_draws.py)."""

import numpy as np


def test_permutation_draws_equal_on_one_thread_and_many(monkeypatch):
    # Small batches run the serial copy of the draws, large ones the parallel
    # copy: both must draw the same subsets from the same uniforms.
    from skmmd._utils import _draws

    def draws(threshold):
        monkeypatch.setattr(_draws, "_PARALLEL_MIN_SWAPS", threshold)
        return _draws.permutation_counts(np.random.default_rng(3), 40, (37, 60))

    serial, parallel = draws(2**62), draws(0)
    np.testing.assert_array_equal(serial, parallel)
    assert (serial.sum(axis=1) == 37).all()
