"""KernelSteinTest and goodness_of_fit_test (skmmd/goodness_of_fit): the
linear-time statistic against the exact one, the same result for the same
seed, in chunks and on a cluster, the level and the power on seeded draws,
input errors."""

import numpy as np
import pytest
from scipy import stats

from skmmd import KernelSteinTest, RandomFourierSampler, goodness_of_fit_test


def _laplace(rng, n, d=1):
    return rng.laplace(scale=1 / np.sqrt(2), size=(n, d))  # variance 1


def test_features_approach_the_exact_test():
    X = _laplace(np.random.default_rng(0), 400)
    exact = KernelSteinTest(stats.norm(), transformer=None, random_state=0).fit(X)
    gaps = []
    for n_frequencies in (8, 4096):
        test = KernelSteinTest(
            stats.norm(), n_frequencies=n_frequencies, random_state=0
        ).fit(X)
        assert test.bandwidth_ == exact.bandwidth_
        gaps.append(abs(test.statistic_ - exact.statistic_) / exact.statistic_)
    assert gaps[1] < 0.02 and gaps[1] < gaps[0]


def test_same_seed_same_p_value_and_a_seed_changes_the_draws(rng):
    X = rng.normal(size=(300, 2))
    a = KernelSteinTest(stats.norm(), n_resamples=99, random_state=3).fit(X)
    b = KernelSteinTest(stats.norm(), n_resamples=99, random_state=3).fit(X)
    c = KernelSteinTest(stats.norm(), n_resamples=99, random_state=4).fit(X)
    assert a.p_value_ == b.p_value_ and a.statistic_ == b.statistic_
    np.testing.assert_array_equal(a.null_distribution_, b.null_distribution_)
    assert a.statistic_ != c.statistic_


def _fixed_map_test(**params):
    sampler = RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=0)
    return KernelSteinTest(stats.t(5), transformer=sampler, random_state=0, **params)


@pytest.mark.parametrize("unit", ["auto", 4])
def test_partial_fit_in_chunks_equals_fit(unit):
    X = np.random.default_rng(1).standard_t(5, size=(9000, 2))
    whole = _fixed_map_test(n_resamples=99, resample_unit=unit).fit(X)
    streamed = _fixed_map_test(n_resamples=99, resample_unit=unit)
    for lo in range(0, 9000, 2500):
        streamed.partial_fit(X[lo : lo + 2500])
    assert streamed.statistic_ == pytest.approx(whole.statistic_, rel=1e-12)
    assert streamed.p_value_ == whole.p_value_
    assert streamed.resample_unit_ == whole.resample_unit_
    assert streamed.n_samples_ == 9000


def test_a_bad_chunk_leaves_the_stream_as_it_was():
    X = np.random.default_rng(2).normal(size=(600, 1))
    test = _fixed_map_test(n_resamples=49).partial_fit(X[:300])
    bad = X[300:].copy()
    bad[5, 0] = np.nan
    with pytest.raises(ValueError, match="partial_fit chunk after 300 rows"):
        test.partial_fit(bad)
    test.partial_fit(X[300:])
    assert test.statistic_ == pytest.approx(
        _fixed_map_test(n_resamples=49).fit(X).statistic_, rel=1e-12
    )


@pytest.mark.slow
def test_on_a_multiprocess_cluster_equals_in_memory(dask_client):
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(3).standard_t(5, size=(10000, 3))
    ref = _fixed_map_test(n_resamples=99).fit(X)
    test = _fixed_map_test(n_resamples=99).fit(da.from_array(X, chunks=4096))
    assert test.statistic_ == pytest.approx(ref.statistic_, rel=1e-12)
    assert test.p_value_ == ref.p_value_


@pytest.mark.slow
def test_level_and_power_on_seeded_draws():
    # 60 draws each: under H0 (normal rows) at most 8 rejections at 0.05
    # (P < 0.01 for a valid test); a Laplace law of the same variance is
    # found in at least 55.
    null, alt = 0, 0
    for seed in range(60):
        rng = np.random.default_rng(100 + seed)
        null += goodness_of_fit_test(
            rng.normal(size=300), stats.norm(), n_resamples=99, random_state=seed
        ).reject
        alt += goodness_of_fit_test(
            _laplace(rng, 1500), stats.norm(), n_resamples=99, random_state=seed
        ).reject
    assert null <= 8 and alt >= 55


def test_a_fitted_mixture_held_out_fits_its_own_draws():
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(5)
    data = np.vstack([rng.normal(-2, 1, size=(500, 2)), rng.normal(2, 0.5, (500, 2))])
    gm = GaussianMixture(2, random_state=0).fit(data)
    # GaussianMixture.sample returns its draws grouped by component: shuffled,
    # they are i.i.d. rows (grouped, the order check would warn).
    fresh = rng.permutation(gm.sample(1000)[0])
    shifted = fresh + np.array([0.4, 0.0])
    assert goodness_of_fit_test(fresh, gm, random_state=0).pvalue > 0.05
    assert goodness_of_fit_test(shifted, gm, random_state=0).pvalue <= 0.01


def test_the_result_and_its_interval(rng):
    X = _laplace(rng, 3000, 2)
    result = goodness_of_fit_test(X, stats.norm(), random_state=0)
    low, high = result.confidence_interval()
    assert 0 < low <= result.ksd2 <= high
    # n_resamples="auto", the family's default, stops once the decision is known.
    assert result.n_samples == 3000 and 0 < result.n_resamples_used < 999
    assert result.to_dict()["ksd2"] == result.ksd2
    assert "the rows are drawn from the model" in result.to_html()


