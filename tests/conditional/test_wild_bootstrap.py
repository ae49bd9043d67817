"""The scale of the wild bootstrap's null (skmmd/conditional/_wild_bootstrap.py,
``null_scale``): independent of the chunks, and the ratio of the mean
statistic to the mean bootstrap statistic on pure noise."""

import numpy as np
import pytest

from skmmd import RandomFourierSampler
from skmmd.conditional._ridge import RidgeFolds
from skmmd.conditional._wild_bootstrap import null_scale
from skmmd.statistics._conditional import residual_products


def _noise_problem(seed, n=300, dz=100, split=3):
    """Pure noise targets (H0), heteroscedastic, many z-features per training
    row (fit noise matters), weights 1 and cos(z)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 1))
    C = RandomFourierSampler(n_components=dz, random_state=seed).fit_transform(z)
    F = rng.normal(size=(n, 6)) * (0.5 + np.abs(z))
    G = np.hstack([np.ones((n, 1)), np.cos(z)])
    folds = rng.permutation(np.arange(n) % 5)
    ridge = RidgeFolds(5, penalties=[1e-3], split=split).add(C, F, folds).fit()
    return C, F, G, folds, ridge


def _chunks(C, F, G, folds, size):
    for lo in range(0, len(C), size):
        rows = slice(lo, lo + size)
        yield np.arange(lo, lo + len(C[rows])), C[rows], F[rows], G[rows], folds[rows]


@pytest.mark.slow
@pytest.mark.parametrize("split", [3, None])
def test_null_scale_is_the_statistic_over_the_bootstrap_mean(split):
    # Chunks do not matter; the estimate matches the ratio of mean T to mean
    # bootstrap T over repetitions of pure noise: below 1 with disjoint x-
    # and y-training folds where fits have many features per training row
    # (0.88 +- 0.03 over 200), above 1 when they share rows (1.29 +- 0.06
    # over 80, where leaving out the draws' t0 . d would give 1.08).
    C, F, G, folds, ridge = _noise_problem(0, split=split)
    kappas = [
        null_scale(lambda: _chunks(C, F, G, folds, size), ridge, 3, seed=3)
        for size in (300, 37)
    ]
    assert kappas[0] == pytest.approx(kappas[1], rel=1e-9)
    T, Tb, estimates = [], [], []
    for seed in range(80):
        C, F, G, folds, ridge = _noise_problem(seed, split=split)
        R = ridge.residuals(C, F, folds)
        P = residual_products(R[:, :3], R[:, 3:], G)
        T.append(np.sum(P.sum(axis=0) ** 2))
        Tb.append(np.sum(P * P))
        chunks = lambda: _chunks(C, F, G, folds, 300)  # noqa: E731
        estimates.append(null_scale(chunks, ridge, 3, seed=seed))
    assert 0.8 < np.mean(estimates) < 0.95 if split else np.mean(estimates) > 1.15
    assert np.mean(estimates) == pytest.approx(np.mean(T) / np.mean(Tb), abs=0.12)
