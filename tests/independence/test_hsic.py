"""HSICTest and hsic_test: the statistic against Gram-matrix HSIC, the
permutation p-value, level and power on small seeded problems, the unit
observations, and bad input."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import skmmd
from skmmd import HSICTest, HSICTestResult, RandomFourierSampler, TabularSampler
from skmmd._inference._streaming import virtual_positions
from skmmd.statistics import hsic_features
from skmmd.statistics._hsic import HSICParts, draw_variances, feature_gram


def _gram_hsic(Zx, Zy, unbiased):
    """Textbook HSIC from the Gram matrices (Gretton et al. 2005; Song et
    al. 2012), quadratic."""
    K, L = Zx @ Zx.T, Zy @ Zy.T
    n = K.shape[0]
    if not unbiased:
        H = np.eye(n) - 1.0 / n
        return np.trace(K @ H @ L @ H) / n**2
    Kt, Lt = K - np.diag(np.diag(K)), L - np.diag(np.diag(L))
    one = np.ones(n)
    return (
        np.trace(Kt @ Lt)
        + (one @ Kt @ one) * (one @ Lt @ one) / ((n - 1) * (n - 2))
        - 2.0 / (n - 2) * (one @ Kt @ Lt @ one)
    ) / (n * (n - 3))


def _maps(seed=0, D=64):
    return (
        RandomFourierSampler(n_components=D, random_state=seed),
        RandomFourierSampler(n_components=D, random_state=seed + 1),
    )


def _dependent(rng, n):
    x = rng.normal(size=(n, 2))
    return x, x[:, :1] ** 2 + 0.3 * rng.normal(size=(n, 1))


@pytest.mark.parametrize("statistic", ["biased", "unbiased"])
def test_statistic_equals_gram_hsic_of_the_features(statistic):
    rng = np.random.default_rng(0)
    X, Y = _dependent(rng, 120)
    test = HSICTest(*_maps(), statistic=statistic, n_resamples=19, random_state=0).fit(
        X, Y
    )
    assert test.resample_unit_ == 1
    Zx = test.x_transformer_.transform(X)
    Zy = test.y_transformer_.transform(Y)
    expected = _gram_hsic(Zx, Zy, statistic == "unbiased")
    assert test.statistic_ == pytest.approx(expected, rel=1e-10)
    assert hsic_features(Zx, Zy, statistic=statistic) == pytest.approx(
        expected, rel=1e-10
    )
    # The result's effect size is the unbiased HSIC either way.
    assert test.result_.hsic == pytest.approx(_gram_hsic(Zx, Zy, True), rel=1e-10)


def test_null_is_hsic_of_permuted_pairs_and_p_value_counts_it():
    rng = np.random.default_rng(1)
    X, Y = _dependent(rng, 40)
    test = HSICTest(*_maps(), n_resamples=49, random_state=3).fit(X, Y)
    # Each null value is the statistic of some pairing of the y rows.
    Zx = test.x_transformer_.transform(X)
    Zy = test.y_transformer_.transform(Y)
    null = test.null_distribution_
    assert null.shape == (49,)
    perm_rng = np.random.default_rng(5)
    values = [_gram_hsic(Zx, Zy[perm_rng.permutation(40)], False) for _ in range(200)]
    assert np.min(values) <= null.min() and null.max() <= max(values) * 1.5
    expected = (1 + np.sum(null >= test.statistic_ - 1e-12)) / 50
    assert test.p_value_ == pytest.approx(expected)
    assert test.reject_ == (test.p_value_ <= test.alpha)


def test_results_do_not_depend_on_batch_or_threads():
    rng = np.random.default_rng(2)
    X, Y = _dependent(rng, 200)
    ref = HSICTest(*_maps(), n_resamples=99, random_state=0).fit(X, Y)
    for options in ({"batch": 7}, {"n_jobs": 2}, {"batch": 10, "n_jobs": 2}):
        other = HSICTest(*_maps(), n_resamples=99, random_state=0, **options)
        other.fit(X, Y)
        np.testing.assert_array_equal(other.null_distribution_, ref.null_distribution_)
        assert other.p_value_ == ref.p_value_


def test_level_and_power_small_seeded():
    """Type-I error near alpha on independent pairs (Gaussian and t with 3
    dof) and power on y = x^2 + noise; 150 repetitions each."""
    rejections, power = [], []
    for rep in range(150):
        rng = np.random.default_rng(rep)
        x = rng.normal(size=(60, 1))
        y = rng.standard_t(3, size=(60, 1)) if rep % 2 else rng.normal(size=(60, 1))
        test = HSICTest(*_maps(rep, 32), n_resamples=39, random_state=rep)
        rejections.append(test.fit(x, y).reject_)
        if rep < 30:
            power.append(test.fit(x, x**2 + 0.2 * y).reject_)
    # 150 tests at 0.05: 3 standard deviations are about 0.054.
    assert 0.0 < np.mean(rejections) <= 0.11
    assert np.mean(power) >= 0.9


def test_units_are_scaled_sums_of_random_groups():
    rng = np.random.default_rng(3)
    X, Y = _dependent(rng, 1003)
    test = HSICTest(*_maps(), resample_unit=4, n_resamples=19, random_state=0)
    test.fit(X, Y)
    seed = np.random.RandomState(0).randint(np.iinfo(np.int32).max)
    units = virtual_positions(seed, 0, 0, 1003, 1003) // 4
    complete = np.flatnonzero(np.bincount(units) == 4)
    Zx = test.x_transformer_.transform(X)
    Zy = test.y_transformer_.transform(Y)
    # Unit sums / sqrt(4): the covariances of one pair, so HSIC of the rows.
    sums = [
        np.array([Z[units == u].sum(axis=0) / 2 for u in complete]) for Z in (Zx, Zy)
    ]
    assert test.resample_unit_ == 4 and len(complete) == 250
    assert test.statistic_ == pytest.approx(_gram_hsic(*sums, False), rel=1e-9)
    assert test.p_value_ == 0.05  # (1 + 0) / 20: strong dependence


@pytest.mark.slow
def test_effect_size_is_the_hsic_of_the_rows_at_any_unit():
    """y = x^2 + N(0, 1): the reported HSIC at n = 20,000 (units of 8 rows
    here) estimates what it estimates at n = 1,000 (units of 1 row), and the
    interval covers it. On unit means it was about 1/64 of it."""
    maps = _maps(D=128)
    fitted = [m.fit(np.linspace(-3, 3, 200)[:, None]) for m in maps]
    maps = [
        RandomFourierSampler(n_components=128, bandwidth=m.bandwidth_, random_state=i)
        for i, m in enumerate(fitted)
    ]

    def draw(rng, n):
        x = rng.normal(size=(n, 1))
        return x, x**2 + rng.normal(size=(n, 1))

    options = {"n_resamples": 99, "statistic": "unbiased"}
    small = [
        HSICTest(*maps, random_state=r, **options).fit(
            *draw(np.random.default_rng(r), 1000)
        )
        for r in range(8)
    ]
    assert {t.resample_unit_ for t in small} == {1}
    reference = np.mean([t.result_.hsic for t in small])
    large = HSICTest(*maps, random_state=0, **options).fit(
        *draw(np.random.default_rng(100), 20000)
    )
    assert large.resample_unit_ > 1
    # The mean of 8 draws at n = 1000 has a relative error of about 4 %, one
    # draw at 20,000 (2500 units) about 3 %: 15 % is over three of theirs.
    for value in (large.statistic_, large.result_.hsic):
        assert value == pytest.approx(reference, rel=0.15)
    low, high = large.result_.confidence_interval(0.999)
    assert low < reference < high
    # The null is on the statistic's scale.
    assert np.median(large.null_distribution_) < 0.05 * large.statistic_


def test_draw_variance_is_the_spread_over_new_features():
    """The standard error adds the HSIC's spread over the random frequencies:
    on fixed data, its estimate from one draw matches the spread of 60 draws;
    the per-column terms it sums add up to the statistic."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 1))
    y = x**2 + rng.normal(size=(400, 1))
    fits = [
        HSICTest(
            RandomFourierSampler(n_components=32, bandwidth=1.0, random_state=s),
            RandomFourierSampler(n_components=32, bandwidth=1.5, random_state=s + 99),
            n_resamples=9,
            random_state=0,
        ).fit(x, y)
        for s in range(60)
    ]
    spread = np.std([t.result_.hsic for t in fits], ddof=1)
    a = fits[0].x_transformer_.transform(x)
    b = fits[0].y_transformer_.transform(y)
    draws = [
        [t.column_draws()] for t in (fits[0].x_transformer_, fits[0].y_transformer_)
    ]
    estimates = np.sqrt(
        [
            draw_variances(
                [t.x_transformer_.transform(x)], [t.y_transformer_.transform(y)], *draws
            )[0]
            for t in fits
        ]
    )
    assert 0.7 < np.mean(estimates) / spread < 1.4
    # The jackknife alone (fixed data, the data's spread) is not this spread.
    parts = HSICParts(feature_gram(a), feature_gram(b), True)
    hsic, jackknife = parts.jackknife()
    assert fits[0].result_.hsic == pytest.approx(hsic)
    assert fits[0].result_.standard_error == pytest.approx(
        np.hypot(jackknife, estimates[0])
    )
    # Quasi-Monte Carlo frequencies are not independent draws: no term.
    qmc = RandomFourierSampler(n_components=8, qmc="sobol").fit(x)
    assert qmc.column_draws() is None
    assert draw_variances([a], [b], [None], [None])[0] == 0.0
    orthogonal = RandomFourierSampler(n_components=9, orthogonal=True).fit(
        np.ones((3, 2))
    )
    assert orthogonal.column_draws().tolist() == [0, 0, 1, 1, 0, 0, 1, 1, 2]


