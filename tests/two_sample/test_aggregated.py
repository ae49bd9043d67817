"""AggregatedMMDTest (skmmd/two_sample/_aggregated.py): level and power on
small seeded problems, the single-kernel case against MMDTest, weights,
learned and fixed kernels together, batches and jobs, bad input."""

import numpy as np
import pytest
from scipy import stats

from skmmd import (
    AggregatedMMDTest,
    LearnedFourierSampler,
    MMDTest,
    RandomFourierSampler,
)
from skmmd.datasets import (
    make_liu_blobs,
    make_mixture_of_gaussians,
    make_perturbed_uniform,
)

FAST = {"n_bandwidths": 3, "n_components": 64, "n_resamples": 99}


@pytest.mark.parametrize("method", ["mmdagg", "fuse"])
def test_type_one_error_is_controlled(method):
    # Fast seeded version of benchmarks/bench_aggregated.py: under H0 the
    # rejection rate must stay within 3 binomial sd of alpha (exact level).
    reps, alpha = 150, 0.05
    rejections = 0
    for r in range(reps):
        X, Y = make_mixture_of_gaussians(60, 50, sigma=1.0, random_state=r)
        test = AggregatedMMDTest(method=method, random_state=r, **FAST).fit(X, Y)
        rejections += test.reject_
    sd = np.sqrt(alpha * (1 - alpha) / reps)
    assert rejections / reps <= alpha + 3 * sd


def test_p_values_are_uniform_under_the_null():
    p = [
        AggregatedMMDTest(random_state=r, **FAST)
        .fit(*make_perturbed_uniform(40, 40, scale=0.0, random_state=r))
        .p_value_
        for r in range(120)
    ]
    # Discrete uniform on {1/100, ..., 1}: a KS test must not reject at 1e-3.
    assert stats.kstest(p, "uniform").pvalue > 1e-3


@pytest.mark.parametrize("method", ["mmdagg", "fuse"])
def test_detects_small_scale_difference_median_misses(method):
    # Mixture problem at sigma = 2: the median-heuristic test has power ~0.05,
    # the aggregated one near 1 at n = 500 (benchmark); one seeded instance.
    X, Y = make_mixture_of_gaussians(400, 400, sigma=2.5, random_state=1)
    test = AggregatedMMDTest(method=method, random_state=0).fit(X, Y)
    median = MMDTest(RandomFourierSampler(random_state=0), random_state=0).fit(X, Y)
    assert test.p_value_ <= 0.01
    assert median.p_value_ > 0.05


def test_fitted_attributes_and_pooled_labels_agree():
    X, Y = make_mixture_of_gaussians(50, 40, sigma=2.0, random_state=0)
    a = AggregatedMMDTest(random_state=3, **FAST).fit(X, Y)
    labels = np.r_[np.zeros(50), np.ones(40)]
    b = AggregatedMMDTest(random_state=3, **FAST).fit(np.vstack([X, Y]), labels)
    assert a.p_value_ == b.p_value_
    np.testing.assert_array_equal(a.null_distribution_, b.null_distribution_)
    assert len(a.statistics_) == len(a.p_values_) == len(a.kernels_) == 6
    assert a.kernels_[0].startswith("gaussian(bandwidth=")
    assert 1 / 100 <= a.p_value_ <= 1
    assert (a.n_samples_x_, a.n_samples_y_) == (50, 40)


def test_results_do_not_depend_on_batch_or_jobs():
    X, Y = make_mixture_of_gaussians(50, 40, sigma=2.0, random_state=0)
    ref = AggregatedMMDTest(random_state=3, **FAST).fit(X, Y)
    for params in ({"batch": 7}, {"n_jobs": 2}):
        other = AggregatedMMDTest(random_state=3, **FAST, **params).fit(X, Y)
        np.testing.assert_array_equal(other.null_distribution_, ref.null_distribution_)


def test_single_kernel_matches_mmdtest():
    # One transformer: the min-p p-value is that kernel's permutation p-value,
    # which is MMDTest's on the same permutations.
    X, Y = make_mixture_of_gaussians(60, 60, sigma=1.5, random_state=0)
    sampler = RandomFourierSampler(bandwidth=2.0, n_components=64, random_state=0)
    agg = AggregatedMMDTest([sampler], n_resamples=99, random_state=5).fit(X, Y)
    single = MMDTest(sampler, n_resamples=99, random_state=5).fit(X, Y)
    assert agg.p_values_[0] == pytest.approx(single.p_value_)
    assert agg.statistics_[0] == pytest.approx(single.statistic_)


