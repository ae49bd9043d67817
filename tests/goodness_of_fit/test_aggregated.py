"""AggregatedKernelSteinTest (skmmd/goodness_of_fit/_aggregated.py): one
kernel's statistic as KernelSteinTest's, the level and the power where the
median bandwidth is blind, chunks, weights."""

import numpy as np
import pytest
from scipy import stats

from skmmd import AggregatedKernelSteinTest, KernelSteinTest, RandomFourierSampler


def _comb(rng, n):
    # A normal law rounded to thirds and jittered: a misfit at a scale far
    # below the median distance.
    return (np.round(rng.normal(size=n) * 3) / 3 + rng.uniform(-0.06, 0.06, n))[:, None]


def test_one_kernel_is_the_single_test(rng):
    X = rng.standard_t(5, size=(800, 2))
    sampler = RandomFourierSampler(bandwidth=1.3, n_components=32, random_state=0)
    single = KernelSteinTest(stats.t(5), transformer=sampler, random_state=3).fit(X)
    grid = AggregatedKernelSteinTest(
        stats.t(5), transformers=[sampler], random_state=3
    ).fit(X)
    assert grid.statistics_[0] == pytest.approx(single.statistic_, rel=1e-12)
    np.testing.assert_allclose(
        grid.null_distributions_[:, 0], single.null_distribution_
    )
    assert grid.p_values_[0] == pytest.approx(single.p_value_)
    assert grid.result_.ksd2[0] == pytest.approx(single.result_.ksd2)


def test_the_grid_sees_a_misfit_the_median_bandwidth_misses():
    single, grid = [], []
    for seed in range(5):
        X = _comb(np.random.default_rng(seed), 2000)
        single.append(KernelSteinTest(stats.norm(), random_state=seed).fit(X).reject_)
        test = AggregatedKernelSteinTest(stats.norm(), random_state=seed).fit(X)
        grid.append(test.reject_)
        assert test.bandwidths_.min() < 0.2 < 1.0 < test.bandwidths_.max()
    assert sum(grid) == 5 and sum(single) <= 2


@pytest.mark.slow
def test_level_on_seeded_draws():
    # 60 normal samples: at most 8 rejections at 0.05 (P < 0.01 for a valid
    # test), with either aggregation.
    for method in ("ksdagg", "fuse"):
        hits = sum(
            AggregatedKernelSteinTest(
                stats.norm(), method=method, n_resamples=99, random_state=seed
            )
            .fit(np.random.default_rng(200 + seed).normal(size=(300, 2)))
            .reject_
            for seed in range(60)
        )
        assert hits <= 8


def test_partial_fit_in_chunks_equals_fit():
    X = np.random.default_rng(1).normal(size=(9000, 2))
    samplers = [
        RandomFourierSampler(bandwidth=b, n_components=16, random_state=k)
        for k, b in enumerate((0.3, 1.0, 3.0))
    ]

    def make():
        return AggregatedKernelSteinTest(
            stats.norm(), transformers=samplers, n_resamples=99, random_state=0
        )

    whole = make().fit(X)
    streamed = make()
    for lo in range(0, 9000, 4000):
        streamed.partial_fit(X[lo : lo + 4000])
    np.testing.assert_allclose(streamed.statistics_, whole.statistics_, rtol=1e-12)
    assert streamed.p_value_ == whole.p_value_


def test_weights_and_bad_transformers(rng):
    X = rng.normal(size=(300, 1))
    test = AggregatedKernelSteinTest(
        stats.norm(), weights="decreasing", random_state=0
    ).fit(X)
    assert test.weights_[0] > test.weights_[-1] and test.weights_.sum() == 1
    with pytest.raises(ValueError, match="one entry per kernel"):
        AggregatedKernelSteinTest(stats.norm(), weights=[1.0, 2.0]).fit(X)
    with pytest.raises(ValueError, match="at least one sampler"):
        AggregatedKernelSteinTest(stats.norm(), transformers=[]).fit(X)
    with pytest.raises(TypeError, match="feature='cos_sin'"):
        AggregatedKernelSteinTest(
            stats.norm(), transformers=[RandomFourierSampler(feature="cos_phase")]
        ).fit(X)


def test_auto_rejects_a_clear_misfit_after_399_draws(rng):
    X = rng.laplace(scale=1 / np.sqrt(2), size=(3000, 1))
    auto = AggregatedKernelSteinTest(
        stats.norm(), n_resamples="auto", random_state=0
    ).fit(X)
    assert auto.reject_ and auto.n_resamples_used_ == 399
    assert auto.p_value_ == 1 / 400
    null = AggregatedKernelSteinTest(
        stats.norm(), n_resamples="auto", random_state=0
    ).fit(rng.normal(size=(500, 1)))
    assert not null.reject_ and null.n_resamples_used_ <= 128
