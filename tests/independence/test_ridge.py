"""The conditional-independence core: cross-fitted ridge from sufficient
statistics against direct numpy fits, its cross-validated penalty against
brute force, the residual products, the multiplier bootstrap and effect size
against loops, a small seeded level and power check, and bad input."""

import numpy as np
import pytest

from skmmd import RandomFourierSampler
from skmmd.independence._conditional_maps import n_z_features
from skmmd.independence._ridge import PENALTIES, RidgeFolds
from skmmd.independence._wild_bootstrap import null_scale
from skmmd.mmd._conditional import ConditionalParts, residual_products


def _signs(rng, n_resamples, n_units):
    """Rademacher multiplier weights, one row per draw."""
    return 2.0 * rng.integers(0, 2, size=(n_resamples, n_units)) - 1.0


def _problem(rng, n=300, dz=6, df=4, K=4):
    C = rng.normal(size=(n, dz)) + 0.5  # nonzero means: the intercept matters
    F = np.tanh(C @ rng.normal(size=(dz, df))) + 0.3 * rng.normal(size=(n, df)) + 2
    return C, F, rng.integers(0, K, size=n)


def _direct_ridge(C, F, train, penalty):
    """Ridge on the centered training rows with an unpenalized intercept."""
    Ct, Ft = C[train], F[train]
    mc, mf = Ct.mean(axis=0), Ft.mean(axis=0)
    A = (Ct - mc).T @ (Ct - mc) + len(Ct) * penalty * np.eye(C.shape[1])
    W = np.linalg.solve(A, (Ct - mc).T @ (Ft - mf))
    return W, mf - mc @ W


def _fit_in_chunks(C, F, folds, K, penalties, split=None, chunk=70):
    ridge = RidgeFolds(K, penalties, split)
    for start in range(0, len(C), chunk):
        rows = slice(start, start + chunk)
        ridge.add(C[rows], F[rows], folds[rows])
    return ridge.fit()


def _training_folds(K, k, column, split):
    """Folds whose rows fit fold k's target ``column``: all others, or with
    ``split`` those at odd (x) or even (y) cyclic distance from k."""
    distance = np.minimum((np.arange(K) - k) % K, (k - np.arange(K)) % K)
    if split is None:
        return np.flatnonzero(distance > 0)
    parity = 1 if column < split else 0
    return np.flatnonzero((distance > 0) & (distance % 2 == parity))


