"""Families whose support starts at a free location (issue 83): the edge
is conditioned on, the rows above the smallest tested shifted by it, and the
parametric bootstrap repeats the same construction; ends a free parameter
moves otherwise are refused before the bootstrap starts."""

import numpy as np
import pytest
from scipy import stats

from skmmd import KernelSteinTest
from skmmd.goodness_of_fit._composite import refit_statistics
from skmmd.goodness_of_fit._models import model_score
from skmmd.statistics._stein import stein_features


def _cross(y, score, frequencies):
    xi = stein_features(y, score, frequencies)
    return (xi.sum(0) @ xi.sum(0) - np.sum(xi * xi)) / y.shape[0]


def test_the_rows_above_the_smallest_are_tested_against_the_fit_at_edge_zero():
    """``stats.expon`` with its location free: ``model_`` starts at the
    smallest row, the others are tested shifted by it (n - 1 rows), with
    the statistic of ``known_params={"loc": 0}`` on those rows."""
    x = np.random.default_rng(0).exponential(2.0, size=120) + 5.0
    test = KernelSteinTest(stats.expon, n_resamples=5, random_state=0).fit(x)
    y = np.delete(x, np.argmin(x)) - x.min()  # in the rows' order
    assert test.model_.args == pytest.approx((x.min(), y.mean()))
    assert test.n_samples_ == 119
    fixed = KernelSteinTest(stats.expon, known_params={"loc": 0}, n_resamples=5)
    fixed.set_params(random_state=0).fit(y)
    assert test.statistic_ == pytest.approx(fixed.statistic_)


def test_each_resample_repeats_the_construction():
    """The null's first statistic by hand: n rows drawn from ``model_``,
    the smallest set aside, the rest shifted by it, the scale refit with
    the edge at 0, cross terms on the log line (score ``1 - e^y / scale``)."""
    x = np.random.default_rng(1).exponential(size=100) - 3.0
    test = KernelSteinTest(stats.expon, n_resamples=3, random_state=0).fit(x)
    seed = np.random.default_rng(test._seed).integers(np.iinfo(np.int64).max)
    rows = test.model_.rvs(size=(100, 1), random_state=np.random.default_rng(seed))
    y = np.sort(rows, axis=0)[1:] - rows.min()
    line = np.log(y)
    score = 1.0 - y / y.mean()
    expected = _cross(line, score, test.transformer_.random_weights_)
    assert test.null_distribution_[0] == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(
    "family, law",
    [
        (stats.pareto, stats.pareto(3.0, 0.5, 1.0)),
        (stats.weibull_min, stats.weibull_min(1.5, 1.0, 2.0)),
        (stats.gamma, stats.gamma(2.0, -1.0, 1.5)),
        (stats.genpareto, stats.genpareto(0.2, 2.0, 1.0)),
    ],
)
def test_edge_families_fit_their_edge_at_the_smallest_row(family, law):
    x = law.rvs(size=150, random_state=2)
    test = KernelSteinTest(family, n_resamples=9, random_state=0).fit(x)
    assert test.model_.support()[0] == pytest.approx(x.min())
    assert 0 < test.p_value_ <= 1 and test.n_samples_ == 149


def test_a_wrong_family_with_a_free_edge_is_rejected():
    x = stats.lognorm(1.0, 3.0).rvs(size=300, random_state=3)
    test = KernelSteinTest(stats.expon, n_resamples=39, random_state=0).fit(x)
    assert test.p_value_ <= 0.05


def test_the_level_of_an_edge_conditioned_on():
    """True exponential rows, location and scale unknown: p-values spread
    over (0, 1) (about 20 % at most 0.2) where the test without the
    construction refused (the fitted edge on the smallest row)."""
    ps = [
        KernelSteinTest(stats.expon, n_resamples=19, random_state=r)
        .fit(stats.expon(r, 2.0).rvs(size=80, random_state=r))
        .p_value_
        for r in range(60)
    ]
    assert 0.08 <= np.mean(np.array(ps) <= 0.2) <= 0.4


@pytest.mark.parametrize(
    "family, options, match",
    [
        (stats.uniform, {}, r"support end at .* free parameters \['scale'\] move"),
        (
            stats.pareto,
            {"known_params": {"loc": 0}},
            r"support end at .* free parameters \['scale'\] move",
        ),
    ],
)
def test_an_end_a_refit_puts_on_a_row_is_refused_before_the_bootstrap(
    family, options, match
):
    x = np.random.default_rng(4).uniform(1.0, 2.0, size=100)
    with pytest.raises(ValueError, match=match):
        KernelSteinTest(family, n_resamples=5, **options).fit(x)


def test_a_resample_with_a_row_outside_its_refit_counts_as_extreme():
    """A refit whose support leaves a row out (a shape that gives it a new
    end) has no statistic: +inf, never an error from inside the
    bootstrap."""
    from skmmd.goodness_of_fit._maps import SteinMap
    from skmmd.kernel_approximation import RandomFourierSampler

    rows = np.random.default_rng(5).uniform(0.1, 0.9, size=(50, 1))
    sampler = RandomFourierSampler(bandwidth=1.0, n_components=8, random_state=0)
    stein = SteinMap(sampler.fit(rows), model_score(stats.uniform()))
    outside = rows.copy()
    outside[0] = 1.5
    laws = [stats.uniform(), stats.uniform()]
    out = refit_statistics([stein], model_score, laws, [rows, outside])
    assert np.isfinite(out[0]) and out[1] == np.inf
