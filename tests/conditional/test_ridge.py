"""Cross-fitted ridge from sufficient statistics (skmmd/conditional/_ridge.py):
residuals against direct numpy fits, double cross-fitting, the
cross-validated penalty against brute force, shrink, refits of the targets,
the folds fit on threads, and bad input."""

import numpy as np
import pytest

from skmmd.conditional import _ridge
from skmmd.conditional._ridge import PENALTIES, RidgeFolds


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


def test_default_penalties():
    assert RidgeFolds(3).penalties is None
    assert PENALTIES[0] == 1e-8 and PENALTIES[-1] == 10.0 and len(PENALTIES) == 19


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


@pytest.mark.parametrize("split", [None, 3])
def test_folds_fit_side_by_side_as_one_after_another(rng, monkeypatch, split):
    # 64 regressors: the folds' fits run on threads; then one after another.
    C, F, folds = _problem(rng, n=600, dz=64, df=6, K=5)
    threaded = _fit_in_chunks(C, F, folds, 5, None, split)
    monkeypatch.setattr(_ridge, "_THREADED_REGRESSORS", 10**9)
    serial = _fit_in_chunks(C, F, folds, 5, None, split)
    for name in ("cv_error_", "penalty_", "coef_", "intercept_"):
        np.testing.assert_array_equal(getattr(threaded, name), getattr(serial, name))
    assert len(threaded.design._bases) == (5 if split is None else 10)


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