def test_auto_unit_grows_with_the_rows():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(20000, 1)), rng.normal(size=(20000, 1))
    test = HSICTest(*_maps(D=16), n_resamples=99, random_state=0).fit(X, Y)
    # 99 x G^2 <= 2^30 and G <= 4096: units of 8 rows (2500 of them).
    assert test.resample_unit_ == 8
    assert test.n_samples_ == 20000
    assert 0 < test.p_value_ <= 1


def test_hsic_test_returns_the_estimators_result():
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, size=300)
    result = skmmd.hsic_test(x, np.cos(3 * x), random_state=0, n_resamples=99)
    test = HSICTest(random_state=0, n_resamples=99).fit(x, np.cos(3 * x))
    assert isinstance(result, HSICTestResult)
    statistic, pvalue = result
    assert statistic == test.statistic_ and pvalue == test.p_value_ == 0.01
    low, high = result.confidence_interval()
    assert low < result.hsic < high and result.standard_error > 0


def test_tables_use_the_tabular_map():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(6)
    city = rng.choice(["Kyiv", "Lviv", "Odesa"], size=400)
    income = np.where(city == "Kyiv", 2.0, 0.0) + rng.normal(size=400)
    X = pd.DataFrame({"city": city, "age": rng.normal(size=400)})
    test = HSICTest(random_state=0, n_resamples=99).fit(X, income)
    assert isinstance(test.x_transformer_, TabularSampler)
    assert isinstance(test.y_transformer_, RandomFourierSampler)
    assert test.p_value_ == 0.01
    assert list(test.feature_names_in_) == ["city", "age"]
    with pytest.raises(TypeError, match="y has non-numeric columns.*y_transformer"):
        HSICTest(y_transformer=RandomFourierSampler()).fit(income, X)


