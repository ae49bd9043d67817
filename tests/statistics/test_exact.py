"""Exact MMD statistics (skmmd/statistics/_exact.py): quadratic, linear-time and
block statistics against their definitions, errors."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from skmmd.kernels import gaussian_kernel
from skmmd.statistics import mmd2_block, mmd2_exact, mmd2_linear
from tests.helpers.references import mmd2_dense


@pytest.mark.parametrize("statistic", ["unbiased", "biased"])
@pytest.mark.parametrize("chunk_size", [None, 5])
def test_exact_gaussian_matches_dense(rng, statistic, chunk_size):
    X, Y = rng.normal(size=(23, 2)), rng.normal(size=(31, 2)) * 1.5
    gamma = 0.5 / 1.3**2
    expected = mmd2_dense(
        rbf_kernel(X, gamma=gamma),
        rbf_kernel(Y, gamma=gamma),
        rbf_kernel(X, Y, gamma=gamma),
        statistic == "unbiased",
    )
    got = mmd2_exact(X, Y, bandwidth=1.3, statistic=statistic, chunk_size=chunk_size)
    assert got == pytest.approx(expected, abs=1e-12)


def test_biased_nonnegative_unbiased_can_be_negative(rng):
    # For Y = X and k <= 1 with k(x, x) = 1: MMD2_u = 2 (S - m^2) / (m^2 (m - 1))
    # with S = sum k(X, X) < m^2 for distinct points: strictly negative.
    X = rng.normal(size=(20, 2))
    S = gaussian_kernel(X).sum()
    assert mmd2_exact(X, X) == pytest.approx(2 * (S - 400) / (400 * 19), abs=1e-14)
    assert mmd2_exact(X, X) < 0
    assert mmd2_exact(X, X, statistic="biased") == pytest.approx(0.0, abs=1e-14)
    assert mmd2_exact(X, rng.normal(size=(15, 2)), statistic="biased") >= 0


def test_linear_time_statistic_matches_definition(rng):
    X, Y = rng.normal(size=(11, 2)), rng.normal(size=(14, 2))

    def k(a, b):
        return float(np.exp(-0.5 * np.sum((a - b) ** 2)))

    h = [
        k(X[i], X[i + 1]) + k(Y[i], Y[i + 1]) - k(X[i], Y[i + 1]) - k(X[i + 1], Y[i])
        for i in range(0, 10, 2)
    ]
    assert mmd2_linear(X, Y) == pytest.approx(np.mean(h), abs=1e-14)
    # A callable kernel gives the same as the named one.
    assert mmd2_linear(
        X, Y, kernel=lambda A, B: gaussian_kernel(A, B)
    ) == pytest.approx(np.mean(h), abs=1e-14)


@pytest.mark.parametrize("kernel", ["laplacian", "matern"])
def test_linear_time_named_kernels_match_gram(rng, kernel):
    X, Y = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    from skmmd.kernels import laplacian_kernel, matern_kernel

    K = {"laplacian": laplacian_kernel, "matern": matern_kernel}[kernel]
    via_gram = mmd2_linear(X, Y, kernel=lambda A, B: K(A, B, bandwidth=0.7))
    assert mmd2_linear(X, Y, kernel=kernel, bandwidth=0.7) == pytest.approx(via_gram)


def test_block_statistic_is_mean_of_block_statistics(rng):
    X, Y = rng.normal(size=(20, 2)), rng.normal(size=(23, 2))
    expected = np.mean(
        [mmd2_exact(X[i : i + 4], Y[i : i + 4]) for i in range(0, 20, 4)]
    )
    assert mmd2_block(X, Y, block_size=4) == pytest.approx(expected, abs=1e-14)
    # Default block size: floor(sqrt(20)) = 4.
    assert mmd2_block(X, Y) == pytest.approx(expected, abs=1e-14)


def test_errors():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="Y needs at least 2 samples"):
        mmd2_exact(X, np.zeros((1, 2)))
    with pytest.raises(ValueError, match="block_size=10 exceeds"):
        mmd2_block(X, X, block_size=10)
