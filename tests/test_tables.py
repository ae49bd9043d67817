"""Tables: TabularSampler, inputs passed through to transformers, the result
type with its interval and relevance test, and the per-column report."""

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import HashingVectorizer

import skmmd
from skmmd import (
    AggregatedMMDTest,
    MMDTest,
    MMDTestResult,
    TabularSampler,
)
from skmmd._testing import _multiple, _streaming
from skmmd._utils import _budgets
from skmmd.mmd import mmd2_features
from skmmd.two_sample import _resampled, _results


def mixed_table(rng, n, shift=0.0, missing=0.15):
    table = pd.DataFrame(
        {
            "income": rng.lognormal(10, 0.5, n) * (1 + shift),
            "age": rng.integers(18, 90, n).astype(float),
            "region": pd.Categorical(rng.choice(["north", "south", "east"], n)),
            "plan": rng.choice(["basic", "plus", "pro"], n),
            "active": rng.random(n) < 0.7,
        }
    )
    table.loc[rng.random(n) < missing, "income"] = np.nan
    table.loc[rng.random(n) < missing / 2, "plan"] = None
    return table


# TabularSampler ------------------------------------------------------------


def test_tabular_sampler_kernel_is_the_documented_sum():
    # Categorical part exact: (1/p) * #matching columns (+ the numeric block).
    df = pd.DataFrame(
        {"a": ["x", "y", "x", None], "b": pd.Categorical(["u", "u", "v", "v"])}
    )
    Z = TabularSampler(random_state=0).fit_transform(df)
    matches = (df.values[:, None, :] == df.values[None, :, :]).sum(axis=2)
    matches[3, 3] = 2  # None matches None: missing is a category of its own
    np.testing.assert_allclose(Z @ Z.T, matches / 2, atol=1e-12)


def test_tabular_sampler_missing_indicator_and_unseen_categories():
    df = pd.DataFrame({"num": [1.0, np.nan, 3.0, 4.0], "cat": ["a", "b", "a", "b"]})
    sampler = TabularSampler(n_components=64, random_state=0).fit(df)
    assert sampler.numeric_columns_ == ["num"]
    assert sampler.categorical_columns_ == ["cat"]
    Z = sampler.transform(df)
    # k(x, x) = (1 + [missing] + 1) / 2 with cos/sin features of unit norm.
    np.testing.assert_allclose((Z**2).sum(axis=1), [1, 1.5, 1, 1], atol=1e-12)
    new = sampler.transform(pd.DataFrame({"num": [1.0], "cat": ["never seen"]}))
    names = sampler.get_feature_names_out()
    assert np.all(new[0, np.char.startswith(names.astype(str), "categorical")] == 0)


def test_tabular_sampler_on_arrays_and_explicit_categorical():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    Z = TabularSampler(n_components=32, random_state=0).fit_transform(X)
    assert Z.shape == (50, 32 + 3)
    sampler = TabularSampler(categorical=[2], random_state=0).fit(X.round())
    assert sampler.categorical_columns_ == [2]
    with pytest.raises(ValueError, match=r"categorical names columns \[7\]"):
        TabularSampler(categorical=[7]).fit(X)


# Inputs ------------------------------------------------------------------


def test_dataframes_pass_through_with_feature_names(global_random_seed):
    rng = np.random.default_rng(global_random_seed)
    X, Y = mixed_table(rng, 300), mixed_table(rng, 300, shift=0.5, missing=0.4)
    test = MMDTest(TabularSampler(random_state=0), random_state=0).fit(X, Y)
    assert list(test.feature_names_in_) == list(X.columns)
    assert test.p_value_ <= 0.01  # income and its missing rate moved
    # Pooled + labels gives the same test.
    pooled = pd.concat([X, Y], ignore_index=True)
    labels = np.repeat(["ref", "new"], 300)
    again = MMDTest(TabularSampler(random_state=0), random_state=0)
    again.fit(pooled, pd.Series(labels))
    # classes are sorted: "new" is the first sample, so MMD^2 is the same.
    assert again.statistic_ == pytest.approx(test.statistic_, rel=1e-10)
    assert np.all(np.isfinite(test.witness(Y.iloc[:5])))
    agg = AggregatedMMDTest([TabularSampler(random_state=0)], random_state=0)
    assert agg.fit(X, Y).p_value_ <= 0.01


def test_the_make_column_transformer_of_the_issue_works():
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    X, Y = mixed_table(rng, 100, missing=0), mixed_table(rng, 100, missing=0)
    mapping = make_column_transformer(
        (skmmd.RandomFourierSampler(random_state=0), ["income", "age"]),
        (OneHotEncoder(), ["region", "plan", "active"]),
    )
    test = MMDTest(mapping, n_resamples=99, random_state=0).fit(X, Y)
    assert 0 < test.p_value_ <= 1


