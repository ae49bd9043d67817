"""LearnedFourierSampler (skmmd/kernel_learning/_fourier.py): the gradient
against finite differences, the criterion, dtypes, pipelines, power where the
median heuristic has none, bad input."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from skmmd import LearnedFourierSampler, MMDTest
from skmmd.datasets import make_hdgm, make_liu_blobs
from skmmd.kernel_approximation._base import random_phases
from skmmd.kernel_learning._fourier import _Criterion
from skmmd.statistics import power_criterion

from ._gradients import assert_gradient_matches_differences


def _labelled(X, Y):
    return np.vstack([X, Y]), np.repeat([0, 1], [len(X), len(Y)])


@pytest.mark.parametrize("n_components", [64, 63])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_directions", [0, 2])
def test_gradient_matches_finite_differences(n_components, sparse, n_directions):
    rng = np.random.default_rng(0)
    d = 4
    X_a = rng.normal(size=(120, d))
    X_b = rng.normal(size=(120, d)) * [1.0, 1.0, 1.4, 1.0]
    if sparse:
        X_a[np.abs(X_a) < 0.5] = 0.0
        X_b[np.abs(X_b) < 0.5] = 0.0
        X_a, X_b = sp.csr_matrix(X_a), sp.csr_matrix(X_b)
    n_freq = -(-n_components // 2)
    draws = rng.standard_normal((d + n_directions, n_freq))
    offset = random_phases(rng, "cos_sin", n_components)
    criterion = _Criterion(draws[:d], draws[d:], offset, X_a, X_b)
    criterion.size = 3.0
    theta = 0.3 * rng.normal(size=d + n_directions * d)
    assert_gradient_matches_differences(criterion, theta)


def test_criterion_is_the_power_criterion_of_its_features():
    # The learner's J is power_criterion of the map's own transform output.
    X, Y = make_liu_blobs(10, random_state=0)
    sampler = LearnedFourierSampler(n_components=65, max_iter=2, random_state=0)
    sampler.fit(*_labelled(X, Y))
    value = power_criterion(sampler.transform(X), sampler.transform(Y))
    assert sampler.criterion_ == pytest.approx(value, rel=1e-9)


def test_learned_metric_finds_the_informative_feature():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    Y = rng.normal(size=(600, 4)) * [1.0, 1.0, 1.0, 1.6]
    sampler = LearnedFourierSampler(n_components=256, random_state=0)
    sampler.fit(*_labelled(X, Y))
    assert sampler.criterion_ > sampler.initial_criterion_
    # The metric weighs the feature where the samples differ more than two
    # where they do not.
    weights = np.diag(sampler.metric_)
    assert weights[3] > max(weights[0], weights[1])
    assert sampler.n_iter_ >= 1


def test_dtypes_sparse_and_pipeline():
    X, Y = make_hdgm(60, random_state=0)
    pooled, labels = _labelled(X, Y)
    sampler = LearnedFourierSampler(n_components=32, max_iter=5, random_state=0)
    Z64 = sampler.fit(pooled, labels).transform(pooled)
    Z32 = (
        clone(sampler)
        .fit(pooled.astype(np.float32), labels)
        .transform(pooled.astype(np.float32))
    )
    assert Z32.dtype == np.float32 and Z64.dtype == np.float64
    np.testing.assert_allclose(Z32, Z64, atol=1e-4)
    Z_sparse = clone(sampler).fit(sp.csr_matrix(pooled), labels).transform(pooled)
    np.testing.assert_allclose(Z_sparse, Z64, atol=1e-10)
    pipe = make_pipeline(PCA(n_components=3), clone(sampler)).fit(pooled, labels)
    assert pipe.transform(pooled).shape == (240, 32)


def test_pickles_clones_and_grid_search():
    X, Y = make_liu_blobs(10, random_state=1)
    pooled, labels = _labelled(X, Y)
    sampler = LearnedFourierSampler(n_components=32, max_iter=5, random_state=0)
    sampler.fit(pooled, labels)
    again = pickle.loads(pickle.dumps(sampler))
    np.testing.assert_array_equal(again.transform(pooled), sampler.transform(pooled))
    assert clone(sampler).get_params() == sampler.get_params()
    search = GridSearchCV(
        MMDTest(sampler, train_size=0.5, n_resamples=19, random_state=0),
        {"transformer__n_directions": [0, 2]},
        cv=2,
    ).fit(pooled, labels)
    assert search.best_params_["transformer__n_directions"] in (0, 2)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_learned_kernel_has_power_where_the_median_heuristic_has_none():
    # Liu et al.'s Blob, kernel learned on an independent draw (their protocol).
    kernel = LearnedFourierSampler(n_components=256, random_state=0)
    kernel.fit(*_labelled(*make_liu_blobs(40, random_state=100)))
    learned = median = 0
    for seed in range(5):
        X, Y = make_liu_blobs(40, random_state=seed)
        learned += MMDTest(FrozenEstimator(kernel), n_resamples=99).fit(X, Y).reject_
        median += MMDTest(n_resamples=99, random_state=seed).fit(X, Y).reject_
    assert learned == 5
    assert median <= 1


def test_bad_input_names_the_problem():
    X, Y = make_liu_blobs(10, random_state=0)
    pooled, labels = _labelled(X, Y)
    sampler = LearnedFourierSampler(n_components=16, random_state=0)
    with pytest.raises(ValueError, match="exactly two samples.*got 1 class"):
        sampler.fit(pooled, np.zeros(len(pooled)))
    with pytest.raises(ValueError, match="requires y to be passed.*the two samples"):
        sampler.fit(pooled)
    with pytest.raises(ValueError, match="at least 2 training points.*1 of class 1"):
        sampler.fit(pooled[:91], labels[:91])
    bad = pooled.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        sampler.fit(bad, labels)
    sampler = clone(sampler)
    with pytest.raises(ValueError, match="pass train_size"):
        MMDTest(sampler).fit(X, Y)
    with pytest.raises(ValueError, match=r"train_size=0.01 cannot split"):
        MMDTest(sampler, train_size=0.01).fit(X, Y)
    with pytest.raises(ValueError, match=r"training part \(train_size=2: 1 rows"):
        MMDTest(sampler, train_size=2).fit(X, Y)
    with pytest.raises(ValueError, match="train_size=200 cannot split"):
        MMDTest(sampler, train_size=200).fit(X, Y)
    with pytest.raises(ValueError, match="train_size"):
        MMDTest(sampler, train_size=1.5).fit(X, Y)
