"""Gaussian mixtures (issue 83): a composite mixture's resample is refit by
EM from the law it was drawn from, the fit scikit-learn makes from those
values; the aggregated test's views of a mixture, its leading principal
subspaces."""

import numpy as np
import pytest
from scipy import stats
from sklearn.mixture import BayesianGaussianMixture, GaussianMixture

from skmmd import (
    AggregatedKernelSteinTest,
    KernelSteinTest,
    RandomFourierSampler,
    goodness_of_fit_test,
)
from skmmd.goodness_of_fit._composite import EstimatorFamily
from skmmd.goodness_of_fit._maps import SteinMap
from skmmd.goodness_of_fit._mixtures import em_refit, mixture_views
from skmmd.goodness_of_fit._models import model_score


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


def _plane_blobs(k, d, n, rng):
    """``k`` blobs (sd 0.7) on a circle in the first two of ``d``
    coordinates, neighbouring centres 3 apart; the other coordinates noise."""
    angles = 2 * np.pi * np.arange(k) / k
    centres = np.zeros((k, d))
    radius = 3.0 / (2 * np.sin(np.pi / k))
    centres[:, 0], centres[:, 1] = radius * np.cos(angles), radius * np.sin(angles)
    return centres[rng.integers(k, size=n)] + 0.7 * rng.normal(size=(n, d))


@pytest.mark.parametrize("kind", ["full", "tied", "diag", "spherical"])
def test_the_views_are_the_leading_principal_subspaces(kind):
    """One view of each dimension from 1 to min(K, d - 1), orthonormal, and
    for blobs in a plane of noise the 2-D view is that plane."""
    rng = np.random.default_rng(5)
    gm = GaussianMixture(3, covariance_type=kind, random_state=0)
    views = mixture_views(gm.fit(_plane_blobs(4, 5, 2000, rng)))
    assert [basis.shape for basis in views] == [(5, 1), (5, 2), (5, 3)]
    for basis in views:
        np.testing.assert_allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-12)
    # the plane's coordinates hold nearly all of the 2-D view
    assert np.linalg.norm(views[1][:2]) ** 2 > 2 - 0.05
    one = GaussianMixture(1, covariance_type=kind).fit(_plane_blobs(3, 2, 200, rng))
    assert [basis.shape for basis in mixture_views(one)] == [(2, 1)]
    line = GaussianMixture(2, covariance_type=kind).fit(rng.normal(size=(200, 1)))
    assert mixture_views(line) == []


def test_a_view_s_features_are_the_rotated_features():
    """On a rotation of all coordinates (the basis Q, the frequencies Q'W)
    the Stein features are Q' times the full ones: the same statistic, as
    the projected score and gradient are the rotated ones; on the identity,
    the same features."""
    rng = np.random.default_rng(6)
    gm = GaussianMixture(2, random_state=0).fit(_plane_blobs(3, 3, 600, rng))
    score, X = model_score(gm), _plane_blobs(3, 3, 50, rng)
    sampler = RandomFourierSampler(bandwidth=1.0, n_components=8, random_state=0)
    sampler.fit(X)
    full = SteinMap(sampler, score)
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    rotated = RandomFourierSampler(bandwidth=1.0, n_components=8).fit(X)
    rotated.random_weights_ = Q.T @ sampler.random_weights_
    rotated.random_offset_ = sampler.random_offset_
    view = SteinMap(rotated, score, basis=Q)
    a, b = full.transform(X), view.transform(X)
    xi = a.reshape(50, 2, 3, 4)
    np.testing.assert_allclose(
        b.reshape(50, 2, 3, 4), np.einsum("ji,ncjl->ncil", Q, xi), atol=1e-12
    )
    same = SteinMap(sampler, score, basis=np.eye(3)).transform(X)
    np.testing.assert_array_equal(same, a)


def test_a_view_s_features_have_mean_zero_under_the_model():
    """Stein's identity on a view: under the mixture, the features of the
    kernel on the 1-D view (the projected score) average to zero within
    their standard error."""
    rng = np.random.default_rng(7)
    gm = GaussianMixture(2, random_state=0).fit(_plane_blobs(3, 4, 2000, rng))
    X = gm.sample(20000)[0]
    basis = mixture_views(gm)[0]
    sampler = RandomFourierSampler(bandwidth=1.0, n_components=8, random_state=0)
    xi = SteinMap(sampler.fit(X @ basis), model_score(gm), basis=basis).transform(X)
    z = xi.mean(axis=0) / (xi.std(axis=0) / np.sqrt(X.shape[0]))
    assert np.abs(z).max() < 4.5  # 8 features: a max of 8 normal z-scores


def test_the_views_see_a_missing_component_in_a_plane_of_noise():
    """Four blobs in the first two of five coordinates against a fitted
    three-component mixture, on fresh rows: the default (the grid on every
    coordinate and on the mixture's views) rejects where the grid alone,
    whose kernels see the plane through the other coordinates' noise, does
    not; its kernels name their views."""
    rng = np.random.default_rng(15)
    gm = GaussianMixture(3, random_state=0).fit(_plane_blobs(4, 5, 4000, rng))
    X = _plane_blobs(4, 5, 400, rng)
    test = AggregatedKernelSteinTest(gm, random_state=0).fit(X)
    assert test.p_value_ <= 0.01
    assert [basis.shape[1] for basis in test.views_] == [1, 2, 3]
    assert len(test.kernels_) == len(test.bandwidths_) == 20
    assert test.kernels_[5].endswith("on 1 principal axis)")
    assert test.kernels_[-1].endswith("on 3 principal axes)")
    alone = AggregatedKernelSteinTest(gm, views=None, random_state=0).fit(X)
    assert alone.p_value_ > 0.5 and alone.views_ == []
    assert len(alone.kernels_) == 5


def test_views_only_for_a_mixture_and_the_grid_s_weights_per_view():
    """Other models and a list of transformers have no views; a weight
    shape applies to every view's grid alike."""
    rng = np.random.default_rng(9)
    X = _blobs(200, rng)
    options = {"n_resamples": 19, "random_state": 0}
    test = AggregatedKernelSteinTest(stats.norm(), **options).fit(X)
    assert test.views_ == [] and len(test.kernels_) == 5
    gm = GaussianMixture(2, random_state=0).fit(_blobs(2000, rng))
    sampler = RandomFourierSampler(bandwidth=1.0, n_components=16, random_state=0)
    listed = AggregatedKernelSteinTest(gm, transformers=[sampler], **options).fit(X)
    assert listed.views_ == [] and len(listed.kernels_) == 1
    shaped = AggregatedKernelSteinTest(gm, weights="centred", **options).fit(X)
    assert len(shaped.weights_) == 10
    np.testing.assert_allclose(shaped.weights_[:5], shaped.weights_[5:])
    np.testing.assert_allclose(shaped.weights_.sum(), 1.0)


def test_a_composite_mixture_s_views_are_its_fit_s():
    """For a family, the views are those of the fit to the rows."""
    rng = np.random.default_rng(10)
    X = _plane_blobs(3, 3, 300, rng)
    family = GaussianMixture(2, random_state=0)
    test = AggregatedKernelSteinTest(family, n_resamples=19, random_state=0).fit(X)
    expected = mixture_views(test.model_)
    assert len(test.views_) == len(expected) == 2
    for basis, other in zip(test.views_, expected):
        np.testing.assert_array_equal(basis, other)