def test_sequences_of_objects_pass_through():
    rng = np.random.default_rng(0)
    words = np.array(["apple", "pear", "plum", "fig", "kiwi"])
    X = [" ".join(rng.choice(words[:3], 4)) for _ in range(60)]
    Y = [" ".join(rng.choice(words[2:], 4)) for _ in range(60)]
    test = MMDTest(HashingVectorizer(n_features=64), random_state=0).fit(X, Y)
    assert test.p_value_ == pytest.approx(1 / 1000)
    assert not hasattr(test, "n_features_in_")


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda Y: Y[["age", "income", "region", "plan", "active"]], "same order"),
        (lambda Y: Y.rename(columns={"age": "years"}), r"only in X: \['age'\]"),
        (lambda Y: Y.assign(age=Y.age.astype(str)), "'age' .*float64 in X"),
        (lambda Y: Y.iloc[:0], "at least 2 points; got 80 in X and 0 in Y"),
        (lambda Y: Y.iloc[:, :0], "same columns"),
    ],
)
def test_mismatched_tables_raise_naming_columns(change, match):
    rng = np.random.default_rng(0)
    X, Y = mixed_table(rng, 80), mixed_table(rng, 80)
    with pytest.raises(ValueError, match=match):
        MMDTest(TabularSampler()).fit(X, change(Y))
    with pytest.raises(ValueError, match="no columns"):
        MMDTest(TabularSampler()).fit(X.iloc[:, :0], Y.iloc[:, :0])


@pytest.mark.parametrize(
    "bad",
    ["all_nan", "constant_in_one", "category_in_one", "int_vs_float", "cat_vs_str"],
)
def test_bad_tables_give_a_finite_result(bad):
    rng = np.random.default_rng(0)
    X, Y = mixed_table(rng, 120), mixed_table(rng, 120)
    if bad == "all_nan":
        X["income"], Y["income"] = np.nan, np.nan
    elif bad == "constant_in_one":
        Y["age"] = 40.0
    elif bad == "category_in_one":
        Y.loc[:40, "plan"] = "enterprise"
    elif bad == "int_vs_float":
        X["age"] = X["age"].astype(int)
    else:
        Y["region"] = Y["region"].astype(str)
    result = skmmd.mmd_test(X, Y, n_resamples=199, random_state=0)
    assert np.isfinite(result.statistic) and np.isfinite(result.standard_error)
    if bad in ("constant_in_one", "category_in_one"):
        assert result.pvalue <= 0.01  # real differences are found
    if bad == "all_nan":
        assert result.pvalue > 0.01


def test_exact_callable_kernel_returning_nan_raises():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(20, 2)), rng.normal(size=(20, 2))

    def kernel(A, B):
        return np.full((len(A), len(B)), np.nan)

    with pytest.raises(ValueError, match="kernel returned non-finite values"):
        MMDTest(None, kernel=kernel).fit(X, Y)


