"""Half-line families whose logarithm is a location-scale family (issue
83): the Weibull and the lognormal with a known location are tested as
their standardized logarithms, so their parametric bootstrap is exact."""

import numpy as np
import pytest
from scipy import stats

from skmmd import KernelSteinTest
from skmmd.goodness_of_fit._maps import PitScore


def _test(model, x, **options):
    options = {"n_resamples": 9, "random_state": 0, **options}
    return KernelSteinTest(model, **options).fit(x)


@pytest.mark.parametrize(
    "family, log_family, law",
    [
        (stats.weibull_min, stats.gumbel_l, stats.weibull_min(1.5, scale=2.0)),
        (stats.lognorm, stats.norm, stats.lognorm(0.7, scale=3.0)),
    ],
)
def test_the_rows_are_tested_as_their_logarithms_family(family, log_family, law):
    """The statistic and the null of the family with its location at 0 are
    those of its logarithms' location-scale family on ``log x`` (the same
    maximum likelihood, the same standardized rows), with the kernel on
    the probability-integral transform; ``model_`` is scipy's own fit."""
    x = law.rvs(size=150, random_state=3)
    test = _test(family, x, known_params={"loc": 0})
    logs = _test(log_family, np.log(x))
    assert isinstance(test._score, PitScore)
    assert test.statistic_ == pytest.approx(logs.statistic_, rel=1e-3)
    np.testing.assert_allclose(test.null_distribution_, logs.null_distribution_, 1e-3)
    assert test.model_.args == pytest.approx(family.fit(x, floc=0), rel=1e-6)


@pytest.mark.parametrize(
    "family, law",
    [(stats.weibull_min, stats.weibull_min(1.5)), (stats.lognorm, stats.lognorm(0.7))],
)
def test_the_statistic_and_its_null_do_not_see_the_parameters(family, law):
    """``5 x^2`` is a member of the family when ``x`` is, of other shape
    and scale: the rows' statistic and every resample's are the same (the
    null law is free of the parameters, the bootstrap exact)."""
    x = law.rvs(size=120, random_state=0)
    one = _test(family, x, known_params={"loc": 0})
    two = _test(family, 5.0 * x**2, known_params={"loc": 0})
    assert two.model_.args[0] != pytest.approx(one.model_.args[0])
    assert two.statistic_ == pytest.approx(one.statistic_, rel=1e-3)
    np.testing.assert_allclose(two.null_distribution_, one.null_distribution_, 1e-3)


def test_a_known_shape_or_scale_is_held_in_every_refit():
    """With the shape known, the rows' fit and every resample's refit keep
    it (the logarithms' scale held): the test equals the Gumbel family's
    with that scale known."""
    x = stats.weibull_min(2.0, scale=1.5).rvs(size=150, random_state=4)
    test = _test(stats.weibull_min, x, known_params={"loc": 0, "c": 2.0})
    assert test.model_.args[0] == 2.0
    logs = _test(stats.gumbel_l, np.log(x), known_params={"scale": 0.5})
    np.testing.assert_allclose(test.null_distribution_, logs.null_distribution_, 1e-3)
    scale = _test(stats.weibull_min, x, known_params={"loc": 0, "scale": 1.5})
    assert scale.model_.args[2] == 1.5
    logs = _test(stats.gumbel_l, np.log(x), known_params={"loc": np.log(1.5)})
    np.testing.assert_allclose(scale.null_distribution_, logs.null_distribution_, 1e-3)


def test_rows_below_the_known_location_are_named():
    x = np.append(stats.weibull_min(1.5).rvs(size=99, random_state=5), -1.0)
    with pytest.raises(ValueError, match="1 rows on or below the location 0"):
        _test(stats.weibull_min, x, known_params={"loc": 0})


def test_a_free_location_is_still_conditioned_on_the_edge():
    """Without ``known_params={"loc": ...}`` the Weibull's edge is its
    smallest row (:mod:`._edges`), not a logarithm's location."""
    x = stats.weibull_min(1.5, 1.0, 2.0).rvs(size=150, random_state=6)
    test = _test(stats.weibull_min, x)
    assert test.n_samples_ == 149 and test._score.line is not None
