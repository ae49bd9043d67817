import numpy as np
import pytest
from scipy import integrate, stats

from skmmd.datasets import _bump, make_mixture_of_gaussians, make_perturbed_uniform


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
