"""The squared norm of a mean of row features (skmmd/statistics/_mean_norm.py):
the statistic and its multiplier bootstrap, the effect and its jackknife
against brute force, bad input."""

import numpy as np
import pytest

from skmmd.statistics._conditional import residual_products
from skmmd.statistics._mean_norm import MultiplierParts


def _signs(rng, n_resamples, n_units):
    """Rademacher multiplier weights, one row per draw."""
    return 2.0 * rng.integers(0, 2, size=(n_resamples, n_units)) - 1.0


def test_statistic_and_bootstrap_match_their_definitions(rng):
    n, G = 120, 30
    P = residual_products(rng.normal(size=(n, 3)), rng.normal(size=(n, 2)))
    units = rng.permutation(np.arange(n) % G)
    U = np.array([P[units == g].sum(axis=0) for g in range(G)])
    parts = MultiplierParts(U, np.bincount(units))
    T, scale = parts.observed()
    assert T == pytest.approx(n * np.sum(P.mean(axis=0) ** 2), rel=1e-12)
    assert scale >= T
    rng = np.random.default_rng(1)
    for W in (_signs(rng, 25, G), rng.standard_normal((25, G))):
        stats, scales = parts.statistics(W)
        loop = [np.sum((W[b] @ U) ** 2) / n for b in range(25)]
        np.testing.assert_allclose(stats, loop, rtol=1e-12)
        assert np.all(scales >= stats)
    # Weights of one on every unit give the observed statistic.
    assert parts.statistics(np.ones((1, G)))[0][0] == pytest.approx(T, rel=1e-12)


def test_centered_draws_have_the_spread_of_the_statistic_under_h0():
    # Few long units (blocks): deviations from the estimated mean spread
    # less, by 1 - sum m_g^2 / n^2 (1 - 1/G for equal units); the draws are
    # divided by it, so their mean is the statistic's mean under H0.
    rng = np.random.default_rng(2)
    G, m, D = 8, 25, 3
    sizes = np.full(G, m)
    observed, drawn = [], []
    for _ in range(3000):
        U = rng.normal(size=(G, D)) * np.sqrt(m)  # independent units, mean 0
        parts = MultiplierParts(U, sizes, centered=True)
        observed.append(parts.observed()[0])
        drawn.append(parts.statistics(_signs(rng, 20, G))[0].mean())
        # The definition: centered draws over the kept share of the spread.
        W = _signs(rng, 3, G)
        deviations = U - sizes[:, None] * U.sum(axis=0) / (G * m)
        loop = [np.sum((w @ deviations) ** 2) / (G * m) / (1 - 1 / G) for w in W]
        np.testing.assert_allclose(parts.statistics(W)[0], loop, rtol=1e-12, atol=1e-12)
    # Both means are D = 3; uncentered-share draws would average 3 (1 - 1/8).
    assert np.mean(drawn) == pytest.approx(np.mean(observed), rel=0.04)
    assert np.mean(drawn) == pytest.approx(D, rel=0.04)


def test_effect_and_its_jackknife_match_brute_force(rng):
    sizes = rng.integers(1, 5, size=12)
    U = rng.normal(size=(12, 4)) + 0.3 * sizes[:, None]

    def effect(U, m):
        total = U.sum(axis=0)
        cross = total @ total - np.sum(U * U)
        return cross / (m.sum() ** 2 - m @ m)

    value, se = MultiplierParts(U, sizes).effect()
    assert value == pytest.approx(effect(U, sizes), rel=1e-12)
    loo = np.array([effect(np.delete(U, h, 0), np.delete(sizes, h)) for h in range(12)])
    expected = np.sqrt(11 / 12 * np.sum((loo - loo.mean()) ** 2))
    assert se == pytest.approx(expected, rel=1e-10)
    assert np.isnan(MultiplierParts(U[:2], sizes[:2]).effect()[1])


def test_effect_is_unbiased_for_independent_rows():
    # Rows with mean mu: the cross terms of distinct units estimate ||mu||^2
    # without the diagonal's variance; 2000 draws put the mean within about
    # 4 standard errors (each effect has sd ~ 0.05).
    rng = np.random.default_rng(0)
    mu = np.array([0.2, -0.1, 0.0])
    sizes = np.array([1, 2, 3, 4, 5, 5])
    draws = []
    for _ in range(2000):
        U = np.array([rng.normal(mu, 1.0, size=(m, 3)).sum(axis=0) for m in sizes])
        draws.append(MultiplierParts(U, sizes).effect()[0])
    assert np.mean(draws) == pytest.approx(mu @ mu, abs=4 * np.std(draws) / 45)


def test_bad_parts():
    with pytest.raises(ValueError, match="one size per row"):
        MultiplierParts(np.ones((3, 2)), np.ones(2))