def test_clone_pickle_and_grid_search():
    rng = np.random.default_rng(7)
    X, Y = _dependent(rng, 100)
    test = HSICTest(*_maps(), n_resamples=19, random_state=0).fit(X, Y)
    again = pickle.loads(pickle.dumps(test))
    assert again.statistic_ == test.statistic_
    assert clone(test).get_params()["n_resamples"] == 19
    grid = GridSearchCV(
        HSICTest(n_resamples=19, random_state=0),
        {"statistic": ["biased", "unbiased"]},
        scoring=lambda est, X, y: -est.fit(X, y).p_value_,
        cv=2,
    )
    assert grid.fit(X, Y.ravel()).best_params_["statistic"] in ("biased", "unbiased")


@pytest.mark.parametrize(
    "X, y, error, match",
    [
        (
            np.ones((10, 2)) * np.arange(10)[:, None],
            np.arange(9.0),
            ValueError,
            "paired row by row; got 10 rows in X and 9 in y",
        ),
        (np.arange(10.0)[:, None], np.full(10, 3.0), ValueError, "y is constant"),
        (np.ones((10, 1)), np.arange(10.0), ValueError, "X is constant"),
        (
            np.arange(4.0)[:, None],
            np.arange(4.0),
            ValueError,
            "at least 5 pairs .* n_samples = 4",
        ),
        (
            np.where(np.arange(10) == 3, np.nan, np.arange(10.0))[:, None],
            np.arange(10.0),
            ValueError,
            "Input X contains NaN",
        ),
        (
            np.arange(10.0)[:, None],
            np.where(np.arange(10) == 3, np.inf, 1.0 * np.arange(10)),
            ValueError,
            "Input y contains infinity",
        ),
        (np.arange(10.0)[:, None], None, ValueError, "requires y"),
    ],
)
def test_bad_input_names_it(X, y, error, match):
    with pytest.raises(error, match=match):
        HSICTest(n_resamples=9).fit(X, y)