def test_a_large_mixed_table_runs_without_preprocessing():
    # The issue's 10^5 rows x 20 columns, numeric, category, string, boolean
    # and missing values: no preprocessing by the user.
    rng = np.random.default_rng(0)
    n = 100_000
    columns = {}
    for j in range(8):
        values = rng.normal(size=n)
        values[rng.random(n) < 0.05] = np.nan
        columns[f"num{j}"] = values
    for j in range(4):
        columns[f"cat{j}"] = pd.Categorical(rng.choice(list("abcdef"), n))
    for j in range(4):
        labels = rng.choice(["red", "green", "blue", None], n).astype(object)
        columns[f"str{j}"] = labels
    for j in range(4):
        columns[f"flag{j}"] = rng.random(n) < 0.5
    table = pd.DataFrame(columns)
    X, Y = table.iloc[: n // 2], table.iloc[n // 2 :]
    # mmd_test fits MMDTest(TabularSampler()) (test_mmd_test_is_the_estimator).
    statistic, pvalue = skmmd.mmd_test(X, Y, n_resamples=99, random_state=0)
    assert np.isfinite(statistic) and pvalue > 0.01


# Results -------------------------------------------------------------------


def test_mmd_test_is_the_estimator():
    rng = np.random.default_rng(0)
    X, Y = mixed_table(rng, 150), mixed_table(rng, 150, shift=0.3)
    result = skmmd.mmd_test(X, Y, random_state=3)
    statistic, pvalue = result
    test = MMDTest(TabularSampler(random_state=3), random_state=3).fit(X, Y)
    assert statistic == test.statistic_ and pvalue == test.p_value_
    np.testing.assert_array_equal(result.null_distribution, test.null_distribution_)
    assert isinstance(test.result_, MMDTestResult)
    assert result.to_dict(delta=0.01)["relevance"]["delta"] == 0.01
    agg = skmmd.mmd_test(X, Y, transformer=[TabularSampler(random_state=0)] * 2)
    assert agg.confidence_interval().low.shape == (2,)


def test_jackknife_equals_leave_one_unit_out():
    rng = np.random.default_rng(0)
    m, n, unit = 23, 31, 3
    X, Y = rng.normal(size=(m, 2)), rng.normal(size=(n, 2)) + 0.3
    rff = skmmd.RandomFourierSampler(n_components=16, random_state=0).fit(X)
    stream = _streaming.Stream([rff], [16], unit, seed=5).add((X, Y), unit)
    sums = stream.sums()[0]
    mmd2, se = _results.effect_size(sums, m, n)
    assert mmd2 == pytest.approx(mmd2_features(rff.transform(X), rff.transform(Y)))
    # Brute force: recompute the statistic without each unit's rows.
    for s, Z in ((0, rff.transform(X)), (1, rff.transform(Y))):
        units = _streaming.virtual_positions(5, s, 0, len(Z), len(Z)) // unit
        full = units < (len(Z) // unit)
        thetas = []
        for g in np.unique(units[full]):
            keep = units != g
            ZX, ZY = (
                (Z[keep], rff.transform(Y)) if s == 0 else (rff.transform(X), Z[keep])
            )
            thetas.append(mmd2_features(ZX, ZY))
        thetas = np.array(thetas)
        G = thetas.size
        if s == 0:
            variance = (G - 1) / G * np.sum((thetas - thetas.mean()) ** 2)
        else:
            variance += (G - 1) / G * np.sum((thetas - thetas.mean()) ** 2)
    assert se == pytest.approx(np.sqrt(variance), rel=1e-8)


def test_exact_test_has_an_interval_too():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 1.0
    result = MMDTest(None, random_state=0).fit(X, Y).result_
    low, high = result.confidence_interval()
    assert 0 < low < result.mmd2 < high
    assert result.mmd2 == pytest.approx(result.statistic)


def test_interval_covers_a_closed_form_truth():
    # Categorical shares under the one-hot map: MMD^2 = sum_v (p_v - q_v)^2.
    # A small seeded version of the benchmark's coverage experiment (there:
    # >= 94 % over 500 repetitions at N = 2000); here 60 repetitions at N = 800
    # must cover at least 50 (P(fail) < 1e-3 at a true coverage of 0.95).
    rng = np.random.default_rng(0)
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.42, 0.3, 0.28])
    truth = ((p - q) ** 2).sum()
    covered, rejected = 0, 0
    for _ in range(60):
        X = pd.DataFrame({"c": rng.choice(list("abc"), 800, p=p)})
        Y = pd.DataFrame({"c": rng.choice(list("abc"), 800, p=q)})
        result = skmmd.mmd_test(X, Y, n_resamples=1, random_state=0)
        low, high = result.confidence_interval()
        covered += low <= truth <= high
        rejected += result.relevance_test(truth).pvalue <= 0.05
    assert covered >= 50
    assert rejected <= 9  # level 0.05 at MMD^2 = delta: P(>= 10 of 60) < 1e-3


def test_relevance_test_direction_and_errors():
    result = MMDTestResult(
        statistic=0.02,
        pvalue=0.001,
        null_distribution=np.zeros(3),
        alpha=0.05,
        mmd2=0.02,
        standard_error=0.005,
        n_samples_x=10,
        n_samples_y=10,
    )
    assert result.relevance_test(0.001).pvalue < 0.01
    assert result.relevance_test(0.05).pvalue > 0.99
    # pvalue <= alpha exactly when delta is below the 1 - 2 alpha lower limit.
    low = result.confidence_interval(0.9).low
    assert result.relevance_test(low * 0.999).pvalue < 0.05
    assert result.relevance_test(low * 1.001).pvalue > 0.05
    with pytest.raises(ValueError, match="delta must be a positive number"):
        result.relevance_test(0)
    with pytest.raises(ValueError, match="confidence_level must be in"):
        result.confidence_interval(1.0)


