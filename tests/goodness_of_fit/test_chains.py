"""MCMC chains in either layout (issue 82, "layout never decides the
answer"): PyMC, NumPyro and Stan's ``(chains, draws, d)`` and emcee's
``(draws, chains, d)`` give the same rows and the same test, an ArviZ
posterior is read by its dims, ``chain_axis`` states the layout and an array
whose shape does not say it is refused by name."""

import numpy as np
import pytest
from scipy import stats

from skmmd import AggregatedKernelSteinTest, KernelSteinTest, goodness_of_fit_test
from skmmd.goodness_of_fit._chains import chain_rows
from tests.helpers.data import ar1


def _pymc_chains(rng, n_chains=4, n_draws=1000, phi=0.9, d=2):
    """Chains of an AR(1) sampler whose stationary law is N(0, I_d), shaped
    ``(chains, draws, d)`` as PyMC, NumPyro and Stan return them."""
    return np.stack([ar1(rng, n_draws, phi, d) for _ in range(n_chains)])


def _score(x):
    return -x  # N(0, I)


@pytest.fixture
def pymc():
    # One seeded draw: the p-value of chains from the target is above 0.05
    # for it (a level check over draws is test_the_level_on_pymc_order_chains).
    return _pymc_chains(np.random.default_rng(0))


def test_both_orders_give_each_chain_in_time_order(pymc):
    """On main, (chains, draws, d) was read as (draws, chains, d): the rows
    interleaved the chains draw by draw."""
    rows, n_chains = chain_rows(pymc)
    assert n_chains == 4
    np.testing.assert_array_equal(rows, np.concatenate(pymc))
    emcee_rows, emcee_chains = chain_rows(np.swapaxes(pymc, 0, 1))
    np.testing.assert_array_equal(emcee_rows, rows)
    assert emcee_chains == 4


def test_pymc_order_chains_from_the_target_are_four_accepted_chains(pymc):
    """On main, n_chains_ was 1000 and the blocks cut across chains."""
    test = KernelSteinTest(_score, random_state=0).fit(pymc)
    assert test.n_chains_ == 4 and test.block_size_ > 1
    assert test.p_value_ > 0.05
    emcee = KernelSteinTest(_score, random_state=0).fit(np.swapaxes(pymc, 0, 1))
    assert emcee.n_chains_ == 4 and emcee.block_size_ == test.block_size_
    assert emcee.statistic_ == test.statistic_ and emcee.p_value_ == test.p_value_
    # The same test as the rows, chain after chain, in time order.
    rows = KernelSteinTest(_score, block_size="auto", random_state=0).fit(
        np.concatenate(pymc)
    )
    assert rows.statistic_ == test.statistic_ and rows.p_value_ == test.p_value_


def test_pymc_order_chains_of_another_law_are_rejected(pymc):
    model = stats.multivariate_normal(np.zeros(2))
    result = goodness_of_fit_test(1.5 * pymc, model, random_state=0)
    assert result.pvalue < 0.01
    test = KernelSteinTest(_score, random_state=0).fit(pymc + [0.5, 0.0])
    assert test.reject_ and test.n_chains_ == 4


@pytest.mark.parametrize("test", [KernelSteinTest, AggregatedKernelSteinTest])
@pytest.mark.parametrize("shape", [(30, 40, 2), (40, 30, 2), (50, 50, 2)])
def test_an_array_whose_shape_does_not_say_its_chains_is_refused(test, shape):
    """On main, any 3-D array was read as (draws, chains, d)."""
    chains = np.random.default_rng(0).normal(size=shape)
    with pytest.raises(ValueError, match=r"chain_axis=0 for \(chains, draws, d\)"):
        test(_score, n_resamples=19, random_state=0).fit(chains)
    with pytest.raises(ValueError, match="chain_axis=1 for"):
        goodness_of_fit_test(chains, _score, random_state=0)


@pytest.mark.parametrize("test", [KernelSteinTest, AggregatedKernelSteinTest])
def test_a_stated_chain_axis_is_honoured(test):
    """On main, chain_axis was not a parameter (a TypeError)."""
    chains = _pymc_chains(np.random.default_rng(1), n_chains=30, n_draws=40)
    options = {"n_resamples": 99, "random_state": 0}
    for axis, n_chains, rows in [
        (0, 30, np.concatenate(chains)),
        (1, 40, np.concatenate(np.swapaxes(chains, 0, 1))),
    ]:
        fitted = test(_score, chain_axis=axis, **options).fit(chains)
        same = test(_score, block_size="auto", **options).fit(rows)
        assert fitted.n_chains_ == n_chains
        assert fitted.statistic_ == same.statistic_
        assert fitted.p_value_ == same.p_value_
    # Stated, it overrides the shape's reading: emcee order read as such.
    long = _pymc_chains(np.random.default_rng(2), n_chains=4, n_draws=300)
    stated = KernelSteinTest(_score, chain_axis=1, **options).fit(
        np.swapaxes(long, 0, 1)
    )
    assert stated.n_chains_ == 4
    result = goodness_of_fit_test(long, _score, chain_axis=0, **options)
    assert result.pvalue == stated.p_value_


def test_chain_axis_is_validated():
    with pytest.raises(ValueError, match="'chain_axis' parameter"):
        KernelSteinTest(_score, chain_axis=2).fit(np.zeros((4, 100, 2)))


def test_an_arviz_posterior_is_read_by_its_dims(pymc):
    """An InferenceData built from the (chains, draws, d) array: four chains,
    the array's test, whatever chain_axis says (on main, the array was read
    as 1000 chains, and chain_axis was a TypeError)."""
    arviz = pytest.importorskip("arviz", reason="ArviZ is optional (the mcmc extra)")
    data = arviz.from_dict(posterior={"x": pymc})  # dims (chain, draw, x_dim_0)
    options = {"n_resamples": 199, "random_state": 0}
    from_array = KernelSteinTest(_score, **options).fit(pymc)
    assert from_array.n_chains_ == 4
    for axis in ("auto", 1):
        from_arviz = KernelSteinTest(_score, chain_axis=axis, **options).fit(data)
        assert from_arviz.n_chains_ == 4
        assert from_arviz.statistic_ == from_array.statistic_
        assert from_arviz.p_value_ == from_array.p_value_
    # The posterior group alone (an xarray Dataset) reads the same.
    posterior = KernelSteinTest(_score, chain_axis=1, **options).fit(data.posterior)
    assert posterior.n_chains_ == 4 and posterior.p_value_ == from_array.p_value_


def test_the_level_on_pymc_order_chains():
    """A small seeded level check (the Monte Carlo is in
    benchmarks/bench_time_series.py): 20 draws of four PyMC-order chains of
    the target, at most 3 rejections at 0.05 (a binomial(20, 0.05) exceeds 3
    with probability 0.016)."""
    rng = np.random.default_rng(0)
    rejections = 0
    for _ in range(20):
        test = KernelSteinTest(_score, random_state=rng.integers(2**31)).fit(
            _pymc_chains(rng, n_draws=500)
        )
        assert test.n_chains_ == 4
        rejections += test.reject_
    assert rejections <= 3
