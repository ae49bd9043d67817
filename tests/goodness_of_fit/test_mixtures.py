"""Composite Gaussian mixtures (issue 83): a resample's refit is EM from
the law it was drawn from, the fit scikit-learn makes from those values."""

import numpy as np
import pytest
from scipy import stats
from sklearn.mixture import BayesianGaussianMixture, GaussianMixture

from skmmd import KernelSteinTest, goodness_of_fit_test
from skmmd.goodness_of_fit._composite import EstimatorFamily
from skmmd.goodness_of_fit._mixtures import em_refit


@pytest.mark.parametrize("kind", ["full", "tied", "diag", "spherical"])
def test_a_refit_is_scikit_learn_s_fit_started_from_the_law(kind):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-2, 1, (150, 2)), rng.normal(2, 0.5, (150, 2))])
    start = GaussianMixture(2, covariance_type=kind, random_state=0).fit(X)
    Y = start.sample(300)[0]
    refit = em_refit(start, Y)
    reference = GaussianMixture(
        2,
        covariance_type=kind,
        weights_init=start.weights_,
        means_init=start.means_,
        precisions_init=start.precisions_,
    ).fit(Y)
    assert refit.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(refit.means_, reference.means_, atol=1e-10)
    np.testing.assert_allclose(refit.precisions_, reference.precisions_, atol=1e-8)
    np.testing.assert_allclose(refit.predict_proba(Y), reference.predict_proba(Y))
    assert start.means_ is not refit.means_  # the start is left as it was


def test_the_family_refits_from_the_null_law_and_other_estimators_from_scratch():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))])
    family = EstimatorFamily(GaussianMixture(2, random_state=0))
    start = family.fit(X, 0)
    refit = family.refit(X[::-1], 0, start)
    assert refit.n_iter_ <= 3  # from the answer, not from k-means
    bayes = EstimatorFamily(BayesianGaussianMixture(n_components=2, random_state=0))
    assert hasattr(bayes.refit(X, 0, bayes.fit(X, 0)), "weight_concentration_")


def test_a_composite_mixture_test_runs_and_repeats():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(-2, 1, (150, 2)), rng.normal(2, 1, (150, 2))])
    options = {"n_resamples": 19, "random_state": 0}
    one = KernelSteinTest(GaussianMixture(2, random_state=0), **options).fit(X)
    two = KernelSteinTest(GaussianMixture(2, random_state=0), **options).fit(X)
    np.testing.assert_array_equal(one.null_distribution_, two.null_distribution_)
    assert 0 < one.p_value_ <= 1


def _blobs(n, rng):
    """Three blobs (sd 0.7) whose centres are 3 apart."""
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 2.6]])
    return centres[rng.integers(3, size=n)] + 0.7 * rng.normal(size=(n, 2))


def test_the_function_aggregates_for_a_mixture_by_default():
    """``aggregate="auto"``: a Gaussian mixture, fitted or a family, gets the
    grid of bandwidths (its ksd2 one per kernel), a scipy law one kernel,
    and a kernel set in the options is kept."""
    rng = np.random.default_rng(3)
    X = _blobs(300, rng)
    gm = GaussianMixture(2, random_state=0).fit(_blobs(3000, rng))
    options = {"n_resamples": 19, "random_state": 0}
    assert np.ndim(goodness_of_fit_test(X, gm, **options).ksd2) == 1
    assert np.ndim(goodness_of_fit_test(X, stats.norm(), **options).ksd2) == 0
    one = goodness_of_fit_test(X, gm, bandwidth="median", **options)
    assert np.ndim(one.ksd2) == 0
    assert np.ndim(goodness_of_fit_test(X, gm, aggregate=False, **options).ksd2) == 0
    with pytest.raises(ValueError, match=r'aggregate must be True, False or "auto"'):
        goodness_of_fit_test(X, gm, aggregate="yes")


def test_the_default_sees_a_missing_component_one_kernel_does_not():
    """A two-component mixture fitted to three separated blobs, tested on
    fresh rows: the default (aggregated) rejects where the one kernel at
    the median distance, which spans the blobs, accepts."""
    rng = np.random.default_rng(4)
    gm = GaussianMixture(2, random_state=0).fit(_blobs(4000, rng))
    X = _blobs(400, rng)
    assert goodness_of_fit_test(X, gm, random_state=0).pvalue <= 0.01
    one = goodness_of_fit_test(X, gm, aggregate=False, random_state=0)
    assert one.pvalue > 0.05
