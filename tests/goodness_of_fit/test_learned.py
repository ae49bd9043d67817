"""KernelSteinTest with features learned for power (LearnedFourierSampler
and train_size): the same as learning and testing by hand, in chunks, with a
model fit on the training part too, on seeded nulls and alternatives;
errors."""

import numpy as np
import pytest
from scipy import stats
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split

from skmmd import KernelSteinTest, LearnedFourierSampler, goodness_of_fit_test


def _learner(**params):
    return LearnedFourierSampler(n_components=32, max_iter=10, random_state=0, **params)


def _split(n, train_size, random_state):
    """The test's seeded split of its rows (training part, tested part)."""
    seed = np.random.RandomState(random_state).randint(np.iinfo(np.int32).max)
    train, rest = train_test_split(
        np.arange(n),
        train_size=train_size,
        random_state=np.random.RandomState([seed, 3]),
    )
    return np.sort(train), np.sort(rest)


def test_learned_on_the_training_part_and_tested_on_the_rest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 3)) * np.sqrt([1.0, 2.0, 1.0])
    test = KernelSteinTest(
        stats.norm(), transformer=_learner(), train_size=0.3, random_state=1
    ).fit(X)
    assert test.n_train_ == 300 and test.n_samples_ == 700
    assert isinstance(test.transformer_, LearnedFourierSampler)
    assert test.transformer_.criterion_ > test.transformer_.initial_criterion_
    # By hand: learn on the training rows, test the rest with the map frozen.
    train, rest = _split(1000, 0.3, 1)
    learned = _learner().fit(X[train], model_score=lambda X: -X)
    np.testing.assert_array_equal(
        learned.random_weights_, test.transformer_.random_weights_
    )
    by_hand = KernelSteinTest(
        stats.norm(), transformer=FrozenEstimator(learned), random_state=1
    ).fit(X[rest])
    assert test.statistic_ == pytest.approx(by_hand.statistic_, rel=1e-12)
    assert test.p_value_ == by_hand.p_value_


def test_a_model_and_the_features_fit_on_the_same_training_part():
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(-2, 1, (1000, 2)), rng.normal(2, 0.5, (1000, 2))])
    test = KernelSteinTest(
        GaussianMixture(2, random_state=0),
        transformer=_learner(),
        train_size=0.5,
        random_state=2,
    ).fit(X)
    train, _ = _split(2000, 0.5, 2)
    fitted = GaussianMixture(2, random_state=0).fit(X[train])
    np.testing.assert_allclose(test.model_.means_, fitted.means_)
    learned = _learner().fit(X[train], model_score=lambda X: _mixture_score(fitted, X))
    np.testing.assert_allclose(
        learned.random_weights_, test.transformer_.random_weights_, rtol=1e-10
    )


def test_a_fitted_model_is_used_as_given():
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(4)
    model = GaussianMixture(2, random_state=0).fit(rng.normal(size=(500, 2)))
    X = rng.normal(size=(600, 2))
    test = KernelSteinTest(
        model, transformer=_learner(), train_size=0.5, random_state=3
    ).fit(X)
    assert not hasattr(test, "model_") and test.n_train_ == 300
    train, _ = _split(600, 0.5, 3)
    learned = _learner().fit(X[train], model_score=lambda X: _mixture_score(model, X))
    np.testing.assert_array_equal(
        learned.random_weights_, test.transformer_.random_weights_
    )


def _mixture_score(gm, X):
    from skmmd.goodness_of_fit._models import model_score

    return model_score(gm)(X)


def test_in_chunks_the_first_trains():
    X = np.random.default_rng(2).standard_t(5, size=(3000, 2))
    test = KernelSteinTest(
        stats.t(5),
        transformer=_learner(),
        train_size=0.5,
        n_resamples=49,
        random_state=0,
    )
    test.partial_fit(X[:1000]).partial_fit(X[1000:2000]).partial_fit(X[2000:])
    learned = _learner().fit(X[:1000], model_score=_t5_score)
    by_hand = KernelSteinTest(
        stats.t(5),
        transformer=FrozenEstimator(learned),
        n_resamples=49,
        random_state=0,
    )
    by_hand.partial_fit(X[1000:2000]).partial_fit(X[2000:])
    assert test.n_train_ == 1000 and test.n_samples_ == 2000
    assert test.statistic_ == pytest.approx(by_hand.statistic_, rel=1e-12)
    assert test.p_value_ == by_hand.p_value_


def _t5_score(X):
    return -6 * X / (5 + X * X)


@pytest.mark.slow
def test_level_and_power_on_seeded_draws():
    # 40 draws each, n = 400 of which 100 train: under H0 at most 6
    # rejections at 0.05 (P < 0.01 for a valid test); rows whose third
    # coordinate has variance 2.5, rejected in at least 36.
    null, alt = 0, 0
    scale = np.sqrt([1.0, 1.0, 2.5, 1.0, 1.0])
    for seed in range(40):
        rng = np.random.default_rng(200 + seed)
        options = {
            "transformer": _learner(),
            "train_size": 100,
            "n_resamples": 99,
            "random_state": seed,
        }
        null += goodness_of_fit_test(
            rng.normal(size=(400, 5)), stats.norm(), **options
        ).reject
        alt += goodness_of_fit_test(
            rng.normal(size=(400, 5)) * scale, stats.norm(), **options
        ).reject
    assert null <= 6 and alt >= 36


def test_a_learned_map_needs_rows_to_learn_on():
    X = np.random.default_rng(3).normal(size=(200, 2))
    with pytest.raises(ValueError, match="pass train_size"):
        KernelSteinTest(stats.norm(), transformer=_learner()).fit(X)
    with pytest.raises(TypeError, match="here neither learns"):
        KernelSteinTest(stats.norm(), train_size=0.5).fit(X)
    with pytest.raises(ValueError, match="n_components must be even"):
        KernelSteinTest(
            stats.norm(),
            transformer=_learner().set_params(n_components=31),
            train_size=0.5,
        ).fit(X)


def test_a_frozen_learned_map_on_dask_equals_in_memory():
    # Dask input takes no train_size: learn in memory, freeze, test the rest.
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(6000, 3)) * np.sqrt([1.0, 1.6, 1.0])
    learned = FrozenEstimator(_learner().fit(X[:1000], model_score=lambda X: -X))
    test = KernelSteinTest(
        stats.norm(), transformer=learned, n_resamples=99, random_state=0
    )
    ref = test.fit(X[1000:])
    statistic, p_value = ref.statistic_, ref.p_value_
    lazy = test.fit(da.from_array(X[1000:], chunks=1500))
    assert lazy.statistic_ == pytest.approx(statistic, rel=1e-12)
    assert lazy.p_value_ == p_value
    assert lazy.reject_  # the second coordinate's variance 1.6
