"""The table map's Fourier part (skmmd/kernel_approximation/_ufunc_fourier.py)
is RandomFourierSampler's features, evaluated by NumPy's ufuncs."""

import numpy as np
import pytest

from skmmd import RandomFourierSampler
from skmmd.kernel_approximation._ufunc_fourier import UfuncFourier


@pytest.mark.parametrize(
    "options",
    [
        {"n_components": 64},
        {"n_components": 63},  # a random-phase column beside the pairs
        {"n_components": 32, "feature": "cos_phase"},
    ],
)
def test_ufunc_fourier_is_random_fourier_sampler_s_map(rng, options):
    """The same frequencies, columns and names; values within rounding of
    the compiled kernel's, per row and summed per group; float32 kept."""
    X = rng.normal(size=(700, 5))
    groups = rng.integers(0, 9, 700)
    ours = UfuncFourier(random_state=3, **options).fit(X)
    theirs = RandomFourierSampler(random_state=3, **options).fit(X)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), atol=1e-14)
    for a, b in zip(ours.grouped_sums(X, groups, 9), theirs.grouped_sums(X, groups, 9)):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert ours.transform(X.astype(np.float32)).dtype == np.float32
    assert (ours.get_feature_names_out() == theirs.get_feature_names_out()).all()