def test_resample_unit_leaving_too_few_units():
    X = np.arange(40.0)[:, None]
    with pytest.raises(ValueError, match="resample_unit=10 pairs; got 4 from 40"):
        HSICTest(resample_unit=10, n_resamples=9).fit(X, X[::-1])


def test_partial_fit_over_chunks_equals_fit():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(9000, 2))
    Y = X[:, :1] * rng.normal(size=(9000, 1))  # dependent, uncorrelated

    def make(prefit):
        maps = [
            RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=s)
            for s in (0, 1)
        ]
        if prefit:
            maps = [maps[0].fit(X[:1]), maps[1].fit(Y[:1])]
        return HSICTest(*maps, n_resamples=99, random_state=0)

    ref = make(False).fit(X, Y)
    test = make(True)
    cuts = np.sort(rng.choice(np.arange(1, 9000), 6, replace=False))
    for x, y in zip(np.split(X, cuts), np.split(Y, cuts)):
        test.partial_fit(x, y)
    assert test.n_train_ == 0 and test.resample_unit_ == ref.resample_unit_ == 4
    assert test.statistic_ == pytest.approx(ref.statistic_, rel=1e-10)
    np.testing.assert_allclose(
        test.null_distribution_, ref.null_distribution_, rtol=1e-10
    )
    assert test.p_value_ == ref.p_value_ == 0.01
    # A bad chunk is rejected, naming the pairs so far, and changes nothing.
    with pytest.raises(ValueError, match="after 9000 pairs .*paired row by row"):
        test.partial_fit(X[:5], Y[:4])
    assert test.n_samples_ == 9000 and test.statistic_ == pytest.approx(ref.statistic_)


def test_partial_fit_holds_out_the_chunk_its_maps_are_fit_on():
    rng = np.random.default_rng(9)
    X, Y = _dependent(rng, 600)
    test = HSICTest(n_resamples=49, random_state=0)
    test.partial_fit(X[:200], Y[:200])
    assert test.n_train_ == 200
    with pytest.raises(ValueError, match="at least 5 complete units"):
        test.statistic_
    test.partial_fit(X[200:], Y[200:])
    assert test.n_samples_ == 400 and test.p_value_ == 0.02


def _gaussian_gram(V):
    """The Gaussian kernel matrix with the median distance (n <= 1000, so
    every pair enters the median) as bandwidth, and that bandwidth."""
    from scipy.spatial.distance import pdist, squareform

    distances = pdist(V)
    bandwidth = np.median(distances)
    return np.exp(-(squareform(distances) ** 2) / (2 * bandwidth**2)), bandwidth


@pytest.mark.parametrize("statistic", ["biased", "unbiased"])
def test_exact_kernels_give_the_textbook_hsic(statistic):
    """x_transformer=None, y_transformer=None: Gretton et al.'s quadratic HSIC
    with the Gaussian kernel at the median bandwidth of each variable."""
    rng = np.random.default_rng(3)
    X, Y = _dependent(rng, 150)
    test = HSICTest(None, None, statistic=statistic, n_resamples=49, random_state=0)
    test.fit(X, Y)
    (K, bx), (L, by) = _gaussian_gram(X), _gaussian_gram(Y)
    assert test.x_bandwidth_ == pytest.approx(bx) and test.y_bandwidth_ == by
    assert test.x_transformer_ is None and test.resample_unit_ == 1
    # _gram_hsic forms Z Z^T: the Cholesky factors of the Grams are features
    # of the exact kernels.
    Zx = np.linalg.cholesky(K + 1e-10 * np.eye(150))
    Zy = np.linalg.cholesky(L + 1e-10 * np.eye(150))
    expected = _gram_hsic(Zx, Zy, statistic == "unbiased")
    assert test.statistic_ == pytest.approx(expected, rel=1e-6)
    assert test.p_value_ == 0.02  # 1 / (49 + 1): dependence this strong
    expected = (1 + np.sum(test.null_distribution_ >= test.statistic_ - 1e-12)) / 50
    assert test.p_value_ == pytest.approx(expected)


