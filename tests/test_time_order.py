"""Rows in time order across the families (``block_size``): the same
results in memory, in chunks and on a cluster; blocks that keep the level
where exchangeable rows' nulls break it; explain on the test's blocks; the
order check's warning; and the errors."""

import warnings

import numpy as np
import pytest
from scipy import stats

from skmmd import (
    AggregatedHSICTest,
    AggregatedKernelSteinTest,
    AggregatedMMDTest,
    HSICTest,
    KernelSteinTest,
    MMDTest,
    RandomFourierSampler,
    SerialDependenceWarning,
    goodness_of_fit_test,
    hsic_test,
    mmd_test,
)
from tests.helpers.data import ar1


def _fitted_map(X, seed=0):
    return RandomFourierSampler(n_components=32, bandwidth=1.0, random_state=seed).fit(
        X
    )


def _two_sample(rng, n=600, phi=0.8):
    return ar1(rng, n, phi, 2), ar1(rng, n, phi, 2)


def _tests(X):
    """One test of each family with maps that do not depend on the data (so
    that chunks, a cluster and memory see the same maps)."""
    x1 = X[:, :1]
    return {
        "mmd": (MMDTest(_fitted_map(X), n_resamples=99, random_state=0), 2),
        "agg": (
            AggregatedMMDTest(
                [_fitted_map(X, 0), _fitted_map(X, 1)], n_resamples=99, random_state=0
            ),
            2,
        ),
        "hsic": (
            HSICTest(
                _fitted_map(x1), _fitted_map(x1, 1), n_resamples=99, random_state=0
            ),
            2,
        ),
        "ksd": (
            KernelSteinTest(
                stats.norm(), bandwidth=1.0, n_resamples=99, random_state=0
            ),
            1,
        ),
        "aggksd": (
            AggregatedKernelSteinTest(
                stats.norm(),
                transformers=[
                    RandomFourierSampler(n_components=16, bandwidth=b, random_state=0)
                    for b in (0.5, 2.0)
                ],
                n_resamples=99,
                random_state=0,
            ),
            1,
        ),
    }


def _fit(test, n_args, X, Y):
    if n_args == 1:
        return test.fit(X[:, :1])
    if isinstance(test, (HSICTest, AggregatedHSICTest)):
        return test.fit(X[:, :1], Y[:, :1])
    return test.fit(X, Y)


def _chunks(test, n_args, X, Y, edges):
    for lo, hi in zip(edges[:-1], edges[1:]):
        if n_args == 1:
            test.partial_fit(X[lo:hi, :1])
        elif isinstance(test, HSICTest):
            test.partial_fit(X[lo:hi, :1], Y[lo:hi, :1])
        else:
            test.partial_fit(X[lo:hi], Y[lo:hi])
    return test


def _same(a, b):
    assert a.statistic_ == b.statistic_ and a.p_value_ == b.p_value_
    np.testing.assert_array_equal(a.null_distribution_, b.null_distribution_)
    assert a.block_size_ == b.block_size_


@pytest.mark.parametrize("name", ["mmd", "agg", "hsic", "ksd", "aggksd"])
@pytest.mark.parametrize("block_size", ["auto", 24])
def test_chunks_in_time_order_equal_one_fit(rng, name, block_size):
    X, Y = _two_sample(rng)
    test, n_args = _tests(X)[name]
    whole = _fit(test.set_params(block_size=block_size), n_args, X, Y)
    fresh = _tests(X)[name][0].set_params(block_size=block_size)
    chunked = _chunks(fresh, n_args, X, Y, [0, 7, 250, 600])
    _same(whole, chunked)
    assert whole.block_size_ >= (24 if block_size == 24 else 1)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mmd", "hsic", "ksd"])
def test_on_a_multiprocess_cluster_equals_in_memory(rng, dask_client, name):
    import dask.array as da

    X, Y = _two_sample(rng)
    test, n_args = _tests(X)[name]
    test.set_params(block_size="auto")
    whole = _fit(test, n_args, X, Y)
    lazy = (da.from_array(X, chunks=137), da.from_array(Y, chunks=137))
    if n_args == 1:
        lazy = (lazy[0][:, :1],)
    elif name == "hsic":
        lazy = (lazy[0][:, :1], lazy[1][:, :1])
    fresh = _tests(X)[name][0].set_params(block_size="auto")
    on_cluster = fresh.fit(*lazy)
    _same(whole, on_cluster)


@pytest.mark.slow
def test_blocks_keep_the_level_where_single_rows_do_not():
    # Two independent AR(0.9) samples of one law: 40 seeded draws. Rows
    # resampled one by one reject most draws; blocks about the level's share
    # (at most 7 of 40 keeps a true level of 0.05 in its 99.9 % band).
    rejected = {None: 0, "auto": 0}
    for seed in range(40):
        X, Y = _two_sample(np.random.default_rng(seed), n=500, phi=0.9)
        for block_size in rejected:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = mmd_test(
                    X, Y, block_size=block_size, n_resamples=99, random_state=seed
                )
            rejected[block_size] += result.pvalue <= 0.05
    assert rejected[None] >= 25 and rejected["auto"] <= 7