def test_weights_favour_their_kernel():
    # Mixture at sigma = 2.5: a small bandwidth sees the difference, a large
    # one does not. Nearly all the weight on a kernel gives about its p-value.
    X, Y = make_mixture_of_gaussians(400, 400, sigma=2.5, random_state=1)
    small, large = (
        RandomFourierSampler(bandwidth=b, n_components=256, random_state=0)
        for b in (0.5, 50.0)
    )
    tests = {
        name: AggregatedMMDTest(
            [small, large], weights=w, n_resamples=199, random_state=0
        ).fit(X, Y)
        for name, w in {"small": [1, 1e-9], "large": [1e-9, 1]}.items()
    }
    own = tests["small"].p_values_
    assert own[0] <= 0.01 and own[1] > 0.05
    assert tests["small"].p_value_ <= own[0] + 1e-12
    assert tests["large"].p_value_ >= own[1] - 2 / 200
    np.testing.assert_allclose(tests["small"].weights_, [1, 1e-9], rtol=1e-6)


def test_weight_shapes_follow_each_bandwidth_grid():
    X, Y = make_mixture_of_gaussians(50, 40, sigma=2.0, random_state=0)
    test = AggregatedMMDTest(weights="decreasing", random_state=3, **FAST).fit(X, Y)
    w = test.weights_
    assert w.shape == (6,) and np.isclose(w.sum(), 1)
    # Two kernels, three bandwidths each (increasing): 1/i within each grid.
    np.testing.assert_allclose(w[:3], w[3:])
    np.testing.assert_allclose(w[:3] / w[0], [1, 1 / 2, 1 / 3])
    uniform = AggregatedMMDTest(random_state=3, **FAST).fit(X, Y)
    np.testing.assert_allclose(uniform.weights_, np.full(6, 1 / 6))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"weights": [1.0, 2.0]}, r"weights must have one entry per kernel \(6\)"),
        ({"weights": [1.0] * 5 + [-1.0]}, "weights must be finite and positive"),
        ({"weights": [1.0] * 5 + [np.nan]}, "weights must be finite and positive"),
        ({"weights": "linear"}, "weights"),
        (
            {"weights": "decreasing", "transformers": [RandomFourierSampler()]},
            "one weight per transformer",
        ),
    ],
)
def test_bad_weights(params, match):
    X, Y = make_mixture_of_gaussians(20, 20, random_state=0)
    with pytest.raises(ValueError, match=match):
        AggregatedMMDTest(**{**FAST, **params}).fit(X, Y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"transformers": []}, "non-empty"),
        ({"kernels": ["cosine"]}, "kernels must be"),
        ({"method": "max"}, "method"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"alpha": 1.0}, "alpha"),
    ],
)
def test_bad_parameters(params, match):
    X, Y = make_mixture_of_gaussians(20, 20, random_state=0)
    with pytest.raises(ValueError, match=match):
        AggregatedMMDTest(**params).fit(X, Y)


def test_bad_samples():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="same number of features"):
        AggregatedMMDTest().fit(X, X[:, :1])
    with pytest.raises(ValueError, match="at least 2 points"):
        AggregatedMMDTest().fit(X, X[:1])
    with pytest.raises(ValueError, match="exactly two classes"):
        AggregatedMMDTest().fit(X, np.arange(20) % 3)


def test_aggregated_with_learned_and_fixed_kernels():
    X, Y = make_liu_blobs(20, random_state=0)
    test = AggregatedMMDTest(
        [
            LearnedFourierSampler(n_components=64, max_iter=10, random_state=0),
            RandomFourierSampler(n_components=64, random_state=0),
        ],
        train_size=0.5,
        n_resamples=49,
        random_state=0,
    ).fit(X, Y)
    assert len(test.statistics_) == 2
    assert 0 < test.p_value_ <= 1
    assert test.n_train_ == 180


def test_mmd_test_aggregates_as_the_other_families_functions():
    """``mmd_test(..., aggregate=True)`` is AggregatedMMDTest's result, as
    ``hsic_test`` and ``goodness_of_fit_test`` take ``aggregate=True``; a
    single map cannot be aggregated."""
    from skmmd import AggregatedMMDTest, RandomFourierSampler, mmd_test

    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + [0.4, 0.0]
    options = {"n_bandwidths": 3, "n_components": 64, "n_resamples": 199}
    result = mmd_test(X, Y, aggregate=True, random_state=0, **options)
    test = AggregatedMMDTest(random_state=0, **options).fit(X, Y)
    assert result.pvalue == test.p_value_ and result.statistic == test.statistic_
    with pytest.raises(ValueError, match="aggregate=True aggregates a grid"):
        mmd_test(X, Y, transformer=RandomFourierSampler(), aggregate=True)
