"""MMDTest and mmd_test (skmmd/two_sample/_mmd.py, _api.py): two samples or
pooled with labels, jobs and batches, the statistic against the mmd
functions, p-value and decision, the classifier and its witness, units, level,
tables and other inputs passed through to the transformer, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.exceptions import DataConversionWarning
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.metrics.pairwise import linear_kernel
from sklearn.model_selection import GridSearchCV, StratifiedKFold, check_cv
from sklearn.preprocessing import FunctionTransformer
from threadpoolctl import threadpool_limits

import skmmd
from skmmd import (
    AggregatedMMDTest,
    MMDTest,
    MMDTestResult,
    RandomFourierSampler,
    TabularSampler,
)
from skmmd.datasets import make_blobs_two_sample
from skmmd.kernels import median_bandwidth
from skmmd.statistics import mmd2_exact, mmd2_features
from skmmd.two_sample import _resampled
from tests.helpers.data import mixed_table


def _rff(n_components=128, **params):
    return RandomFourierSampler(n_components=n_components, random_state=0, **params)


TESTS = {
    "exact": lambda **p: MMDTest(None, **p),
    "rff": lambda **p: MMDTest(_rff(), **p),
}


# sklearn's estimator checks and parameter validation run over MMDTest
# instances in tests/test_common.py; none is expected to fail. MMDTest is a
# binary classifier (estimator_type "classifier", multi_class=False), so the
# classifier checks run too, with two classes.


def _fitted_attrs(test):
    return (test.statistic_, test.p_value_, test.threshold_, test.null_distribution_)


def _assert_same(a, b):
    assert a[:3] == b[:3]
    np.testing.assert_array_equal(a[3], b[3])


@pytest.mark.parametrize("kind", list(TESTS))
@pytest.mark.parametrize("calibration", ["permutation", "bootstrap"])
def test_two_samples_equal_pooled_with_labels(rng, kind, calibration):
    X, Y = rng.normal(size=(40, 2)), rng.normal(size=(55, 2)) + 0.2
    pooled = np.vstack([X, Y])
    labels = np.array(["p"] * 40 + ["q"] * 55)
    make = TESTS[kind]
    ref = make(calibration=calibration, random_state=0).fit(X, Y)
    test = make(calibration=calibration, random_state=0).fit(pooled, labels)
    _assert_same(_fitted_attrs(test), _fitted_attrs(ref))
    assert list(test.classes_) == ["p", "q"]
    # Interleaved rows: the samples are the rows of each class in their order.
    order = rng.permutation(95)
    test = make(calibration=calibration, random_state=0).fit(
        pooled[order], labels[order]
    )
    X2, Y2 = pooled[order][labels[order] == "p"], pooled[order][labels[order] == "q"]
    ref2 = make(calibration=calibration, random_state=0).fit(X2, Y2)
    _assert_same(_fitted_attrs(test), _fitted_attrs(ref2))
    # fit(X, Y): the labels of predict are 0 (X) and 1 (Y).
    np.testing.assert_array_equal(ref.classes_, [0, 1])
    assert (ref.n_samples_x_, ref.n_samples_y_) == (40, 55)


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(TESTS))
@pytest.mark.parametrize("calibration", ["permutation", "bootstrap"])
def test_n_jobs_and_batch_do_not_change_results(rng, kind, calibration):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(33, 2))
    make = TESTS[kind]
    # B = 300 spans two chunks of 256 resamples (batch=1 pads every resample
    # to a chunk, so it is also the slowest setting).
    ref = _fitted_attrs(
        make(calibration=calibration, n_resamples=300, random_state=1).fit(X, Y)
    )
    for params in [
        {"n_jobs": 2},
        {"batch": 1},
        {"batch": 100, "n_jobs": 2},
        {"batch": 300},
    ]:
        test = make(calibration=calibration, n_resamples=300, random_state=1, **params)
        test.fit(X, Y)
        _assert_same(_fitted_attrs(test), ref)


@pytest.mark.parametrize("statistic", ["unbiased", "biased"])
def test_statistic_matches_mmd_functions(rng, statistic):
    X, Y = rng.normal(size=(30, 3)), rng.normal(size=(20, 3))
    exact = MMDTest(None, statistic=statistic, n_resamples=9).fit(X, Y)
    assert exact.bandwidth_ == median_bandwidth(np.vstack([X, Y]))
    assert exact.statistic_ == pytest.approx(
        mmd2_exact(X, Y, bandwidth=exact.bandwidth_, statistic=statistic), abs=1e-12
    )
    sampler = _rff()
    rff = MMDTest(sampler, statistic=statistic, n_resamples=9).fit(X, Y)
    assert not hasattr(sampler, "random_weights_")  # the user's object is untouched
    t = rff.transformer_
    assert rff.statistic_ == pytest.approx(
        mmd2_features(t.transform(X), t.transform(Y), statistic=statistic), abs=1e-12
    )
    linear = MMDTest(
        None, kernel=linear_kernel, statistic=statistic, n_resamples=9
    ).fit(X, Y)
    identity = MMDTest(FunctionTransformer(), statistic=statistic, n_resamples=9)
    assert identity.fit(X, Y).statistic_ == pytest.approx(linear.statistic_, abs=1e-10)


def test_p_value_threshold_and_decision(rng):
    X, Y = rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + [1.5, 0.0]
    test = MMDTest(_rff(), n_resamples=199, random_state=0).fit(X, Y)
    assert test.p_value_ == 1 / 200 and test.reject_
    assert test.statistic_ > test.threshold_
    null = MMDTest(_rff(), n_resamples=199, random_state=0).fit(X, X[::-1] + 0)
    counted = (1 + np.sum(null.null_distribution_ >= null.statistic_)) / 200
    assert null.p_value_ == pytest.approx(counted)
    assert null.reject_ == (null.statistic_ > null.threshold_)
    # alpha (B + 1) < 1: no p-value can reach alpha, nothing is rejected.
    tiny = MMDTest(_rff(), n_resamples=9, alpha=0.05, random_state=0).fit(X, Y)
    assert tiny.threshold_ == np.inf and not tiny.reject_ and tiny.p_value_ == 0.1


@pytest.mark.parametrize("kind", list(TESTS))
@pytest.mark.parametrize("statistic", ["unbiased", "biased"])
@pytest.mark.parametrize("calibration", ["permutation", "bootstrap"])
def test_constant_data_never_nan(kind, statistic, calibration):
    X = np.ones((10, 2))
    test = TESTS[kind](statistic=statistic, calibration=calibration, n_resamples=49)
    test.fit(X, X.copy())
    assert test.p_value_ == 1.0 and not test.reject_
    assert np.isfinite(test.statistic_) and np.all(np.isfinite(test.null_distribution_))


@pytest.mark.parametrize("kind", list(TESTS))
def test_witness_shows_where_samples_differ(rng, kind):
    X, Y = rng.normal(-2.0, size=(100, 1)), rng.normal(2.0, size=(100, 1))
    test = TESTS[kind](n_resamples=9).fit(X, Y)
    left, right = test.witness([[-2.0], [2.0]])
    assert left > 0.1 > -0.1 > right


def test_float32_and_sparse_inputs(rng):
    X, Y = rng.normal(size=(30, 4)), rng.normal(size=(30, 4))
    X[X < 0.3] = 0.0
    Y[Y < 0.3] = 0.0
    for make in TESTS.values():
        ref = make(random_state=0, n_resamples=49).fit(X, Y)
        f32 = make(random_state=0, n_resamples=49).fit(X.astype(np.float32), Y)
        sparse = make(random_state=0, n_resamples=49).fit(
            sp.csr_matrix(X), sp.csr_matrix(Y)
        )
        assert f32.statistic_ == pytest.approx(ref.statistic_, rel=1e-4, abs=1e-6)
        assert sparse.statistic_ == pytest.approx(ref.statistic_, abs=1e-12)
        assert sparse.p_value_ == ref.p_value_


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_grid_search_default_cv_keeps_both_samples_in_every_fold(rng, order):
    # The natural input np.vstack([X, Y]) with sorted labels: MMDTest is a
    # classifier, so the default cv=5 is stratified and every held-out fold
    # holds both samples (plain KFold would hold out X only and score would
    # fail). Blobs with strongly correlated Y blobs (epsilon=20): bandwidth 1
    # wins by a margin of at least 0.08 over seeds 0-99 of the shuffle.
    X, Y = make_blobs_two_sample(1000, epsilon=20.0, random_state=0)
    pooled, labels = np.vstack([X, Y]), np.repeat([0, 1], 1000)
    if order == "shuffled":
        perm = rng.permutation(2000)
        pooled, labels = pooled[perm], labels[perm]
    search = GridSearchCV(
        MMDTest(_rff(256), n_resamples=19), {"transformer__bandwidth": [1.0, 30.0]}
    )
    search.fit(pooled, labels)
    assert search.best_params_ == {"transformer__bandwidth": 1.0}
    assert search.best_estimator_.transformer_.bandwidth_ == 1.0
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.n_splits_ == 5


def test_is_a_binary_classifier():
    assert is_classifier(MMDTest(None)) and is_classifier(MMDTest(_rff()))
    assert isinstance(
        check_cv(5, np.repeat([0, 1], 10), classifier=True), StratifiedKFold
    )
    # The aggregated test has no score, predict or decision_function.
    assert not is_classifier(AggregatedMMDTest())


@pytest.mark.parametrize("kind", list(TESTS))
def test_predict_is_the_witness_classifier(rng, kind):
    def draw(size):
        X = rng.normal(size=(size, 2)) + [-1.5, 0.0]
        return X, rng.normal(size=(size, 2)) + [1.5, 0.0]

    X, Y = draw(150)
    pooled = np.vstack([Y, X])  # Y first: the labels, not the order, name X
    labels = np.array(["y"] * 150 + ["x"] * 150)
    test = TESTS[kind](n_resamples=9, random_state=0).fit(pooled, labels)
    assert list(test.classes_) == ["x", "y"]
    # Points drawn near X's mode go to classes_[0], near Y's to classes_[1].
    X_new, Y_new = draw(200)
    assert np.all(test.predict([[-1.5, 0.0], [-1.5, 0.5]]) == "x")
    assert np.all(test.predict([[1.5, 0.0], [1.5, -0.5]]) == "y")
    accuracy = np.mean(
        np.concatenate([test.predict(X_new) == "x", test.predict(Y_new) == "y"])
    )
    assert accuracy > 0.9  # Bayes accuracy Phi(1.5) = 0.933
    # sklearn's binary convention: decision_function > 0 means classes_[1].
    decision = test.decision_function(np.vstack([X_new, Y_new]))
    np.testing.assert_array_equal(decision, -test.witness(np.vstack([X_new, Y_new])))
    np.testing.assert_array_equal(
        test.predict(np.vstack([X_new, Y_new])), test.classes_[(decision > 0) * 1]
    )
    # fit(X, Y): the same classifier with labels 0 (X) and 1 (Y).
    two = TESTS[kind](n_resamples=9, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(two.classes_, [0, 1])
    np.testing.assert_array_equal(
        two.predict(X_new), np.where(test.predict(X_new) == "x", 0, 1)
    )


@pytest.mark.parametrize("kind", list(TESTS))
def test_column_vector_labels(rng, kind):
    make = TESTS[kind]
    X, Y = rng.normal(size=(30, 3)), rng.normal(size=(25, 3)) + 0.5
    pooled, labels = np.vstack([X, Y]), np.repeat(["a", "b"], [30, 25])
    ref = make(n_resamples=19, random_state=0).fit(pooled, labels)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        test = make(n_resamples=19, random_state=0).fit(pooled, labels[:, None])
    assert (test.statistic_, test.p_value_) == (ref.statistic_, ref.p_value_)
    np.testing.assert_array_equal(test.null_distribution_, ref.null_distribution_)
    np.testing.assert_array_equal(test.classes_, ["a", "b"])
    assert (test.n_samples_x_, test.n_samples_y_) == (30, 25)
    # With one feature a 2-D y is the second sample, even with X's rows and
    # values that look like labels.
    column = (np.arange(30) % 2)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        two = make(n_resamples=19, random_state=0).fit(X[:, :1], column)
    assert (two.n_samples_x_, two.n_samples_y_) == (30, 30)
    ref = make(n_resamples=19, random_state=0).fit(X[:, :1], column.astype(float))
    assert two.statistic_ == ref.statistic_


def test_verbose_reports_progress(rng, capsys):
    X = rng.normal(size=(20, 2))
    test = MMDTest(_rff(), n_resamples=99, batch=10, verbose=1).fit(X, X + 1)
    assert "resamples" not in capsys.readouterr().out  # none drawn yet
    test.p_value_  # noqa: B018 - the first result read runs the resampling
    captured = capsys.readouterr()
    assert "MMDTest: m=20, n=20, permutation with 99 resamples" in captured.out
    assert "Done" in captured.err  # joblib's progress of the batches


def test_resample_unit(rng):
    X, Y = rng.normal(size=(1000, 2)), rng.normal(size=(1300, 2))
    # 19 x 2300 x 64 is far below the budget, but 512 units are as powerful
    # as more: 125 + 163 units of 8 rows (4: 575 units).
    auto = MMDTest(_rff(64), n_resamples=19).fit(X, Y)
    assert auto.resample_unit_ == 8
    test = MMDTest(_rff(64), n_resamples=19, resample_unit=7).fit(X, Y)
    assert test.resample_unit_ == 7 and test.null_distribution_.shape == (19,)
    small = MMDTest(_rff(64), n_resamples=19).fit(X[:200], Y[:300])
    assert small.resample_unit_ == 1  # 500 units
    # Budget of 2**34 (1.7e10) multiply-adds: at N = 1e6 points, D = 1024 and
    # B = 999 (B N D = 1e12) at most 16794 units; at most 512 for power: the
    # smallest power of two >= 1953.1.
    big = MMDTest(_rff(1024), n_resamples=999)
    assert big._resolve_unit(500_000, 500_000, 1024) == 2048
    # ... but never fewer than 100 units per sample (a power of two <= 15).
    assert big._resolve_unit(1500, 998_500, 1024) == 8


def _quadratic_features(X):
    return np.hstack([X, X**2])


def test_type_one_error_with_units_seeded():
    # Grouped permutations keep the level exact for any feature map: with
    # B = 19 and alpha = 0.1, P(p <= 0.1) = 2/20 exactly. 400 seeded
    # replications: sd 0.015; 4 sd. (Cheap features keep the test fast.)
    rng = np.random.default_rng(0)
    rejections = 0
    with threadpool_limits(1):
        for rep in range(400):
            X, Y = rng.standard_t(3, size=(40, 2)), rng.standard_t(3, size=(37, 2))
            test = MMDTest(
                FunctionTransformer(_quadratic_features),
                n_resamples=19,
                alpha=0.1,
                resample_unit=4,
                random_state=rep,
            )
            rejections += test.fit(X, Y).reject_
    assert 0.04 <= rejections / 400 <= 0.16


def test_type_one_error_with_units_and_a_sorted_sample():
    # X sorted by its first coordinate, Y in random order, same law: with
    # units of consecutive rows the X units would hold similar points and the
    # level would break; random units keep P(p <= 0.1) = 2/20 exactly.
    rng = np.random.default_rng(1)
    rejections = 0
    with threadpool_limits(1):
        for rep in range(300):
            X, Y = rng.normal(size=(40, 2)), rng.normal(size=(40, 2))
            X = X[np.argsort(X[:, 0])]
            test = MMDTest(
                FunctionTransformer(_quadratic_features),
                n_resamples=19,
                alpha=0.1,
                resample_unit=8,
                random_state=rep,
            )
            rejections += test.fit(X, Y).reject_
    # 300 replications: sd 0.017; 4 sd around 0.1.
    assert 0.03 <= rejections / 300 <= 0.17


def test_power_equals_exact_with_identity_features(rng):
    # Same kernel, same draws: identical p-values (the feature and exact paths
    # compute the same null distribution).
    X, Y = rng.normal(size=(25, 3)), rng.normal(size=(30, 3)) + 0.3
    for calibration in ("permutation", "bootstrap"):
        params = {"calibration": calibration, "n_resamples": 199, "random_state": 3}
        a = MMDTest(FunctionTransformer(), resample_unit=1, **params).fit(X, Y)
        b = MMDTest(None, kernel=linear_kernel, **params).fit(X, Y)
        np.testing.assert_allclose(
            a.null_distribution_, b.null_distribution_, atol=1e-10
        )
        assert a.p_value_ == b.p_value_


BAD_INPUTS = [
    ((np.zeros((5, 2)), None), "requires y to be passed"),
    (
        (np.zeros((0, 2)), np.zeros((5, 2))),
        "X has no rows; each sample needs at least 2",
    ),
    ((np.zeros((5, 2)), np.zeros((0, 2))), "at least 2 points; got 5 in X and 0 in Y"),
    ((np.zeros((1, 2)), np.zeros((5, 2))), "at least 2 points; got 1 in X and 5 in Y"),
    ((np.zeros((5, 2)), np.zeros((1, 2))), "at least 2 points; got 5 in X and 1 in Y"),
    ((np.zeros((6, 2)), np.array([0, 0, 0, 0, 0, 1])), "got 5 in X and 1 in Y"),
    ((np.full((5, 2), np.nan), np.zeros((5, 2))), "Input X contains NaN"),
    ((np.zeros((5, 2)), np.full((5, 2), np.inf)), "Input Y contains infinity"),
    ((np.zeros((5, 2)), np.zeros((5, 3))), "same number of features; got X with 2"),
    (
        (np.zeros((6, 2)), np.array([0, 1, 2, 0, 1, 2])),
        "exactly two classes .* got 3 classes",
    ),
    ((np.zeros((6, 2)), np.zeros(6)), "exactly two classes .* got 1 class:"),
    (
        (np.zeros((6, 2)), np.array([0, 1, 2, 0, 1, 2])),
        "^Only binary classification is supported: the labels y",
    ),
    (
        (np.zeros((6, 2)), np.array([0.5, 1.2, 0.3, 0.5, 1.2, 0.3])),
        "Unknown label type: continuous",
    ),
    ((np.zeros((6, 2)), np.array([0, 1, np.inf] * 2)), "Input y contains infinity"),
    ((np.zeros((6, 2)), np.array([0, 1, 0])), "inconsistent numbers of samples"),
]


@pytest.mark.parametrize("kind", list(TESTS))
@pytest.mark.parametrize("args, match", BAD_INPUTS)
def test_bad_input(kind, args, match):
    with pytest.raises(ValueError, match=match):
        TESTS[kind](n_resamples=9).fit(*args)


@pytest.mark.parametrize(
    "params, match",
    [
        (
            {"n_resamples": 0},
            "'n_resamples' parameter of MMDTest must be a str among {'auto'} or an int",
        ),
        ({"alpha": 0.0}, "'alpha' parameter of MMDTest must be a float in the range"),
        ({"alpha": 1.0}, "'alpha' parameter of MMDTest must be a float in the range"),
        ({"statistic": "linear"}, "'statistic' parameter of MMDTest must be a str"),
        ({"transformer": "rff"}, "'transformer' parameter of MMDTest must be"),
        ({"resample_unit": 11}, "resample_unit=11 exceeds the smaller sample size 10"),
    ],
)
def test_bad_parameters(rng, params, match):
    test = MMDTest(_rff(), n_resamples=9)
    test.set_params(**params)
    with pytest.raises(ValueError, match=match):
        test.fit(rng.normal(size=(10, 2)), rng.normal(size=(12, 2)))


def test_score_and_witness_check_features(rng):
    X = rng.normal(size=(10, 2))
    test = MMDTest(None, n_resamples=9).fit(X, X + 1)
    with pytest.raises(
        ValueError, match="X has 3 features, but MMDTest is expecting 2"
    ):
        test.witness(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="exactly two classes"):
        test.score(X, np.zeros(10))
    assert clone(test).get_params() == test.get_params()


def test_grid_search_candidates_never_resample(rng, monkeypatch):
    # A fit defers the resampling until a result is read: GridSearchCV's
    # candidates, scored by the power criterion, never resample; the selected
    # test, refit, resamples once its p-value is read, as an eager fit would.

    X, Y = rng.normal(size=(150, 2)), rng.normal(size=(150, 2)) * 1.5
    pooled, labels = np.vstack([X, Y]), np.repeat([0, 1], 150)
    eager = MMDTest(_rff(), random_state=0).fit(X, Y).p_value_
    calls = []
    resample = _resampled.resampled_statistics

    def counted(*args, **kwargs):
        calls.append(1)
        return resample(*args, **kwargs)

    monkeypatch.setattr(_resampled, "resampled_statistics", counted)
    grid = GridSearchCV(
        MMDTest(_rff(), random_state=0),
        {"transformer__bandwidth": [0.5, 1.0, 2.0]},
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(pooled, labels)
    assert calls == [] and np.isfinite(grid.best_score_)
    test = MMDTest(_rff(), random_state=0).fit(X, Y)
    assert calls == [] and test.n_samples_x_ == 150  # sums' results at fit
    assert test.p_value_ == eager and calls == [1]
    test.statistic_, test.reject_  # noqa: B018 - read, not recomputed
    assert calls == [1]


def test_partial_fit_after_an_unread_fit_counts_the_new_rows(rng):
    # fit keeps its unit sums for the deferred resampling; partial_fit must
    # drop them, so the results read afterwards are those of all rows.
    X, Y = rng.normal(size=(300, 2)), rng.normal(size=(300, 2))
    fixed = RandomFourierSampler(bandwidth=1.0, random_state=0).fit(X)
    grown = MMDTest(fixed, random_state=0).fit(X[:200], Y[:200])
    grown.partial_fit(X[200:], Y[200:])
    whole = MMDTest(fixed, random_state=0).fit(X, Y)
    assert grown.n_samples_x_ == 300
    assert grown.statistic_ == whole.statistic_ and grown.p_value_ == whole.p_value_


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
    maps = [TabularSampler(random_state=0)] * 2
    agg = skmmd.mmd_test(X, Y, transformers=maps, random_state=3)
    ref = AggregatedMMDTest(maps, random_state=3).fit(X, Y)
    assert agg.confidence_interval().low.shape == (2,)
    assert agg.pvalue == ref.p_value_ and agg.statistic == ref.statistic_
    # A list of maps is the plural name's only: transformer takes one map.
    with pytest.raises(ValueError, match=r"as transformers=\[\.\.\.\]"):
        skmmd.mmd_test(X, Y, transformer=maps)


@pytest.mark.slow
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
