"""A composite null's per-resample work without scipy's per-call checks
(issue 83): the normal's closed-form fit and draws, the refit laws' copies
and the maps' features give the values scipy's and the sampler's own calls
give."""

import numpy as np
import pytest
from scipy import stats

from skmmd import KernelSteinTest
from skmmd.goodness_of_fit._composite import ScipyFamily, normal_fit
from skmmd.goodness_of_fit._maps import _features


def test_the_normal_fit_is_scipy_s_to_the_bit():
    x = np.random.default_rng(0).normal(3.0, 2.0, size=(500, 1))
    assert normal_fit(x) == stats.norm.fit(x.ravel())
    family = ScipyFamily(stats.norm, {})
    assert family.fit(x, 0).args == stats.norm.fit(x.ravel())
    with pytest.raises(ValueError, match="non-finite"):
        normal_fit(np.append(x, np.nan))


def test_the_normal_draws_are_scipy_s_to_the_bit():
    family = ScipyFamily(stats.norm, {})
    law = family.fit(np.random.default_rng(1).normal(size=300), 0)
    mine = family.sample(law, (300, 1), np.random.default_rng(5))
    theirs = law.rvs(size=(300, 1), random_state=np.random.default_rng(5))
    np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize(
    "dist, params",
    [
        (stats.norm, (1.0, 2.0)),
        (stats.uniform, (-1.0, 3.0)),
        (stats.genpareto, (-0.3, 0.5, 1.5)),
        (stats.beta, (2.0, 3.0, -1.0, 4.0)),
    ],
)
def test_a_refit_law_s_support_is_scipy_s_to_the_bit(dist, params):
    family = ScipyFamily(dist, {})
    family.member((*params[:-2], 0.0, 1.0))  # the first fit, copied after
    law = family.member(params)
    scipy_law = dist(*params)
    assert (law.a, law.b) == (scipy_law.a, scipy_law.b)
    assert law.support() == scipy_law.support()


def test_the_map_s_features_are_the_sampler_s_transform():
    x = np.random.default_rng(2).normal(size=(700, 1))
    test = KernelSteinTest(stats.norm, n_resamples=5, random_state=0).fit(x)
    stein = test._stream.transformers[0]
    for sampler in (stein.sampler, stein.pit):
        np.testing.assert_array_equal(_features(sampler, x), sampler.transform(x))


@pytest.mark.parametrize("n", [300, 3000])
def test_one_pass_of_one_column_rows_gives_the_sums_to_the_bit(n):
    """The fused pass of a resample batch (both kernels of the default)
    and the sampler's transform followed by the per-unit sums agree bit for
    bit (a batch short of the parallel projection's size, and one above)."""
    from skmmd.goodness_of_fit._maps import stein_inputs

    x = np.random.default_rng(3).normal(size=(n, 1))
    test = KernelSteinTest(stats.norm, n_resamples=5, random_state=0).fit(x)
    stein = test._stream.transformers[0]
    groups = np.repeat(np.arange(3), -(-n // 3))[:n]
    inputs = stein_inputs(test._score, x)
    out = []
    for fused in (False, True):
        sums, squares = np.zeros((3, stein._n_features_out)), np.zeros(3)
        stein.add_sums(x, *inputs, groups, sums, squares, fused=fused)
        out.append((sums, squares))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])
