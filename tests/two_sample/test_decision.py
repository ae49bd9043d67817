"""One decision for a table and its columns (issue 65): the table's test and
the first step of step-down maxT combined on the same permutations, the
column report gated by it, the table's test kept on request, and the options
that only the column report reads refused without ``explain``."""

import sys

import numpy as np
import pytest

import skmmd
from skmmd import MMDTest
from skmmd._inference import _corrections

pd = pytest.importorskip("pandas")


def _one_moved_column(n=1500, width=60, shift=0.3, seed=0):
    """A wide table where one column moved: the table's map dilutes it."""
    rng = np.random.default_rng(seed)
    columns = [f"c{j}" for j in range(width)]
    X = pd.DataFrame(rng.normal(size=(n, width)), columns=columns)
    Y = pd.DataFrame(rng.normal(size=(n, width)), columns=columns)
    Y["c0"] = Y["c0"] * (1 + shift)
    return X, Y


def test_a_moved_column_makes_the_decision_reject():
    """On main the table's p-value was the decision: p > 0.05 while the
    column report flagged c0 at adjusted p = 0.001."""
    X, Y = _one_moved_column()
    result = skmmd.mmd_test(X, Y, explain_columns=True, random_state=0)
    report = result.column_report
    assert result.table_pvalue > 0.05
    assert list(report.column[report.moved]) == ["c0"]
    assert result.reject and result.pvalue <= 0.05
    assert report.attrs["alpha"] == 0.05
    assert report.attrs["decision_p_value"] == result.pvalue


def test_the_table_alone_on_request_and_on_the_same_permutations():
    X, Y = _one_moved_column()
    alone = skmmd.mmd_test(X, Y, random_state=0)
    combined = MMDTest(explain_columns=True, random_state=0).fit(X, Y)
    table = MMDTest(explain_columns=True, decision="table", random_state=0).fit(X, Y)
    # The joint loop draws the permutations the table's test draws alone.
    assert combined.table_p_value_ == alone.pvalue == table.p_value_
    np.testing.assert_array_equal(combined.null_distribution_, alone.null_distribution)
    assert not table.reject_ and combined.reject_


def test_no_column_is_flagged_unless_the_decision_rejects():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(400, 8)), rng.normal(size=(400, 8))
    result = skmmd.mmd_test(
        X, Y, explain_columns=True, correction="none", n_resamples=199, random_state=0
    )
    report = result.column_report
    assert np.all(report.adjusted_p_value >= result.pvalue)
    assert report.moved.any() == result.reject


@pytest.mark.parametrize("transformer", [None, "list"])
def test_a_second_pass_decides_by_the_union_bound(transformer):
    """The exact test and the aggregated kernels compute the columns in a
    second pass: the decision is 2 min(p_table, p_maxT), capped at 1."""
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(200, 3)), rng.normal(size=(200, 3))
    Y[:, 0] += 0.6
    maps = {"transformer": transformer}
    if transformer == "list":
        maps = {
            "transformers": [
                skmmd.RandomFourierSampler(bandwidth=b) for b in (0.5, 2.0)
            ]
        }
    result = skmmd.mmd_test(
        X,
        Y,
        **maps,
        explain_columns=True,
        n_resamples=199,
        random_state=0,
    )
    first_step = result.column_report.attrs["maxt_p_value"]
    assert result.pvalue == min(1.0, 2 * min(result.table_pvalue, first_step))


def test_the_decision_p_value_is_exact_on_exchangeable_rows():
    """2000 matrices of exchangeable rows (a table statistic correlated with
    10 column statistics): the decision rejects at about alpha."""
    rng = np.random.default_rng(0)
    rejections = 0
    for _ in range(2000):
        columns = rng.gamma(2.0, size=(200, 10))
        table = columns.sum(axis=1) + rng.normal(size=200)
        rejections += _corrections.decision_p_value(table, columns) <= 0.05
    assert 0.035 <= rejections / 2000 <= 0.065


