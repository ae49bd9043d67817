"""LearnedFourierSampler fit with a model's score (skmmd/kernel_learning/
_stein.py): the Stein criterion's gradient against finite differences, the
criterion against its definition on the map's own Stein features, the learned
kernel against a law that differs from the model in one coordinate, errors."""

import numpy as np
import pytest

from skmmd import LearnedFourierSampler
from skmmd.kernel_learning._stein import SteinCriterion
from skmmd.statistics._stein import stein_features

from ._gradients import assert_gradient_matches_differences


def _normal_score(X):
    return -X


@pytest.mark.parametrize("n_directions", [0, 2])
def test_gradient_matches_finite_differences(n_directions):
    rng = np.random.default_rng(0)
    d, L = 3, 5
    X = rng.laplace(size=(60, d))
    draws = rng.standard_normal((d + n_directions, L))
    criterion = SteinCriterion(draws[:d], draws[d:], X, -X)
    criterion.size = 2.0
    theta = 0.3 * rng.normal(size=d + n_directions * d)
    assert_gradient_matches_differences(criterion, theta)


def test_rows_in_blocks_give_the_same_criterion(monkeypatch):
    from skmmd._utils import _budgets

    rng = np.random.default_rng(1)
    X = rng.standard_t(4, size=(90, 2))
    draws = rng.standard_normal((2, 6))
    theta = np.log([0.7, 1.3])
    whole = SteinCriterion(draws, draws[:0], X, -X)
    monkeypatch.setattr(_budgets, "MAP_CHUNK_ENTRIES", 6 * 7)  # 7 rows of 6 frequencies
    blocks = SteinCriterion(draws, draws[:0], X, -X)
    assert len(blocks.blocks) == 13 and len(whole.blocks) == 1
    whole.size = blocks.size = 1.5
    v_whole, g_whole = whole.value_and_gradient(theta)
    v_blocks, g_blocks = blocks.value_and_gradient(theta)
    assert v_blocks == pytest.approx(v_whole, rel=1e-12)
    np.testing.assert_allclose(g_blocks, g_whole, rtol=1e-10)


def test_criterion_is_that_of_the_maps_stein_features():
    # criterion_ is the ratio of the unbiased KSD^2 of the learned map's own
    # Stein features to the standard deviation estimated under H1.
    rng = np.random.default_rng(2)
    X = rng.laplace(scale=1 / np.sqrt(2), size=(150, 2))
    sampler = LearnedFourierSampler(
        n_components=32, max_iter=5, subsample=None, random_state=0
    ).fit(X, model_score=_normal_score)
    xi = stein_features(X, -X, sampler.random_weights_)
    n = X.shape[0]
    s = xi.sum(axis=0)
    r = xi @ s
    ksd2 = (s @ s - np.sum(xi * xi)) / (n * (n - 1))
    variance = 4 * (r @ r) / n**3 - 4 * (s @ s) ** 2 / n**4
    assert sampler.criterion_ == pytest.approx(ksd2 / np.sqrt(variance), rel=1e-9)
    assert sampler.criterion_ > sampler.initial_criterion_


def test_learned_kernel_finds_the_coordinate_that_differs():
    # Rows N(0, diag(1, 1, 3, 1)) against the model N(0, I): the learned
    # length scale of coordinate 2 is the shortest.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 4)) * np.sqrt([1.0, 1.0, 3.0, 1.0])
    sampler = LearnedFourierSampler(n_components=64, random_state=0)
    sampler.fit(X, model_score=_normal_score)
    assert np.argmin(sampler.length_scales_) == 2
    assert sampler.transform(X).shape == (600, 64)


def test_bad_fits_are_named():
    X = np.random.default_rng(4).normal(size=(50, 2))
    sampler = LearnedFourierSampler(n_components=16, max_iter=1)
    with pytest.raises(ValueError, match="not both"):
        sampler.fit(X, np.repeat([0, 1], 25), model_score=_normal_score)
    with pytest.raises(ValueError, match="n_components must be even; got 15"):
        sampler.set_params(n_components=15).fit(X, model_score=_normal_score)
    sampler.set_params(n_components=16)
    with pytest.raises(TypeError, match="model_score must be a callable"):
        sampler.fit(X, model_score=np.zeros((50, 2)))
    with pytest.raises(
        ValueError, match=r"shape \(n, d\) = \(50, 2\).*got shape \(50, 1\)"
    ):
        sampler.fit(X, model_score=lambda X: -X[:, :1])

    def partial(X):
        S = -X.copy()
        S[X[:, 0] > 1.5] = np.nan
        return S

    with pytest.raises(ValueError, match="NaN or infinite at 3 of 50 rows"):
        sampler.fit(X, model_score=partial)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        sampler.fit(X, scores=partial)
