"""The kernel Stein discrepancy's statistics (skmmd/statistics/_stein.py): Stein
features against the exact Stein kernel, the Stein kernel against its
definition by automatic differences, the Gram parts against brute force."""

import numpy as np
import pytest

from skmmd import RandomFourierSampler
from skmmd.statistics._stein import (
    GramParts,
    add_stein_unit_sums,
    gaussian_stein_gram,
    stein_features,
)


def _numerical_stein_kernel(x, y, score, h):
    """u_p(x, y) from its definition, the kernel's derivatives by central
    differences."""
    d, eps = x.size, 1e-5

    def k(a, b):
        return np.exp(-np.sum((a - b) ** 2) / (2 * h * h))

    def grad(f, a):
        return np.array(
            [(f(a + eps * e) - f(a - eps * e)) / (2 * eps) for e in np.eye(d)]
        )

    gx = grad(lambda a: k(a, y), x)
    gy = grad(lambda b: k(x, b), y)
    trace = sum(
        (
            k(x + eps * e, y + eps * e)
            - k(x + eps * e, y - eps * e)
            - k(x - eps * e, y + eps * e)
            + k(x - eps * e, y - eps * e)
        )
        / (4 * eps * eps)
        for e in np.eye(d)
    )
    sx, sy = score(x[None])[0], score(y[None])[0]
    return sx @ sy * k(x, y) + sx @ gy + sy @ gx + trace


def test_stein_gram_matches_its_definition(rng):
    X = rng.normal(size=(6, 3))

    def score(A):
        return -A / 2.0 + np.sin(A)

    H = gaussian_stein_gram(X, score(X), 1.3)
    for i in range(6):
        for j in range(6):
            expected = _numerical_stein_kernel(X[i], X[j], score, 1.3)
            assert H[i, j] == pytest.approx(expected, rel=1e-5, abs=1e-6)
    np.testing.assert_allclose(H, H.T, atol=1e-12)


def test_stein_features_give_the_stein_kernel_of_the_feature_kernel(rng):
    # With features phi, xi(x)'xi(y) is the Stein kernel of k = phi'phi: for
    # the exact Gaussian kernel as the number of frequencies grows.
    X = rng.normal(size=(40, 2))
    S = -X
    exact = gaussian_stein_gram(X, S, 1.5)
    errors = []
    for n_components in (64, 4096, 65536):
        rff = RandomFourierSampler(bandwidth=1.5, n_components=n_components)
        rff.set_params(random_state=0).fit(X)
        xi = stein_features(X, S, rff.random_weights_)
        assert xi.shape == (40, n_components * 2)
        errors.append(np.abs(xi @ xi.T - exact).max())
    assert errors[2] < errors[0] / 8
    assert errors[2] < 0.05


def test_stein_features_have_mean_zero_under_the_model():
    # Stein's identity: E_p xi(x) = 0, so the features' mean shrinks as
    # 1/sqrt(n) for the model's own rows and not for another law's.
    rng = np.random.default_rng(1)
    W = rng.normal(size=(1, 8))
    X = rng.normal(size=(200_000, 1))
    mean_fit = stein_features(X, -X, W).mean(axis=0)
    L = rng.laplace(scale=1 / np.sqrt(2), size=(200_000, 1))
    mean_laplace = stein_features(L, -L, W).mean(axis=0)
    assert np.abs(mean_fit).max() < 0.01
    assert np.abs(mean_laplace).max() > 0.03


def test_gram_parts_match_brute_force(rng):
    A = rng.normal(size=(9, 9))
    H = A @ A.T
    parts = GramParts(H)
    assert parts.observed()[0] == pytest.approx(H.sum() / 9)
    W = np.where(rng.random((4, 9)) < 0.5, -1.0, 1.0)
    expected = [w @ H @ w / 9 for w in W]
    np.testing.assert_allclose(parts.statistics(W)[0], expected, rtol=1e-12)

    def u_stat(M):
        n = M.shape[0]
        return (M.sum() - np.trace(M)) / (n * (n - 1))

    effect, se = parts.effect()
    assert effect == pytest.approx(u_stat(H))
    loo = np.array([u_stat(np.delete(np.delete(H, i, 0), i, 1)) for i in range(9)])
    assert se == pytest.approx(np.sqrt(8 / 9 * np.sum((loo - loo.mean()) ** 2)))


@pytest.mark.parametrize("weighted", [False, True])
def test_fused_unit_sums_match_the_features_summed_per_group(rng, weighted):
    """``add_stein_unit_sums`` (numba) against its numpy reference: each
    group's sum of the Stein features ``s_i phi(x_i) + a_i grad phi(x_i)``
    (``a_i = 1`` without weights) and of their squared norms."""
    X, S = rng.normal(size=(30, 2)), rng.normal(size=(30, 2))
    W = rng.normal(size=(2, 5))
    a = rng.uniform(0.1, 2.0, size=30) if weighted else np.ones(30)
    groups = rng.integers(4, size=30)
    L = W.shape[1]
    cos, sin = np.cos(X @ W) / np.sqrt(L), np.sin(X @ W) / np.sqrt(L)
    xi = np.concatenate(
        [
            S[:, :, None] * cos[:, None] - a[:, None, None] * W * sin[:, None],
            S[:, :, None] * sin[:, None] + a[:, None, None] * W * cos[:, None],
        ],
        axis=1,
    ).reshape(30, -1)
    sums, squares = np.zeros((4, xi.shape[1])), np.zeros(4)
    add_stein_unit_sums(
        np.hstack([cos, sin]), S, W, groups, sums, squares, a if weighted else None
    )
    for g in range(4):
        np.testing.assert_allclose(sums[g], xi[groups == g].sum(0), atol=1e-12)
        assert squares[g] == pytest.approx((xi[groups == g] ** 2).sum())