@pytest.mark.slow
def test_independence_and_goodness_of_fit_keep_the_level(rng):
    rejected = {"hsic": 0, "ksd": 0}
    for seed in range(30):
        draw = np.random.default_rng(seed)
        x, y = ar1(draw, 400, 0.9), ar1(draw, 400, 0.9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a coarse null at 400 rows
            p = hsic_test(x, y, block_size="auto", n_resamples=99, random_state=seed)
            q = goodness_of_fit_test(
                x, stats.norm(), block_size="auto", n_resamples=99, random_state=seed
            )
        rejected["hsic"] += p.pvalue <= 0.05
        rejected["ksd"] += q.pvalue <= 0.05
    assert max(rejected.values()) <= 6


def test_blocks_still_find_a_difference(rng):
    X, Y = ar1(rng, 2000, 0.5, 2), ar1(rng, 2000, 0.5, 2) + [0.5, 0.0]
    result = mmd_test(X, Y, block_size="auto", random_state=0)
    assert result.pvalue <= 0.01
    x = ar1(rng, 2000, 0.5)
    y = np.roll(x, 1, axis=0) + 0.5 * ar1(rng, 2000, 0.5)  # y follows x
    assert hsic_test(x, y, block_size="auto", random_state=0).pvalue <= 0.01


def test_hsic_standard_error_counts_the_dependence_between_units(rng):
    # y follows x at lag 0, both AR(0.9): the jackknife over units in time
    # order sees only part of the estimate's spread; with block_size its
    # error grows by the long-run factor of the leave-one-out values, and
    # on exchangeable rows it stays the exchangeable one.
    x = ar1(rng, 2000, 0.9)
    y = 0.5 * x + np.sqrt(0.75) * ar1(rng, 2000, 0.9)
    se = {"auto": hsic_test(x, y, block_size="auto", n_resamples=19, random_state=0)}
    with pytest.warns(SerialDependenceWarning):
        se[None] = hsic_test(x, y, n_resamples=19, random_state=0)
    assert se["auto"].hsic == pytest.approx(se[None].hsic)
    assert se["auto"].standard_error > 1.8 * se[None].standard_error
    x, y = rng.normal(size=(2000, 1)), rng.normal(size=(2000, 1))
    y += 0.5 * x
    same = [
        hsic_test(x, y, block_size=b, n_resamples=19, random_state=0).standard_error
        for b in (None, "auto")
    ]
    assert same[0] == pytest.approx(same[1])


def test_explain_resamples_the_tests_blocks_for_every_column(rng):
    X, Y = ar1(rng, 800, 0.7, 4), ar1(rng, 800, 0.7, 4)
    Y[:, 2] += 1.0
    test = MMDTest(block_size="auto", explain_columns=True, random_state=0).fit(X, Y)
    report = test.column_report_
    assert report.column.iloc[0] == "2" and report.adjusted_p_value.iloc[0] <= 0.01
    assert (report.adjusted_p_value.iloc[1:] > 0.05).all()
    # A second pass over the same rows gives the same report.
    again = test.explain(X, Y)
    np.testing.assert_allclose(again.statistic, report.statistic)
    np.testing.assert_array_equal(again.p_value, report.p_value)


def test_the_order_check_warns_once_per_fit_on_ordered_rows(rng):
    X, Y = _two_sample(rng, 1000, 0.5)
    with pytest.warns(SerialDependenceWarning, match="block_size='auto'"):
        MMDTest(n_resamples=19, random_state=0).fit(X, Y)
    with pytest.warns(SerialDependenceWarning, match="times too narrow"):
        KernelSteinTest(stats.norm(), n_resamples=19).fit(X[:, :1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Exchangeable rows, and ordered rows tested as ordered: no warning.
        MMDTest(n_resamples=19, random_state=0).fit(
            rng.normal(size=(1000, 2)), rng.normal(size=(1000, 2))
        )
        MMDTest(block_size="auto", n_resamples=19, random_state=0).fit(X, Y)


@pytest.mark.parametrize(
    "make",
    [
        lambda: MMDTest(None, block_size="auto"),
        lambda: HSICTest(None, None, block_size=10),
        lambda: KernelSteinTest(stats.norm(), transformer=None, block_size=10),
    ],
)
def test_exact_tests_have_no_blocks(rng, make):
    X = rng.normal(size=(100, 1))
    test = make()
    with pytest.raises(ValueError, match="exact test"):
        test.fit(X) if isinstance(test, KernelSteinTest) else test.fit(X, X + 1)


def test_a_block_size_that_leaves_no_shift_is_an_error(rng):
    x = rng.normal(size=(100, 1))
    with pytest.raises(ValueError, match="no shift of y against x"):
        HSICTest(block_size=80, random_state=0).fit(x, rng.normal(size=(100, 1)))


@pytest.mark.parametrize("block_size", [0, -3, "big", 2.5])
def test_bad_block_sizes_name_the_parameter(rng, block_size):
    with pytest.raises(ValueError, match="block_size"):
        MMDTest(block_size=block_size).fit(
            rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
        )


def _chains(rng, n_draws=600, n_chains=3, phi=0.9):
    """Chains of an AR(1) sampler whose stationary law is N(0, I_2), shaped
    (draws, chains, d) as emcee returns them."""
    return np.stack([ar1(rng, n_draws, phi, 2) for _ in range(n_chains)], axis=1)


def test_chains_are_their_draws_in_time_order_with_blocks(rng):
    chains = _chains(rng)
    test = KernelSteinTest(lambda x: -x, n_resamples=99, random_state=0).fit(chains)
    rows = np.concatenate([chains[:, c] for c in range(chains.shape[1])])
    same = KernelSteinTest(
        lambda x: -x, block_size="auto", n_resamples=99, random_state=0
    ).fit(rows)
    assert test.n_chains_ == 3 and test.block_size_ > 1
    assert test.p_value_ == same.p_value_ and test.statistic_ == same.statistic_
    with pytest.raises(ValueError, match="partial_fit takes rows"):
        KernelSteinTest(lambda x: -x).partial_fit(chains)


def test_arviz_posteriors_are_chains(rng):
    arviz = pytest.importorskip("arviz", reason="ArviZ is optional (the mcmc extra)")
    chains = _chains(rng)
    posterior = {"mu": np.swapaxes(chains[:, :, 0], 0, 1)}  # (chain, draw)
    posterior["tau"] = np.swapaxes(chains[:, :, 1], 0, 1)
    data = arviz.from_dict(posterior=posterior)
    from_arviz = KernelSteinTest(lambda x: -x, n_resamples=99, random_state=0)
    from_array = KernelSteinTest(lambda x: -x, n_resamples=99, random_state=0)
    assert from_arviz.fit(data).n_chains_ == 3
    assert from_arviz.p_value_ == from_array.fit(chains).p_value_


def test_emcee_chains_of_the_target_are_accepted(rng):
    emcee = pytest.importorskip("emcee", reason="emcee is optional (the mcmc extra)")
    # 8 walkers on N(0, I_2), seeded through emcee's public random_state.
    sampler = emcee.EnsembleSampler(8, 2, lambda x: -0.5 * x @ x)
    sampler.random_state = np.random.RandomState(0).get_state()
    # 2000 draws a walker, about 80 integrated autocorrelation times: enough
    # blocks for a sharp null (with a few hundred draws, few blocks remain).
    sampler.run_mcmc(rng.normal(size=(8, 2)), 2200, progress=False)
    chains = sampler.get_chain(discard=200)  # (draws, walkers, d)
    model = stats.multivariate_normal(np.zeros(2))
    result = goodness_of_fit_test(chains, model, random_state=0)
    assert result.pvalue > 0.05
    # The same chains drawn from a wider law than the model are rejected.
    assert goodness_of_fit_test(1.5 * chains, model, random_state=0).pvalue < 0.01


@pytest.mark.parametrize("table", [True, False])
def test_the_order_check_reads_the_rows_the_stream_maps(rng, table):
    """The features of each sample's first rows, read as the stream sums its
    first chunk (a table's map gives them with its sums), are those the
    check would map on their own; ordered rows warn, shuffled ones do not,
    with a table's map and with another (whose rows are mapped again)."""
    pd = pytest.importorskip("pandas")
    from skmmd import TabularSampler
    from skmmd._inference import _streaming
    from skmmd._inference._base import OrderHeads, order_features

    X, Y = _two_sample(rng, 5000, 0.8)
    if table:
        X, Y = (pd.DataFrame(S, columns=["a", "b"]) for S in (X, Y))
        X["c"] = Y["c"] = np.where(np.arange(5000) % 400 < 200, "up", "down")
        sampler = TabularSampler(n_components=200, random_state=0)
    else:
        sampler = RandomFourierSampler(n_components=200, random_state=0)
    sampler.fit(pd.concat([X, Y]) if table else np.vstack([X, Y]))
    if table:  # a map that gives them with its sums (others: mapped again)
        watch = OrderHeads(0, 7)
        width = sampler.transform(X[:1]).shape[1]
        stream = _streaming.Stream([sampler], [width], 8, 1)
        stream.add((X, Y), 8, watch)
        for S, ours in zip((X, Y), watch.features):
            expected = order_features(sampler, S.iloc[:2048], np.asarray, 7)
            np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-9)
        with pytest.warns(SerialDependenceWarning):
            watch.warn()
    shuffled = [
        S.sample(frac=1, random_state=0) if table else rng.permutation(S)
        for S in (X, Y)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MMDTest(sampler, n_resamples=19, random_state=0).fit(*shuffled)
    with pytest.warns(SerialDependenceWarning):
        MMDTest(sampler, n_resamples=19, random_state=0).fit(X, Y)