@pytest.mark.parametrize(
    "options, message",
    [
        ({"correction": "fdr"}, "correction applies only with explain_columns"),
        ({"decision": "table"}, "decision applies only with explain_columns"),
        ({"explain_columns": "fdr"}, "explain_columns=True, correction='fdr'"),
        ({"explain_columns": "age"}, "explain_columns must be True, False, a list"),
    ],
)
@pytest.mark.parametrize("function", [skmmd.mmd_test, skmmd.hsic_test])
def test_options_of_the_column_report_need_explain(function, options, message):
    """A column report's option without ``explain_columns``, or a
    correction's name as ``explain_columns``, is an error that names the
    fix."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        function(X, Y, **options)


def test_explain_without_pandas_fails_before_the_test(monkeypatch):
    """On main the whole test ran, then a bare ModuleNotFoundError."""
    monkeypatch.setitem(sys.modules, "pandas", None)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    with pytest.raises(ImportError, match=r"skmmd\[tables\]"):
        MMDTest(explain_columns=True).fit(X, Y)


@pytest.mark.parametrize("n_resamples", [999, "auto"])
def test_a_combined_decision_has_no_threshold_of_the_table_alone(n_resamples):
    # The table alone does not reject; its moved column makes the decision
    # reject. "statistic_ above threshold_ means rejection" must not be
    # false: threshold_ is None, the table's own is table_threshold_.
    X, Y = _one_moved_column()
    test = MMDTest(explain_columns=True, n_resamples=n_resamples, random_state=0)
    test.fit(X, Y)
    assert test.reject_ and test.p_value_ <= test.alpha < test.table_p_value_
    assert test.threshold_ is None
    assert test.statistic_ <= test.table_threshold_
    table = MMDTest(
        explain_columns=True, decision="table", n_resamples=n_resamples, random_state=0
    ).fit(X, Y)
    assert not table.reject_ and table.statistic_ <= table.threshold_
    assert table.threshold_ == table.table_threshold_
    if n_resamples == 999:  # (a sequential test stops where its decision is known)
        assert table.table_threshold_ == test.table_threshold_


@pytest.mark.parametrize("family", ["hsic", "aggregated_mmd", "aggregated_hsic"])
def test_every_estimator_with_a_column_report_takes_decision(family):
    # decision is a parameter of each estimator, with MMDTest's constraint,
    # and the functions pass it through: the estimator's "table" keeps the
    # table's p-value, its "combined" (the default) decides with the report.
    from sklearn.utils._param_validation import InvalidParameterError

    from skmmd import AggregatedHSICTest, AggregatedMMDTest, HSICTest
    from skmmd._inference._explain import second_pass_decision

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    Y = pd.DataFrame(
        rng.normal(size=(200, 3)) + [0.3, 0.0, 0.0], columns=["a", "b", "c"]
    )
    options = {"n_resamples": 99, "random_state": 0}
    if family == "hsic":
        cls, call = HSICTest, lambda **k: skmmd.hsic_test(X, Y["a"], **k)
    elif family == "aggregated_mmd":
        options["n_bandwidths"] = 2
        cls, call = AggregatedMMDTest, lambda **k: skmmd.mmd_test(X, Y, **k)
    else:
        options["n_bandwidths"] = 2
        cls, call = AggregatedHSICTest, lambda **k: skmmd.hsic_test(X, Y["a"], **k)
    second = Y if family == "aggregated_mmd" else Y["a"]
    assert cls().decision == "combined"
    with pytest.raises(InvalidParameterError, match="'decision' parameter"):
        cls(decision="both").fit(X, second)
    aggregate = family != "hsic"
    for decision in ("combined", "table"):
        test = cls(decision=decision, **options).fit(X, second)
        table_p = test.p_value_
        second_pass_decision(test, test.explain(X, second))
        result = call(
            aggregate=aggregate, explain_columns=True, decision=decision, **options
        )
        assert result.pvalue == test.p_value_ and result.column_report is not None
        if decision == "table":
            assert test.p_value_ == table_p and test.threshold_ is not None
        else:
            assert test.table_p_value_ == result.table_pvalue == table_p
            assert test.threshold_ is None and test.p_value_ >= table_p
