"""Exact references between densities (skmmd/kernels/_densities.py): known
divergences, callables against grids, errors."""

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.utils._testing import assert_allclose

from skmmd.kernels import (
    density_divergence,
    hdd_divergence_matrix,
    hdd_integrand,
    hdd_kernel,
)

# ---------------------------------------------------------------------------
# Exact references (skmmd.kernels)
# ---------------------------------------------------------------------------


def test_density_divergence_known_values():
    beta21 = lambda u: 2.0 * u[:, 0]  # noqa: E731
    unif = lambda u: np.ones(len(u))  # noqa: E731
    # TV: int |2u - 1| = 1/2; H^2 = 1 - int sqrt(2u) = 1 - 2 sqrt(2) / 3
    assert density_divergence(beta21, unif, divergence="tv", n_features=1) == (
        pytest.approx(0.5, abs=1e-6)
    )
    h2 = density_divergence(beta21, unif, divergence="hellinger", n_features=1)
    assert h2 == pytest.approx(1 - 2 * np.sqrt(2) / 3, abs=1e-6)
    # JS: by quad
    js = integrate.quad(lambda u: hdd_integrand(2 * u, 1.0, "js"), 0, 1)[0]
    assert density_divergence(beta21, unif, n_features=1) == pytest.approx(js, abs=1e-7)
    # grid input and disjoint supports reach the maxima
    p, q = np.array([[2.0, 0.0]]), np.array([[0.0, 2.0]])
    for div, top in [("js", np.log(2)), ("hellinger", 1.0), ("tv", 2.0)]:
        assert density_divergence(p, q, divergence=div) == pytest.approx(top)
        assert hdd_kernel(np.vstack([p, q]), divergence=div, bandwidth=2.0)[
            0, 1
        ] == pytest.approx(np.exp(-top / 8))


def test_hdd_divergence_matrix_callables_and_grid_agree():
    dens = [lambda u, a=a: stats.beta.pdf(u[:, 0], a, 2) for a in (1, 2, 3)]
    u = ((np.arange(4096) + 0.5) / 4096)[:, None]
    grid = np.stack([d(u) for d in dens])
    R1 = hdd_divergence_matrix(dens, n_features=1)
    R2 = hdd_divergence_matrix(grid)
    assert_allclose(R1, R2)
    assert_allclose(np.diag(R1), 0.0, atol=1e-15)
    assert_allclose(R1, R1.T)
    assert hdd_divergence_matrix(grid[:1], grid).shape == (1, 3)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: hdd_integrand(1.0, 1.0, "kl"), "divergence must be one of"),
        (lambda: density_divergence(lambda u: u, lambda u: u), "n_features"),
        (
            lambda: density_divergence(np.ones(3), np.ones(4)),
            "same grid",
        ),
        (lambda: density_divergence(np.ones(0), np.ones(0)), "at least one value"),
        (
            lambda: density_divergence(
                lambda u: np.ones(3), lambda u: np.ones(3), n_features=1
            ),
            "must map an",
        ),
        (lambda: hdd_divergence_matrix(np.ones(3)), "one density per row"),
        (
            lambda: hdd_divergence_matrix(np.ones((2, 3)), np.ones((2, 4))),
            "same grid",
        ),
        (lambda: hdd_kernel(np.ones((2, 3)), bandwidth=-1.0), "bandwidth"),
    ],
)
def test_exact_reference_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
