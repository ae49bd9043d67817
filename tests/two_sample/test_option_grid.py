"""Every option combination of the two-sample family runs or refuses by name.

The grid: the estimators (``MMDTest``, ``AggregatedMMDTest``) and the
function (``mmd_test``), on a numeric DataFrame, a DataFrame with a text
column and an array, crossed with the kernel (the exact ``transformer=None``
or the default features ``"auto"``), the column report (``explain_columns``
of the estimator and the function; the aggregated estimator's ``explain``
method), aggregation,
the calibration and ``block_size``. A combination either runs (a p-value in
(0, 1] and ``reject == (p <= alpha)``) or raises the error that
``REFUSALS`` lists for it, whose message names the option; a combination
that starts or stops working fails here.
"""

import itertools

import numpy as np
import pytest

from skmmd import AggregatedMMDTest, MMDTest, mmd_test

pd = pytest.importorskip("pandas")

ALPHA = 0.05
OPTIONS = {"n_resamples": 19, "random_state": 0, "alpha": ALPHA}

AXES = {
    "api": ["estimator", "function"],
    "data": ["numeric", "mixed", "array"],
    "kernel": ["exact", "features"],
    "explain": [False, True],
    "aggregate": [False, True],
    "calibration": ["permutation", "bootstrap"],
    "block_size": [None, "auto"],
}
GRID = [dict(zip(AXES, values)) for values in itertools.product(*AXES.values())]

# The combinations that refuse, first match first (the order in which the
# checks run): {rule: (error, message naming the option, reason)}; a rule
# is the options it fixes, every other axis free.
REFUSALS = {
    (("api", "estimator"), ("aggregate", True), ("calibration", "bootstrap")): (
        TypeError,
        "unexpected keyword argument 'calibration'",
        "AggregatedMMDTest calibrates every kernel on shared permutations: it "
        "has no calibration parameter",
    ),
    (("api", "function"), ("kernel", "exact"), ("aggregate", True)): (
        ValueError,
        r"aggregate=True aggregates .* got transformer=None",
        "aggregation is over a grid of feature maps; the exact kernel is one",
    ),
    (("api", "function"), ("aggregate", True), ("calibration", "bootstrap")): (
        ValueError,
        r"calibrates its kernels on shared permutations only; got "
        r"calibration='bootstrap'",
        "the aggregated test's kernels share their permutations",
    ),
    (("api", "estimator"), ("kernel", "exact"), ("aggregate", True)): (
        ValueError,
        "The 'transformers' parameter of AggregatedMMDTest must be",
        "AggregatedMMDTest takes 'auto' or a list of maps, not the exact kernel",
    ),
    (("kernel", "exact"), ("block_size", "auto")): (
        ValueError,
        r"block_size='auto' .* the exact test \(transformer=None\) has none",
        "blocks of rows resample a feature map's unit sums; the exact test has none",
    ),
    (("data", "mixed"), ("kernel", "exact")): (
        ValueError,
        r"X's columns \['t'\] are not numbers .* \(transformer=None\)",
        "the exact Gaussian kernel takes numbers; a text column needs a map "
        "that encodes it (TabularSampler)",
    ),
    (("data", "mixed"), ("aggregate", True)): (
        ValueError,
        r"X's columns \['t'\] are not numbers .* \(transformers='auto'",
        "the aggregated grid is of Fourier maps of numbers; a list of "
        "TabularSampler maps aggregates a table with text",
    ),
}


def _rule(combination):
    """The first rule of REFUSALS that the combination matches, or None."""
    for rule in REFUSALS:
        if all(combination[axis] == value for axis, value in rule):
            return rule
    return None


def _samples(kind):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    Y = pd.DataFrame(rng.normal(size=(60, 3)) + [0.8, 0, 0], columns=["a", "b", "c"])
    if kind == "mixed":
        X["t"] = rng.choice(["x", "y", "z"], 60)
        Y["t"] = rng.choice(["x", "y", "z"], 60)
    if kind == "array":
        return X.to_numpy(), Y.to_numpy()
    return X, Y


def _run(combination):
    """``(p_value, reject, column_report or None)`` of the combination."""
    X, Y = _samples(combination["data"])
    kernel = None if combination["kernel"] == "exact" else "auto"
    options = {**OPTIONS, "block_size": combination["block_size"]}
    calibration = combination["calibration"]
    explain, aggregate = combination["explain"], combination["aggregate"]
    if combination["api"] == "function":
        result = mmd_test(
            X,
            Y,
            transformer=kernel,
            explain_columns=explain,
            aggregate=aggregate,
            calibration=calibration,
            **options,
        )
        return result.pvalue, result.reject, getattr(result, "column_report", None)
    if aggregate:
        # AggregatedMMDTest's only calibration is its default; the report
        # is its explain method's.
        if calibration != "permutation":
            options["calibration"] = calibration
        test = AggregatedMMDTest(kernel, **options).fit(X, Y)
        report = test.explain(X, Y) if explain else None
        return test.p_value_, test.reject_, report
    test = MMDTest(
        kernel, explain_columns=explain, calibration=calibration, **options
    ).fit(X, Y)
    return test.p_value_, test.reject_, getattr(test, "column_report_", None)


def _id(combination):
    return "-".join(f"{axis}={value}" for axis, value in combination.items())


@pytest.mark.filterwarnings("ignore::UserWarning")  # small, coarse blocked nulls
@pytest.mark.parametrize("combination", GRID, ids=_id)
def test_combination_runs_or_refuses_by_name(combination):
    rule = _rule(combination)
    if rule is not None:
        error, message, _ = REFUSALS[rule]
        with pytest.raises(error, match=message):
            _run(combination)
        return
    p_value, reject, report = _run(combination)
    assert 0 < p_value <= 1
    assert bool(reject) == (p_value <= ALPHA)
    if combination["explain"]:
        X, _ = _samples(combination["data"])
        # A DataFrame's columns by name, an array's by position.
        columns = list(X.columns) if hasattr(X, "columns") else ["0", "1", "2"]
        assert sorted(report["column"]) == sorted(columns)
    else:
        assert report is None


def test_every_refusal_rule_is_reached():
    """Each rule of REFUSALS is the first match of some combination, so a
    rule that no longer applies is removed, not kept."""
    assert {_rule(c) for c in GRID} - {None} == set(REFUSALS)


def test_what_refuses_is_recorded():
    """The counts of the grid, so that a change to REFUSALS is deliberate."""
    refused = sum(_rule(c) is not None for c in GRID)
    assert (len(GRID), refused) == (192, 112)