def test_random_features_estimate_the_exact_hsic_without_bias():
    """With the exact test's bandwidths, HSIC of D random Fourier features is
    unbiased for the exact HSIC (linear in each Gram, the two maps drawn
    independently) with a relative spread of about 2.7 / sqrt(D) (measured
    here): the mean of 10 draws at D = 1024 is within 0.1 (about 4 standard
    errors)."""
    rng = np.random.default_rng(0)
    X, Y = _dependent(rng, 300)
    exact = HSICTest(None, None, n_resamples=9, random_state=0).fit(X, Y)
    draws = [
        HSICTest(
            RandomFourierSampler(
                n_components=1024, bandwidth=exact.x_bandwidth_, random_state=s
            ),
            RandomFourierSampler(
                n_components=1024, bandwidth=exact.y_bandwidth_, random_state=99 - s
            ),
            n_resamples=9,
            random_state=0,
        )
        .fit(X, Y)
        .statistic_
        for s in range(10)
    ]
    assert np.mean(draws) == pytest.approx(exact.statistic_, rel=0.1)


def test_exact_kernel_beside_a_feature_map():
    """One variable exact, the other a table through TabularSampler."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    x = rng.normal(size=200)
    y = pd.DataFrame({"sign": np.where(x + 0.5 * rng.normal(size=200) > 0, "+", "-")})
    test = HSICTest(None, "auto", n_resamples=99, random_state=0).fit(x, y)
    assert isinstance(test.y_transformer_, TabularSampler)
    assert test.y_bandwidth_ is None and test.x_bandwidth_ > 0
    assert test.p_value_ == 0.01
    with pytest.raises(TypeError, match="y_transformer=None .* maps numbers only"):
        HSICTest(None, None, n_resamples=9).fit(x, y)


@pytest.mark.parametrize(
    "params, n, match",
    [
        ({}, 4097, "takes at most 4096 pairs; got n_samples = 4097"),
        ({"resample_unit": 8}, 100, "resample_unit must be 'auto' or 1; got 8"),
    ],
)
def test_exact_test_limits(params, n, match):
    x = np.random.default_rng(0).normal(size=(n, 1))
    with pytest.raises(ValueError, match=match):
        HSICTest(None, n_resamples=9, **params).fit(x, x**2)
    # Like scikit-learn's estimators, partial_fit exists only where it applies.
    with pytest.raises(AttributeError, match="has no attribute 'partial_fit'"):
        HSICTest(y_transformer=None).partial_fit(x, x**2)
    assert hasattr(HSICTest(), "partial_fit")


def test_hsic_test_screens_a_table_against_its_target_column():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(6)
    n = 400
    table = pd.DataFrame(
        {
            "age": rng.uniform(20, 70, n),
            "noise": rng.normal(size=n),
            "city": rng.choice(["Kyiv", "Lviv", "Odesa"], n),
        }
    )
    shift = table.city.map({"Kyiv": 0.0, "Lviv": 1.0, "Odesa": -1.0})
    table["spend"] = np.abs(table.age - 45) / 10 + shift + 0.5 * rng.normal(size=n)
    result = skmmd.hsic_test(table, "spend", explain_columns=True, random_state=0)
    report = result.column_report
    assert sorted(report.column) == ["age", "city", "noise"]  # not the target
    flagged = set(report.column[report.adjusted_p_value <= 0.05])
    assert flagged == {"age", "city"}
    assert result.pvalue <= 0.05
    # The same as the estimator on the split table.
    test = HSICTest(random_state=0).fit(table.drop(columns="spend"), table[["spend"]])
    assert result.statistic == test.statistic_
    assert skmmd.hsic_test(table, "spend", random_state=0).column_report is None
    with pytest.raises(ValueError, match="y='price' names no column of X"):
        skmmd.hsic_test(table, "price")
    only_age = skmmd.hsic_test(table, "spend", explain_columns=["age"], random_state=0)
    assert list(only_age.column_report.column) == ["age"]
    with pytest.raises(TypeError, match="columns"):  # the groups: explain_columns
        skmmd.hsic_test(table, "spend", columns=["age"])