@pytest.mark.parametrize("penalty", [1e-6, 0.3])
@pytest.mark.parametrize("K, split", [(4, None), (5, 2), (7, 1)])
def test_cross_fitted_residuals_match_direct_ridge(rng, penalty, K, split):
    C, F, folds = _problem(rng, n=400, K=K)
    ridge = _fit_in_chunks(C, F, folds, K, [penalty], split)
    R = ridge.residuals(C, F, folds)
    for k in range(K):
        held = folds == k
        for t in range(F.shape[1]):
            train = np.isin(folds, _training_folds(K, k, t, split))
            W, b = _direct_ridge(C, F[:, [t]], train, penalty)
            np.testing.assert_allclose(ridge.coef_[k][:, [t]], W, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(ridge.intercept_[k, t], b[0], rtol=1e-8)
            np.testing.assert_allclose(R[held, t], F[held, t] - C[held] @ W[:, 0] - b)
    np.testing.assert_array_equal(ridge.counts_, np.bincount(folds, minlength=K))
    np.testing.assert_array_equal(ridge.penalty_, np.full(4, penalty))


def test_double_cross_fitting_uses_disjoint_training_sets():
    # x-fits and y-fits of one fold never share a fold, and fold l in the
    # x-fit of fold k means fold k is not in the y-fit of fold l.
    for K in (4, 5, 6, 9):
        for k in range(K):
            for j in _training_folds(K, k, 0, 1):
                assert j not in _training_folds(K, k, 1, 1)
                assert k not in _training_folds(K, j, 1, 1)


@pytest.mark.parametrize("split", [None, 2])
def test_cross_validated_penalty_matches_brute_force(rng, split):
    C, F, folds = _problem(rng, n=240, dz=10, K=5)
    F[:, 0] = 0.05 * rng.normal(size=240) + C[:, 0]  # wants little penalty
    F[:, 2] = rng.normal(size=240)  # pure noise: wants a large one
    pens = np.logspace(-6, 1, 8)
    ridge = _fit_in_chunks(C, F, folds, 5, pens, split)
    brute = np.zeros((len(pens), F.shape[1]))
    for i, pen in enumerate(pens):
        for k in range(5):
            held = folds == k
            for t in range(F.shape[1]):
                train = np.isin(folds, _training_folds(5, k, t, split))
                W, b = _direct_ridge(C, F[:, [t]], train, pen)
                brute[i, t] += np.sum((F[held, t] - C[held] @ W[:, 0] - b) ** 2)
    np.testing.assert_allclose(ridge.cv_error_, brute, rtol=1e-8)
    np.testing.assert_array_equal(ridge.penalty_, pens[np.argmin(brute, axis=0)])
    assert ridge.penalty_[0] < ridge.penalty_[2]


def test_shrink_fits_below_the_cross_validated_penalty(rng):
    # shrink=10: the same cross-validation, then each fit one decade less
    # smooth (ground truth: a direct ridge at that penalty).
    C, F, folds = _problem(rng, n=240, dz=10, K=5)
    pens = np.logspace(-6, 1, 8)
    plain = _fit_in_chunks(C, F, folds, 5, pens, split=2)
    ridge = RidgeFolds(5, pens, split=2, shrink=10.0).add(C, F, folds).fit()
    np.testing.assert_allclose(ridge.cv_error_, plain.cv_error_)
    np.testing.assert_allclose(ridge.penalty_, plain.penalty_ / 10.0)
    train = np.isin(folds, _training_folds(5, 0, 3, 2))
    W, b = _direct_ridge(C, F[:, [3]], train, plain.penalty_[3] / 10.0)
    np.testing.assert_allclose(ridge.coef_[0][:, [3]], W, rtol=1e-8, atol=1e-10)
    assert not np.allclose(plain.coef_[0][:, [3]], W)
    with pytest.raises(ValueError, match="shrink"):
        RidgeFolds(5, pens, shrink=0.0).add(C, F, folds).fit()


def test_without_z_features_residuals_are_centered_by_the_other_folds(rng):
    F = rng.normal(size=(50, 3))
    folds = np.arange(50) % 5
    ridge = RidgeFolds(5).add(np.empty((50, 0)), F, folds).fit()
    R = ridge.residuals(np.empty((50, 0)), F, folds)
    for k in range(5):
        np.testing.assert_allclose(
            R[folds == k], F[folds == k] - F[folds != k].mean(axis=0)
        )


def test_default_penalties_and_z_feature_rule():
    assert RidgeFolds(3).penalties is None
    assert PENALTIES[0] == 1e-8 and PENALTIES[-1] == 10.0 and len(PENALTIES) == 19
    sizes = [n_z_features(n) for n in (10, 1000, 10**4, 10**5, 10**7)]
    assert sizes == sorted(sizes) and sizes[0] == 48 and sizes[-1] == 600
    assert all(d % 6 == 0 for d in sizes)


def test_residual_products_are_row_wise_outer_products(rng):
    R, S = rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    P = residual_products(R, S)
    assert P.shape == (7, 6)
    for i in range(7):
        np.testing.assert_allclose(P[i], np.outer(R[i], S[i]).ravel())


def test_weighted_products_are_the_products_of_x_z_features(rng):
    R, S, G = rng.normal(size=(7, 3)), rng.normal(size=(7, 2)), rng.normal(size=(7, 4))
    P = residual_products(R, S, G)
    assert P.shape == (7, 24)
    for i in range(7):
        np.testing.assert_allclose(P[i], np.outer(np.outer(R[i], G[i]), S[i]).ravel())


@pytest.mark.parametrize("split", [None, 2])
def test_refit_of_the_targets_reproduces_the_fit(rng, split):
    C, F, folds = _problem(rng, n=300, K=5)
    ridge = _fit_in_chunks(C, F, folds, 5, None, split)
    sums = np.array([F[folds == k].sum(axis=0) for k in range(5)])
    cross = np.array([C[folds == k].T @ F[folds == k] for k in range(5)])
    # Each target twice, the second copy in reverse order.
    columns = np.concatenate([np.arange(4), np.arange(4)[::-1]])
    coef, intercept = ridge.refit(sums[:, columns], cross[:, :, columns], columns)
    np.testing.assert_allclose(coef, ridge.coef_[:, :, columns], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(intercept, ridge.intercept_[:, columns], rtol=1e-8)
    R = ridge.residuals(C, F[:, columns], folds, coef, intercept)
    np.testing.assert_allclose(R, ridge.residuals(C, F, folds)[:, columns], atol=1e-10)


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


def test_statistic_and_bootstrap_match_their_definitions(rng):
    n, G = 120, 30
    P = residual_products(rng.normal(size=(n, 3)), rng.normal(size=(n, 2)))
    units = rng.permutation(np.arange(n) % G)
    U = np.array([P[units == g].sum(axis=0) for g in range(G)])
    parts = ConditionalParts(U, np.bincount(units))
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


def test_effect_and_its_jackknife_match_brute_force(rng):
    sizes = rng.integers(1, 5, size=12)
    U = rng.normal(size=(12, 4)) + 0.3 * sizes[:, None]

    def effect(U, m):
        total = U.sum(axis=0)
        cross = total @ total - np.sum(U * U)
        return cross / (m.sum() ** 2 - m @ m)

    value, se = ConditionalParts(U, sizes).effect()
    assert value == pytest.approx(effect(U, sizes), rel=1e-12)
    loo = np.array([effect(np.delete(U, h, 0), np.delete(sizes, h)) for h in range(12)])
    expected = np.sqrt(11 / 12 * np.sum((loo - loo.mean()) ** 2))
    assert se == pytest.approx(expected, rel=1e-10)
    assert np.isnan(ConditionalParts(U[:2], sizes[:2]).effect()[1])


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
        draws.append(ConditionalParts(U, sizes).effect()[0])
    assert np.mean(draws) == pytest.approx(mu @ mu, abs=4 * np.std(draws) / 45)


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
    parts = ConditionalParts(residual_products(R[:, :6], R[:, 6:]), np.ones(n))
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


def test_bad_input_messages(rng):
    C, F, folds = _problem(rng, n=40)
    with pytest.raises(ValueError, match="n_folds >= 2"):
        RidgeFolds(1).add(C, F, folds)
    with pytest.raises(ValueError, match="one row per fold label"):
        RidgeFolds(4).add(C, F[:-1], folds)
    with pytest.raises(ValueError, match=r"Fold labels must lie in 0\.\.3"):
        RidgeFolds(4).add(C, F, folds + 1)
    with pytest.raises(ValueError, match="keep their widths"):
        RidgeFolds(4).add(C, F, folds).add(C[:, 1:], F, folds)
    with pytest.raises(ValueError, match="call add first"):
        RidgeFolds(4).fit()
    with pytest.raises(ValueError, match="1-D array of numbers >= 0"):
        RidgeFolds(4, [-1.0]).add(C, F, folds).fit()
    with pytest.raises(ValueError, match="split needs n_folds >= 4"):
        RidgeFolds(3, split=2).add(C, F, folds % 3).fit()
    with pytest.raises(ValueError, match="0 < split < n_targets"):
        RidgeFolds(4, split=4).add(C, F, folds).fit()
    with pytest.raises(ValueError, match="needs 2 rows"):
        RidgeFolds(4).add(C[:1], F[:1], np.zeros(1, int)).fit()
    with pytest.raises(ValueError, match="call fit first"):
        RidgeFolds(4).add(C, F, folds).residuals(C, F, folds)
    with pytest.raises(ValueError, match="one size per row"):
        ConditionalParts(np.ones((3, 2)), np.ones(2))