def test_auto_stops_early_on_a_clear_decision(rng):
    X = rng.normal(1.0, 1.0, size=(500, 1))
    test = KernelSteinTest(stats.norm(), n_resamples="auto", random_state=0).fit(X)
    assert test.reject_ and test.n_resamples_used_ < 999


def test_dataframes_and_one_dimensional_samples(rng):
    pd = pytest.importorskip("pandas")
    x = rng.normal(size=400)
    a = goodness_of_fit_test(x, stats.norm(), random_state=0)
    b = goodness_of_fit_test(pd.DataFrame({"x": x}), stats.norm(), random_state=0)
    assert a.statistic == b.statistic and a.pvalue == b.pvalue
    with pytest.raises(ValueError, match=r"columns \['city'\] are not numeric"):
        KernelSteinTest(stats.norm()).fit(pd.DataFrame({"x": x, "city": "Oslo"}))


def test_bad_input_is_named(rng):
    X = rng.normal(size=(50, 2))
    with pytest.raises(ValueError, match="is of dimension 3"):
        KernelSteinTest(stats.multivariate_normal(np.zeros(3))).fit(X)
    with pytest.raises(ValueError, match="at least 5 rows"):
        KernelSteinTest(stats.norm()).fit(X[:3])
    bad = X.copy()
    bad[7, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        KernelSteinTest(stats.norm()).fit(bad)
    with pytest.raises(TypeError, match="model must be a score function"):
        KernelSteinTest("norm").fit(X)
    with pytest.raises(ValueError, match=r"shape \(n, d\)"):
        KernelSteinTest(lambda A: A.sum(axis=1)).fit(X)
    with pytest.raises(TypeError, match="feature='cos_sin'"):
        KernelSteinTest(
            stats.norm(), transformer=RandomFourierSampler(feature="cos_phase")
        ).fit(X)
    assert not hasattr(KernelSteinTest(stats.norm(), transformer=None), "partial_fit")


def test_train_size_fits_the_model_on_a_part_and_tests_the_rest():
    from sklearn.base import clone
    from sklearn.mixture import GaussianMixture
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(-2, 1, (1500, 2)), rng.normal(2, 0.5, (1500, 2))])
    model = GaussianMixture(2, random_state=0)
    test = KernelSteinTest(model, train_size=0.8, random_state=4).fit(X)
    assert test.n_train_ == 2400 and test.n_samples_ == 600
    assert not hasattr(model, "means_")  # the given model is left unfitted
    # The same as fitting the model on the training part by hand: the split
    # is seeded by the test's seed.
    seed = np.random.RandomState(4).randint(np.iinfo(np.int32).max)
    train, rest = train_test_split(
        np.arange(3000),
        train_size=0.8,
        random_state=np.random.RandomState([seed, 3]),
    )
    fitted = clone(model).fit(X[np.sort(train)])
    by_hand = KernelSteinTest(fitted, random_state=4).fit(X[np.sort(rest)])
    assert test.statistic_ == pytest.approx(by_hand.statistic_, rel=1e-12)
    assert test.p_value_ == by_hand.p_value_
    np.testing.assert_allclose(test.model_.means_, fitted.means_)


def test_train_size_in_chunks_trains_on_the_first():
    from sklearn.mixture import GaussianMixture

    X = np.random.default_rng(7).normal(size=(6000, 2))
    test = _fixed_map_test(n_resamples=49)
    test.set_params(model=GaussianMixture(1, random_state=0), train_size=0.5)
    test.partial_fit(X[:2000]).partial_fit(X[2000:4000]).partial_fit(X[4000:])
    fitted = GaussianMixture(1, random_state=0).fit(X[:2000])
    by_hand = _fixed_map_test(n_resamples=49).set_params(model=fitted)
    by_hand.partial_fit(X[2000:4000]).partial_fit(X[4000:])
    assert test.n_train_ == 2000 and test.n_samples_ == 4000
    assert test.statistic_ == pytest.approx(by_hand.statistic_, rel=1e-12)
    assert test.p_value_ == by_hand.p_value_


def test_train_size_needs_a_model_to_fit(rng):
    from sklearn.mixture import GaussianMixture

    X = rng.normal(size=(100, 1))
    with pytest.raises(TypeError, match="model is a rv_continuous_frozen, not an"):
        KernelSteinTest(stats.norm(), train_size=0.5).fit(X)
    fitted = GaussianMixture(1).fit(X)
    with pytest.raises(TypeError, match="model is a fitted GaussianMixture"):
        KernelSteinTest(fitted, train_size=0.5).fit(X)
    with pytest.raises(ValueError, match="leaves 2 of 100 rows to test"):
        KernelSteinTest(GaussianMixture(1), train_size=98).fit(X)


def test_dask_dataframes_and_their_errors():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        np.random.default_rng(8).normal(size=(5000, 2)), columns=["a", "b"]
    )
    ref = _fixed_map_test(n_resamples=49).fit(frame)
    test = _fixed_map_test(n_resamples=49).fit(dd.from_pandas(frame, npartitions=3))
    assert test.statistic_ == pytest.approx(ref.statistic_, rel=1e-12)
    assert test.p_value_ == ref.p_value_
    assert list(test.feature_names_in_) == ["a", "b"]
    text = dd.from_pandas(frame.assign(city="Oslo"), npartitions=2)
    with pytest.raises(ValueError, match=r"columns \['city'\] are not numeric"):
        _fixed_map_test().fit(text)
    with pytest.raises(TypeError, match="partial_fit takes in-memory chunks"):
        _fixed_map_test().partial_fit(dd.from_pandas(frame, npartitions=2))
