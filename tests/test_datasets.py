"""The data set generators (skmmd/datasets.py)."""

import numpy as np
import pytest
from scipy import integrate, stats

from skmmd.datasets import (
    _bump,
    make_blobs_two_sample,
    make_mixture_of_gaussians,
    make_perturbed_uniform,
)


@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_blobs_geometry(epsilon):
    X, Y = make_blobs_two_sample(
        20000, n_samples_y=30000, epsilon=epsilon, random_state=0
    )
    assert X.shape == (20000, 2) and Y.shape == (30000, 2)
    for Z in (X, Y):
        centres = 10.0 * np.round(Z / 10.0)
        # Centres on the 5 x 5 grid, about equally often (each 1/25: 4% +- 0.5%).
        assert set(np.unique(centres)) <= {0.0, 10.0, 20.0, 30.0, 40.0}
        counts = np.unique(centres, axis=0, return_counts=True)[1] / len(Z)
        assert counts.size == 25 and np.all(np.abs(counts - 0.04) < 0.006)
    # Within-blob covariances: identity for P; eigenvalues 2/(eps+1) (1, 1) and
    # 2 eps/(eps+1) (1, -1) for Q, ratio eps. Rounding to the nearest centre
    # misassigns only points 5 sd away. 30000 points: sd of a variance ~0.01.
    cov_x = np.cov((X - 10.0 * np.round(X / 10.0)).T)
    cov_y = np.cov((Y - 10.0 * np.round(Y / 10.0)).T)
    np.testing.assert_allclose(cov_x, np.eye(2), atol=0.05)
    lam = np.linalg.eigvalsh(cov_y)
    assert lam[1] / lam[0] == pytest.approx(epsilon, rel=0.05)


def test_blobs_seeded_and_validated():
    a = make_blobs_two_sample(10, random_state=3)
    b = make_blobs_two_sample(10, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="'epsilon' parameter"):
        make_blobs_two_sample(10, epsilon=0.5)


def test_mixture_components():
    X, Y = make_mixture_of_gaussians(4000, 4000, sigma=3.0, random_state=0)
    for sample, sd in ((X, 1.0), (Y, 3.0)):
        corner = sample[(sample[:, 0] < 0) & (sample[:, 1] < 0)]
        other = sample[(sample[:, 0] > 0) & (sample[:, 1] > 0)]
        assert abs(len(corner) / len(sample) - 0.25) < 0.03
        assert corner.std(axis=0) == pytest.approx([sd, sd], rel=0.1)
        assert other.std(axis=0) == pytest.approx([1.0, 1.0], rel=0.1)


def test_bump_integrates_to_zero_and_is_bounded():
    value, _ = integrate.quad(lambda t: _bump(np.array([t]))[0], -1, 0, points=[-0.5])
    assert abs(value) < 1e-10
    t = np.linspace(-1.5, 0.5, 10001)
    assert np.abs(_bump(t)).max() <= np.exp(-1) + 1e-12


def test_perturbed_uniform_null_and_alternative():
    X0, Y0 = make_perturbed_uniform(3000, 3000, scale=0.0, random_state=0)
    assert stats.kstest(X0[:, 0], "uniform").pvalue > 1e-3
    X, _ = make_perturbed_uniform(
        20000, 10, scale=1.0, n_perturbations=2, random_state=0
    )
    # Histogram against the density: 2 bumps, each with a + and - half.
    hist, edges = np.histogram(X[:, 0], bins=8, range=(0, 1), density=True)
    assert np.abs(hist - 1).max() > 0.3  # visibly perturbed
    assert X.min() >= 0 and X.max() <= 1


def test_bad_parameters():
    with pytest.raises(ValueError, match="scale"):
        make_perturbed_uniform(scale=1.5)
    with pytest.raises(ValueError, match="sigma"):
        make_mixture_of_gaussians(sigma=0.0)
