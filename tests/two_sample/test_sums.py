"""The two-sample draws (skmmd/two_sample/_sums.py, ``draw_counts``):
permutations are uniform subsets of the units, bootstrap counts have the
right means."""

import numpy as np

from skmmd.two_sample._sums import draw_counts


def test_permutations_are_uniform_subsets():
    # Every unit is in X* with probability g_x / G; with 4000 draws the count is
    # Binomial(4000, 0.3): sd 29, so +-5 sd = +-145 around 1200.
    A, C = draw_counts(np.random.default_rng(0), "permutation", 4000, (3, 7))
    assert C is None
    np.testing.assert_array_equal(A.sum(axis=1), 3)
    assert np.all(np.abs(A.sum(axis=0) - 1200) < 145)


def test_bootstrap_counts():
    # m + n draws of 10 units per resample: each unit count ~ Binomial(10, 0.1)
    # per sample size, mean over 4000 resamples of A is m/G = 0.3 (sd 0.008).
    A, C = draw_counts(np.random.default_rng(0), "bootstrap", 4000, (3, 7))
    np.testing.assert_array_equal(A.sum(axis=1), 3)
    np.testing.assert_array_equal(C.sum(axis=1), 7)
    assert np.all(np.abs(A.mean(axis=0) - 0.3) < 0.05)
    assert np.all(np.abs(C.mean(axis=0) - 0.7) < 0.08)


def test_permutation_subsets_are_uniform_over_all_subsets():
    # Every 2-subset of 5 units (and, drawn through the complement, every
    # 3-subset) is equally likely: 20000 draws over 10 subsets, chi-square
    # with 9 degrees of freedom, P(> 33.7) = 1e-4.
    from itertools import combinations

    from scipy.stats import chi2

    for n_units in ((2, 3), (3, 2)):
        A, _ = draw_counts(np.random.default_rng(0), "permutation", 20000, n_units)
        subsets = {s: i for i, s in enumerate(combinations(range(5), n_units[0]))}
        counts = np.bincount(
            [subsets[tuple(np.flatnonzero(row))] for row in A], minlength=10
        )
        expected = 20000 / 10
        assert ((counts - expected) ** 2 / expected).sum() < chi2.isf(1e-4, 9)
