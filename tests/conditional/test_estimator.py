"""ConditionalHSICTest and conditional_independence_test
(skmmd/conditional/_estimator.py): the statistic against a direct
computation, chunks against one pass, folds, seeds, level and power on small
seeded problems, maps given by the user, bad input."""

import numpy as np
import pytest

import skmmd
from skmmd import ConditionalHSICTest, ConditionalHSICTestResult, RandomFourierSampler
from skmmd._utils import _budgets
from skmmd.conditional import _ridge
from skmmd.conditional._ridge import RidgeFolds
from tests.helpers.data import conditional_chain


def _test(**params):
    return ConditionalHSICTest(n_resamples=199, random_state=0, **params)


def test_statistic_equals_the_residuals_computed_directly():
    # Ground truth in memory: cross-fitted residuals of the fitted maps'
    # features, weighted by g(z): T = n ||mean(r (x) g (x) s)||^2, same folds.
    rng = np.random.default_rng(0)
    x, y, z = conditional_chain(600, rng)
    test = _test().fit(x, y, Z=z)
    A = test.x_transformer_.transform(x)
    B = test.y_transformer_.transform(y)
    C = test.z_transformer_.transform(z)
    seed = np.random.RandomState(0).randint(np.iinfo(np.int32).max)
    folds = _ridge.fold_labels(seed, np.arange(600), 5)
    F = np.hstack([A, B])
    # Double cross-fitting: x-features on folds at odd cyclic distance; the
    # fits undersmoothed (a tenth of the cross-validated penalty).
    ridge = RidgeFolds(5, split=A.shape[1], shrink=10.0).add(C, F, folds).fit()
    R = ridge.residuals(C, F, folds)
    r, s = R[:, : A.shape[1]], R[:, A.shape[1] :]
    G = test.z_weights_.transform(z)
    expected = 600 * np.sum((np.einsum("ij,im,il->jml", r, G, s) / 600) ** 2)
    assert test.statistic_ == pytest.approx(expected, rel=1e-10)
    unweighted = _test(z_weights=None).fit(x, y, Z=z)
    assert unweighted.statistic_ == pytest.approx(600 * np.sum((r.T @ s / 600) ** 2))
    np.testing.assert_array_equal(test.penalty_, ridge.penalty_)
    assert isinstance(test.result_, ConditionalHSICTestResult)
    assert test.result_.n_samples == 600 and test.n_features_in_ == 1


def test_chunks_give_the_same_statistic_and_p_value(monkeypatch):
    rng = np.random.default_rng(1)
    x, y, z = conditional_chain(900, rng)
    whole = _test(resample_unit=2).fit(x, y, Z=z)
    monkeypatch.setattr(_budgets, "CHUNK_ENTRIES", 97 * 50)
    chunked = _test(resample_unit=2).fit(x, y, Z=z)
    # Chunks only reorder the sums of C'C and C'F; the undersmoothed ridge
    # solve (condition number ~1e3 larger) carries their rounding to ~1e-9.
    assert chunked.statistic_ == pytest.approx(whole.statistic_, rel=1e-7)
    assert chunked.p_value_ == whole.p_value_
    np.testing.assert_allclose(
        chunked.null_distribution_, whole.null_distribution_, rtol=1e-7
    )


def test_folds_are_balanced_and_independent_of_chunks():
    whole = _ridge.fold_labels(7, np.arange(10_000), 5)
    parts = np.concatenate(
        [
            _ridge.fold_labels(7, np.arange(lo, lo + 333), 5)
            for lo in range(0, 9990, 333)
        ]
        + [_ridge.fold_labels(7, np.arange(9990, 10_000), 5)]
    )
    np.testing.assert_array_equal(whole, parts)
    for stop in (10, 13, 4096, 8192):  # every fold once in each run of 5
        counts = np.bincount(whole[:stop], minlength=5)
        assert counts.max() - counts.min() <= 1


def test_same_seed_same_p_value_and_batches_do_not_matter():
    rng = np.random.default_rng(2)
    x, y, z = conditional_chain(500, rng, dependent=0.2)
    a = _test().fit(x, y, Z=z)
    b = _test(batch=7).fit(x, y, Z=z)
    # The same signs; BLAS may round a product's rows by its shape.
    assert a.p_value_ == b.p_value_
    np.testing.assert_allclose(a.null_distribution_, b.null_distribution_, rtol=1e-12)
    c = _test().set_params(random_state=1).fit(x, y, Z=z)
    assert not np.array_equal(a.null_distribution_, c.null_distribution_)


