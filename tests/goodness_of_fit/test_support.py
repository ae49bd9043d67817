"""Laws with a bounded or half-bounded support (issue 66, item 2): the rows
mapped onto the line, tested against the pushforward law. On main the
exponential, uniform and half-normal laws were rejected when true (p = 0.001
in 15 of 15 draws of 2000 points)."""

import numpy as np
import pytest
from scipy import stats

import skmmd
from skmmd import KernelSteinTest

LAWS = [stats.expon(), stats.uniform(), stats.halfnorm(), stats.truncnorm(-1, 1)]


@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.dist.name)
def test_a_true_law_with_an_edge_is_rejected_at_about_alpha(law):
    rng = np.random.default_rng(0)
    p = [
        skmmd.goodness_of_fit_test(
            law.rvs(size=300, random_state=rng), law, n_resamples=99, random_state=i
        ).pvalue
        for i in range(20)
    ]
    # Binomial(20, 0.05): 5 or more rejections has probability 0.003.
    assert np.sum(np.array(p) <= 0.05) <= 4


def test_a_wrong_law_on_a_half_line_is_rejected():
    x = stats.gamma(1.5).rvs(size=300, random_state=np.random.default_rng(1))
    result = skmmd.goodness_of_fit_test(x, stats.expon(scale=1.5), random_state=0)
    assert result.reject


def test_rows_on_or_outside_the_support_are_named():
    x = np.r_[np.random.default_rng(2).uniform(size=100), 1.0]
    with pytest.raises(ValueError, match=r"1 rows on or outside.*support \(0, 1\)"):
        skmmd.goodness_of_fit_test(x, stats.uniform())


def test_chunks_and_the_exact_test_map_the_rows_too():
    x = stats.expon().rvs(size=600, random_state=np.random.default_rng(3))
    options = {"bandwidth": 1.0, "n_resamples": 99, "random_state": 0}
    whole = KernelSteinTest(stats.expon(), **options).fit(x)
    chunked = KernelSteinTest(stats.expon(), **options)
    for lo in range(0, 600, 200):
        chunked.partial_fit(x[lo : lo + 200, None])
    assert chunked.statistic_ == pytest.approx(whole.statistic_, rel=1e-12)
    exact = KernelSteinTest(stats.expon(), transformer=None, **options).fit(x)
    assert exact.p_value_ > 0.05


def test_a_score_function_with_a_support_is_tested_on_the_line():
    """support=(low, high) for a score function or a log-density: the same
    test as the scipy law's (on main there was no such option and the
    exponential's own score rejected its draws)."""
    x = stats.expon().rvs(size=300, random_state=np.random.default_rng(4))
    options = {"n_resamples": 99, "random_state": 0}
    law = skmmd.goodness_of_fit_test(x, stats.expon(), **options)
    score = skmmd.goodness_of_fit_test(
        x, lambda X: -np.ones_like(X), support=(0, np.inf), **options
    )
    log_p = skmmd.log_density_score(lambda X: -X.sum(axis=1))
    density = skmmd.goodness_of_fit_test(x, log_p, support=(0, np.inf), **options)
    assert law.pvalue > 0.05
    assert score.statistic == pytest.approx(law.statistic, rel=1e-5)
    assert density.statistic == pytest.approx(law.statistic, rel=1e-5)


@pytest.mark.parametrize("support", [(1, 0), (-np.inf, np.inf), (0,)])
def test_a_bad_support_is_named(support):
    with pytest.raises(ValueError, match="support must be"):
        skmmd.goodness_of_fit_test(np.ones(50), lambda X: -X, support=support)


def test_support_is_for_score_functions():
    with pytest.raises(ValueError, match="support applies to a score function"):
        skmmd.goodness_of_fit_test(np.ones(50), stats.expon(), support=(0, np.inf))
