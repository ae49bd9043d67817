"""The conditional test on rows' features, written out by hand (cross-fitted
ridge, products of residuals, Rademacher resamples; the pipeline of
skmmd/conditional/_pipeline.py): level and power on a non-linear
null and alternative."""

import numpy as np
import pytest

from skmmd import RandomFourierSampler
from skmmd.conditional._maps import n_z_features
from skmmd.conditional._ridge import RidgeFolds
from skmmd.statistics._conditional import residual_products
from skmmd.statistics._mean_norm import MultiplierParts


def _signs(rng, n_resamples, n_units):
    """Rademacher multiplier weights, one row per draw."""
    return 2.0 * rng.integers(0, 2, size=(n_resamples, n_units)) - 1.0


def _p_value(x, y, z, seed):
    """The recommended pipeline, small: 6 + 6 features of x and y, z-features
    at three bandwidths, double cross-fitting on 5 folds, 199 Rademacher
    resamples."""
    n = len(x)
    rng = np.random.default_rng(seed)
    maps = [RandomFourierSampler(n_components=6, random_state=seed + i) for i in (1, 2)]
    F = np.hstack([m.fit_transform(v) for m, v in zip(maps, (x, y))])
    d = n_z_features(n) // 3
    base = RandomFourierSampler(n_components=d, random_state=seed).fit(z).bandwidth_
    C = np.hstack(
        [
            RandomFourierSampler(
                n_components=d, bandwidth=base * f, random_state=seed + 3 + i
            ).fit_transform(z)
            for i, f in enumerate((0.2, 0.5, 1.0))
        ]
    )
    folds = rng.integers(0, 5, size=n)
    R = RidgeFolds(5, split=6).add(C, F, folds).fit().residuals(C, F, folds)
    parts = MultiplierParts(residual_products(R[:, :6], R[:, 6:]), np.ones(n))
    T = parts.observed()[0]
    null = parts.statistics(_signs(rng, 199, n))[0]
    return (1 + np.sum(null >= T)) / 200


@pytest.mark.slow
def test_level_and_power_on_a_non_linear_null_and_alternative():
    # 60 tests at n = 300 of a strong 1-D null: at level 0.05 the count of
    # rejections is Binomial(60, 0.05), P(>= 9) < 0.01. Shared noise of scale
    # 1 is found nearly always.
    rejected, found = 0, 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        z = rng.normal(size=(300, 1))
        e = rng.normal(size=(300, 3))
        x = np.exp(z) + 0.3 * e[:, :1]
        y = np.tanh(2 * z) + 0.3 * e[:, 1:2]
        rejected += _p_value(x, y, z, 1000 * seed) <= 0.05
        if seed < 20:
            shared = e[:, 2:]
            found += _p_value(x + shared, y + shared, z, 1000 * seed + 7) <= 0.05
    assert rejected <= 8
    assert found >= 18