def test_type_one_error_on_mixed_tables_with_missing_values():
    # Small seeded version of benchmarks/bench_tables.py (1000 repetitions):
    # 80 null repetitions at alpha = 0.1; rejections ~ Binomial(80, 0.1),
    # P(outside [1, 17]) < 2e-3.
    rng = np.random.default_rng(1)
    rejections = 0
    for r in range(80):
        X, Y = mixed_table(rng, 40), mixed_table(rng, 40)
        test = MMDTest(
            TabularSampler(n_components=32, random_state=r),
            n_resamples=39,
            alpha=0.1,
            random_state=r,
        )
        rejections += test.fit(X, Y).reject_
    assert 1 <= rejections <= 17


# Per-column report -----------------------------------------------------------


def test_maxt_adjusted_p_values_by_brute_force():
    """Westfall & Young's step-down maxT from its definition: column r (by
    decreasing observed t) gets the largest, over the columns ranked at or
    above it, share of rows whose maximum over the columns ranked at or
    below those reaches their observed t."""
    rng = np.random.default_rng(0)
    T = rng.normal(size=(50, 5))
    T[0] += [2.0, 0.0, 0.5, 0.0, 1.0]
    log_p = _multiple.fitted_log_p_values(T)
    t = -log_p
    order = np.argsort(-t[0])
    expected = np.empty(5)
    for r, k in enumerate(order):
        shares = [
            (t[:, order[s:]].max(axis=1) >= t[0, order[s]]).mean() for s in range(r + 1)
        ]
        expected[k] = max(shares)
    np.testing.assert_allclose(_multiple.maxt_adjusted_p_values(log_p), expected)


def test_explain_ranks_the_shifted_column_first(global_random_seed):
    rng = np.random.default_rng(global_random_seed)
    X, Y = mixed_table(rng, 400), mixed_table(rng, 400)
    Y["age"] += 15
    test = MMDTest(TabularSampler(random_state=0), random_state=0).fit(X, Y)
    report = test.explain(X, Y)
    assert report["column"].iloc[0] == "age"
    assert report["adjusted_p_value"].iloc[0] <= 0.01
    assert np.all(report["adjusted_p_value"] >= report["p_value"])
    assert np.all(report["mmd2_low"] <= report["mmd2_high"])
    grouped = test.explain(X, Y, columns={"numbers": ["income", "age"], "plan": "plan"})
    assert list(grouped["column"]) == ["numbers", "plan"]
    points = test.witness_points(X, Y, n_points=3)
    assert list(points["sample"]) == ["X"] * 3 + ["Y"] * 3
    # Y's rows where Y is much denser than X are old ages.
    assert points["age"].iloc[3:].min() > X["age"].median()
    with pytest.raises(ValueError, match="not columns of X"):
        test.explain(X, Y, columns=["height"])


def test_explain_uses_one_calibration_loop(monkeypatch):
    calls = []
    original = _resampled.resampled_statistics

    def counting(sums, *args, **kwargs):
        calls.append(len(sums) if isinstance(sums, list) else 1)
        return original(sums, *args, **kwargs)

    monkeypatch.setattr(_resampled, "resampled_statistics", counting)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(100, 4)), rng.normal(size=(100, 4))
    test = MMDTest(skmmd.RandomFourierSampler(n_components=16, random_state=0))
    calls.clear()
    test.fit(X, Y).explain(X, Y)
    assert calls == [4]  # all four columns at once; the test's own not read
    test.p_value_  # noqa: B018 - the first read resamples the whole table
    assert calls == [4, 1]


def test_tabular_grouped_sums_match_the_features(monkeypatch):
    """The fused per-unit sums (the pipeline's path) equal the sums of
    ``transform``'s rows, in batches of any size, added into ``out``."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "age": rng.normal(40, 10, size=300),
            "city": rng.choice(["Oslo", "Lima", "Pune"], size=300),
            "income": rng.lognormal(size=300),
        }
    )
    frame.loc[[4, 9], "age"] = np.nan
    groups = rng.integers(0, 23, size=300)
    M = sp.csr_matrix((np.ones(300), (groups, np.arange(300))), shape=(23, 300))
    for table in (frame, rng.normal(size=(300, 2))):
        sampler = TabularSampler(n_components=32, random_state=0).fit(table)
        Z = sampler.transform(table)
        for entries in (2**22, 7):  # one batch; a few rows per batch
            monkeypatch.setattr(_budgets, "BLOCK_ENTRIES", entries)
            S, q = sampler._grouped_sums(table, groups, 23)
            np.testing.assert_allclose(S, M @ Z, atol=1e-12)
            np.testing.assert_allclose(q, M @ np.sum(Z * Z, axis=1), atol=1e-12)
        out = (np.ones((23, Z.shape[1])), np.ones(23))
        assert sampler._grouped_sums(table, groups, 23, out=out) is out
        np.testing.assert_allclose(out[0], 1 + M @ Z, atol=1e-12)