def test_function_returns_the_estimators_result():
    rng = np.random.default_rng(3)
    x, y, z = conditional_chain(400, rng, dependent=0.5)
    result = skmmd.conditional_independence_test(
        x[:, 0], y[:, 0], z[:, 0], n_resamples=199, random_state=0
    )
    test = _test().fit(x, y, Z=z)
    assert (result.statistic, result.pvalue) == (test.statistic_, test.p_value_)
    low, high = result.confidence_interval()
    assert low <= result.conditional_hsic <= high


def test_without_z_it_detects_the_dependence_through_z():
    rng = np.random.default_rng(4)
    x, y, z = conditional_chain(500, rng)
    assert _test().fit(x, y).p_value_ == 0.005  # 1 / (B + 1)
    assert _test().fit(x, y, Z=z).p_value_ > 0.05


@pytest.mark.slow
def test_level_on_a_heteroscedastic_non_linear_null():
    # 40 seeded nulls at n = 300: the rejection count at alpha = 0.05 stays
    # within the binomial(40, 0.05) 99.9 % range (at most 7).
    rejections = 0
    for rep in range(40):
        rng = np.random.default_rng(100 + rep)
        x, y, z = conditional_chain(300, rng)
        test = ConditionalHSICTest(n_resamples=99, random_state=rep)
        rejections += test.fit(x, y, Z=z).reject_
    assert rejections <= 7


@pytest.mark.slow
def test_power_against_a_direct_link():
    rejections = 0
    for rep in range(10):
        rng = np.random.default_rng(200 + rep)
        x, y, z = conditional_chain(600, rng, dependent=0.5)
        rejections += _test().set_params(random_state=rep).fit(x, y, Z=z).reject_
    assert rejections >= 9


def test_maps_may_be_given():
    rng = np.random.default_rng(5)
    x, y, z = conditional_chain(300, rng)
    test = ConditionalHSICTest(
        RandomFourierSampler(n_components=4, random_state=0),
        RandomFourierSampler(n_components=6, random_state=0),
        RandomFourierSampler(n_components=30, random_state=0),
        n_resamples=99,
        random_state=0,
    ).fit(x, y, Z=z)
    assert test.z_transformer_.n_components == 30
    assert test.penalty_.shape == (10,)  # 4 x-features and 6 y-features


@pytest.mark.parametrize(
    "where, bad, match",
    [
        ("x", np.nan, r"X has missing values \(NaN\) in column\(s\) \[0\], in 1 row:"),
        ("y", np.inf, "Input y contains infinity"),
        ("z", np.nan, r"Z has missing values \(NaN\) in column\(s\) \[0\]"),
    ],
)
def test_non_finite_values_name_the_variable(where, bad, match):
    rng = np.random.default_rng(6)
    data = dict(zip("xyz", conditional_chain(100, rng)))
    data[where][7, 0] = bad
    with pytest.raises(ValueError, match=match):
        _test().fit(data["x"], data["y"], Z=data["z"])


def test_bad_shapes_and_constant_columns():
    rng = np.random.default_rng(7)
    x, y, z = conditional_chain(100, rng)
    with pytest.raises(ValueError, match="100 rows in X and 99 in Z"):
        _test().fit(x, y, Z=z[:99])
    with pytest.raises(ValueError, match="100 rows in X and 98 in y"):
        _test().fit(x, y[:98], Z=z)
    with pytest.raises(ValueError, match="a column of Z is constant"):
        _test().fit(x, y, Z=np.column_stack([z, np.ones(100)]))
    with pytest.raises(ValueError, match="Z has 30 columns and only 20 rows"):
        _test().fit(x[:20], y[:20], Z=rng.normal(size=(20, 30)))
    with pytest.raises(ValueError, match="requires y"):
        _test().fit(x, None)


def test_function_spells_its_arguments_as_fit():
    """``conditional_independence_test(X, y, Z)`` as ``fit(X, y, Z)``."""
    from skmmd import conditional_independence_test

    rng = np.random.default_rng(0)
    z = rng.normal(size=300)
    x, y = z + rng.normal(size=300), z + rng.normal(size=300)
    options = {"n_resamples": 99, "random_state": 0}
    by_name = conditional_independence_test(X=x, y=y, Z=z, **options)
    by_position = conditional_independence_test(x, y, z, **options)
    fitted = ConditionalHSICTest(**options).fit(x, y, z)
    assert by_name.pvalue == by_position.pvalue == fitted.p_value_
    with pytest.raises(TypeError, match="X"):
        conditional_independence_test(y=y)
