"""Models as scores (skmmd/goodness_of_fit/_models.py): every analytic score
against differences of its own log-density, and the errors that name what
went wrong."""

import pickle

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.mixture import BayesianGaussianMixture, GaussianMixture
from sklearn.neighbors import KernelDensity

from skmmd import log_density_score
from skmmd.goodness_of_fit._models import check_feature_names, model_score


def _by_differences(log_density, X, h=1e-6):
    out = np.empty(X.shape)
    for j in range(X.shape[1]):
        e = np.zeros(X.shape[1])
        e[j] = h
        out[:, j] = (log_density(X + e) - log_density(X - e)) / (2 * h)
    return out


@pytest.mark.parametrize(
    "frozen",
    [
        stats.norm(1.0, 2.0),
        stats.t(5, loc=-1.0, scale=0.5),
        stats.cauchy(0.5, 2.0),
        stats.logistic(0.0, 1.5),
        stats.laplace(0.3, 0.7),
        stats.gumbel_r(0.0, 1.0),  # no analytic score: by differences
    ],
)
def test_univariate_scores_are_the_derivatives_of_logpdf(frozen, rng):
    X = rng.normal(size=(50, 3)) * 2 + 0.01  # away from a kink at 0.3

    def log_density(A):
        return frozen.logpdf(A).sum(axis=1)

    np.testing.assert_allclose(
        model_score(frozen)(X), _by_differences(log_density, X), rtol=1e-5, atol=1e-6
    )


def test_multivariate_scores_are_the_gradients_of_logpdf(rng):
    A = rng.normal(size=(3, 3))
    cov = A @ A.T + np.eye(3)
    X = rng.normal(size=(40, 3))
    for frozen in (
        stats.multivariate_normal([1.0, 0.0, -1.0], cov),
        stats.multivariate_t([1.0, 0.0, -1.0], cov, df=4),
    ):
        score = model_score(frozen)
        assert score.dim == 3
        np.testing.assert_allclose(
            score(X), _by_differences(frozen.logpdf, X), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("kind", ["full", "tied", "diag", "spherical"])
def test_mixture_scores_are_the_gradients_of_score_samples(kind, rng):
    data = np.vstack([rng.normal(size=(200, 2)), rng.normal(3, 0.5, size=(200, 2))])
    for model in (
        GaussianMixture(2, covariance_type=kind, random_state=0).fit(data),
        BayesianGaussianMixture(
            n_components=3, covariance_type=kind, random_state=0
        ).fit(data),
    ):
        X = rng.normal(1.5, 2.0, size=(30, 2))
        np.testing.assert_allclose(
            model_score(model)(X),
            _by_differences(model.score_samples, X),
            rtol=1e-4,
            atol=1e-5,
        )


def test_kernel_density_score_is_the_gradient_of_score_samples(rng):
    data = rng.normal(size=(300, 2))
    weights = rng.random(300)
    kde = KernelDensity(bandwidth=0.4).fit(data, sample_weight=weights)
    X = rng.normal(size=(25, 2))
    np.testing.assert_allclose(
        model_score(kde)(X), _by_differences(kde.score_samples, X), rtol=1e-4, atol=1e-5
    )


def test_log_density_score_is_accurate(rng):
    X = rng.normal(size=(20, 4)) * 100  # relative steps at any scale
    score = log_density_score(lambda A: -0.5 * np.sum(A**2, axis=1) / 9)
    np.testing.assert_allclose(score(X), -X / 9, rtol=1e-6)


def test_a_score_function_is_checked_on_every_call():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"X's shape \(n, d\) = \(4, 2\).*\(4,\)"):
        model_score(lambda A: A[:, 0])(X)

    def nan_at_rows(A):
        out = -A.copy()
        out[[1, 3]] = np.nan
        return out

    with pytest.raises(ValueError, match=r"2 of 4 rows \(positions \[1, 3\]"):
        model_score(nan_at_rows)(X)


def test_rows_outside_the_support_are_named():
    # A law with a bounded side maps the rows onto the line first.
    line = model_score(stats.gamma(2.0)).line
    with pytest.raises(ValueError, match=r"1 rows on or outside the model's support"):
        line.forward(np.array([[1.0], [-1.0]]))
    # A score that is NaN at some rows names them.
    with pytest.raises(ValueError, match="outside the model's support"):
        model_score(lambda A: np.where(A > 0, -A, np.nan))(np.array([[1.0], [-1.0]]))


def test_models_that_cannot_be_tested_are_refused():
    with pytest.raises(ValueError, match="GaussianMixture is not fitted.*train_size"):
        model_score(GaussianMixture(2))
    with pytest.raises(ValueError, match="PCA is not fitted: fit it first"):
        model_score(PCA(2))
    kde = KernelDensity(kernel="tophat").fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="kernel='gaussian'"):
        model_score(kde)
    with pytest.raises(TypeError, match="discrete"):
        model_score(stats.poisson(3))
    with pytest.raises(TypeError, match="model must be a score function"):
        model_score("normal")
    with pytest.raises(TypeError, match="log_density must be a callable"):
        log_density_score(3.0)


def test_a_model_fitted_on_a_dataframe_is_scored_on_arrays(rng):
    pd = pytest.importorskip("pandas")
    X = rng.normal(size=(80, 2))
    frame = pd.DataFrame(X, columns=["a", "b"])
    for fitted in (GaussianMixture(2, random_state=0), PCA(2)):
        named = model_score(clone(fitted).fit(frame))
        plain = model_score(clone(fitted).fit(X))
        # Called on arrays without scikit-learn's feature-names warning (an
        # error under the suite's filterwarnings), picklable for the workers.
        np.testing.assert_allclose(pickle.loads(pickle.dumps(named))(X), plain(X))


def test_feature_names_are_checked_against_the_model():
    pd = pytest.importorskip("pandas")
    gm = GaussianMixture(1).fit(pd.DataFrame(np.eye(3)[:, :2], columns=["a", "b"]))
    check_feature_names(gm, ["a", "b"])
    check_feature_names(gm, None)  # arrays: by position
    check_feature_names(GaussianMixture(1).fit(np.eye(3)[:, :2]), ["x", "y"])
    with pytest.raises(ValueError, match=r"only in the model: \['b'\], only in X"):
        check_feature_names(gm, ["a", "c"])
    with pytest.raises(ValueError, match="in another order"):
        check_feature_names(gm, ["b", "a"])
