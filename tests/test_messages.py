"""Messages that name the fix (issue 65, item 5): NaN or infinity in arrays
(one check for every family, before any feature is computed), a model
fitted on other DataFrame columns than the ones tested, and an unfitted
model."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import KernelDensity

from skmmd import KernelSteinTest, MMDTest, goodness_of_fit_test, hsic_test, mmd_test
from skmmd.kernel_approximation import RandomFourierSampler, TabularSampler

pd = pytest.importorskip("pandas")

FAST = {"n_resamples": 19, "random_state": 0}
# The fix for arrays with missing values: DataFrames, whose default map is
# TabularSampler (it imputes and adds a missing indicator).
TABLES = r"pandas DataFrame.*TabularSampler, which imputes missing values"


@pytest.fixture
def samples():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(60, 3)), rng.normal(size=(50, 3))
    with_nan = X.copy()
    with_nan[[3, 7], 1] = np.nan
    return X, Y, with_nan


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda X, Y, N: mmd_test(N, Y, explain_columns=True, **FAST), "X"),
        (lambda X, Y, N: mmd_test(N, Y, **FAST), "X"),
        (lambda X, Y, N: mmd_test(X, N[:50], **FAST), "Y"),
        (lambda X, Y, N: mmd_test(N, Y, transformer=None, **FAST), "X"),
        (lambda X, Y, N: mmd_test(N.tolist(), Y, **FAST), "X"),
        (lambda X, Y, N: MMDTest(**FAST).partial_fit(N, Y), "X"),
    ],
    ids=["explain", "default", "second sample", "exact", "list", "partial_fit"],
)
def test_nan_in_two_samples_names_the_sample_and_the_fix(samples, call, name):
    with pytest.raises(
        ValueError,
        match=(
            rf"^Input {name} contains NaN \(missing values\) in 2 of \d+ rows \(the "
            rf"first at row 3, column 1\): pass both samples as {TABLES}.*; or pass "
            r"transformer=TabularSampler\(\) with the arrays; or drop or impute"
        ),
    ):
        call(*samples)


@pytest.mark.parametrize("name", ["X", "y"])
def test_nan_in_a_variable_names_it_and_its_map(samples, name):
    X, _, with_nan = samples
    pair = (with_nan, X) if name == "X" else (X, with_nan)
    with pytest.raises(
        ValueError,
        match=(
            rf"^Input {name} contains NaN .* pass {name} as a pandas DataFrame "
            rf"\(pd.DataFrame\({name}\)\): with {name.lower()}_transformer='auto' "
            r"\(the default\) it is mapped by TabularSampler, which imputes "
            r"missing values and adds a missing indicator; or drop or impute"
        ),
    ):
        hsic_test(*pair, **FAST)


def test_the_fixes_named_for_missing_values_work(samples):
    X, Y, with_nan = samples
    frames = mmd_test(pd.DataFrame(with_nan), pd.DataFrame(Y), **FAST)
    explicit = mmd_test(with_nan, Y, transformer=TabularSampler(random_state=0))
    paired = hsic_test(pd.DataFrame(with_nan), X[:, 0], **FAST)
    for result in (frames, explicit, paired):
        assert 0 < result.pvalue <= 1


def test_missing_values_are_found_before_any_feature(samples):
    class NoFit(RandomFourierSampler):
        def fit(self, X, y=None):
            raise AssertionError("fitted on rows with NaN")

    _, Y, with_nan = samples
    with pytest.raises(ValueError, match="Input X contains NaN"):
        MMDTest(NoFit(), **FAST).fit(with_nan, Y)


def test_infinity_and_sparse_rows_are_named(samples):
    X, Y, _ = samples
    X = X.copy()
    X[5, 2] = -np.inf
    drop = r"drop those rows or replace the values"
    with pytest.raises(
        ValueError, match=rf"^Input X contains infinity in 1 of 60 .*{drop}"
    ):
        mmd_test(X, Y, **FAST)
    # A map that takes NaN takes no infinity either.
    with pytest.raises(ValueError, match=rf"row 5, column 2\): {drop}"):
        mmd_test(X, Y, transformer=TabularSampler(), **FAST)
    S = sp.random(40, 4, density=0.5, format="csr", random_state=0)
    S.data[-1] = np.nan  # the last stored value: row 39
    with pytest.raises(
        ValueError, match=r"NaN .* in 1 of 40 rows \(the first at row 39"
    ):
        mmd_test(S, sp.random(40, 4, density=0.5, format="csr", random_state=1))


def test_goodness_of_fit_nan_names_the_rows_and_the_fix(samples):
    X, _, with_nan = samples
    gm = GaussianMixture(2, random_state=0).fit(X)
    fix = r"drop those rows or impute them \(sklearn.impute.SimpleImputer\)"
    with pytest.raises(ValueError, match=rf"^Input X contains NaN .*in 2 of 60.*{fix}"):
        goodness_of_fit_test(with_nan, gm, **FAST)
    with pytest.raises(ValueError, match=rf"^Input X contains NaN .*{fix}"):
        goodness_of_fit_test(pd.DataFrame(with_nan), gm, **FAST)
    test = KernelSteinTest(gm, **FAST).partial_fit(X)
    with pytest.raises(ValueError, match=rf"chunk after 60 rows .*{fix}"):
        test.partial_fit(with_nan)


@pytest.fixture
def table():
    rng = np.random.default_rng(1)
    return pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])


@pytest.mark.parametrize(
    "model",
    [GaussianMixture(2, random_state=0), KernelDensity(), PCA(2)],
    ids=["mixture", "kde", "score_samples"],
)
def test_a_model_of_other_columns_is_refused(table, model):
    model = model.fit(table)
    kind = type(model).__name__
    other = table.set_axis(["c", "d"], axis=1)
    with pytest.raises(
        ValueError,
        match=(
            rf"model {kind} was fitted on columns \['a', 'b'\] and X has columns "
            r"\['c', 'd'\] \(only in the model: \['a', 'b'\], only in X: "
            r"\['c', 'd'\]\): test the columns the model was fitted on"
        ),
    ):
        goodness_of_fit_test(other, model, **FAST)
    with pytest.raises(ValueError, match=r"\(only in X: \['e'\]\)"):
        goodness_of_fit_test(table.assign(e=0.0), model, **FAST)
    with pytest.raises(
        ValueError,
        match=(
            rf"X has the columns model {kind} was fitted on in another order: "
            r"\['b', 'a'\] in X, \['a', 'b'\] in the model .* reorder them: "
            r"X\[model.feature_names_in_\]"
        ),
    ):
        goodness_of_fit_test(table[["b", "a"]], model, **FAST)


def test_a_model_of_the_same_columns_runs_without_warnings(table):
    gm = GaussianMixture(2, random_state=0).fit(table)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        named = goodness_of_fit_test(table, gm, **FAST)
        by_position = goodness_of_fit_test(table.to_numpy(), gm, **FAST)
    assert named.statistic == by_position.statistic


def test_an_unfitted_model_names_train_size(table):
    """An unfitted estimator that cannot draw rows (no ``sample``) names the
    fix; one that can (a mixture) is a family, fit to the rows and refit on
    every resample (issue 66)."""
    mixture = KernelSteinTest(GaussianMixture(2, random_state=0), **FAST).fit(table)
    assert mixture.model_.converged_
    for model in (PCA(2),):
        with pytest.raises(
            ValueError,
            match=(
                rf"model {type(model).__name__} is not fitted: fit it first, on "
                r"rows other than the ones tested, or pass train_size \(e.g. "
                r"train_size=0.5\)"
            ),
        ):
            goodness_of_fit_test(table, model, **FAST)
        # The fix named runs: a copy fit on half the rows, the rest tested.
        result = goodness_of_fit_test(table, model, train_size=0.5, **FAST)
        assert result.n_samples == 100
