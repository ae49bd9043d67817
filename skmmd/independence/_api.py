"""hsic_test: a fitted independence test's result in one call, like
``scipy.stats``."""

import numpy as np

from .._inference._explain import (
    check_explain_options,
    report_columns,
    second_pass_decision,
)
from .._tables._labels import is_dataframe
from ._aggregated import AggregatedHSICTest
from ._hsic import HSICTest


def hsic_test(
    X,
    y,
    *,
    x_transformer="auto",
    y_transformer="auto",
    explain_columns=False,
    aggregate=False,
    **options,
):
    """Kernel test of independence of ``X`` and ``y`` (HSIC) in one call.

    Fits :class:`HSICTest` and returns its ``result_``, shaped like
    :func:`mmd_test`'s: ``statistic, pvalue = hsic_test(X, y)``. On a table
    and the name of its target column, ``hsic_test(table, "target",
    explain_columns=True)`` also ranks every other column by its dependence on the
    target, with family-wise adjusted p-values (feature screening, see
    :meth:`HSICTest.explain`).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n, n_features)
        The first variable.
    y : DataFrame, array-like of shape (n,) or (n, n_features_y), or a column \
            label of X
        The second variable, paired with X row by row; a column label of the
        DataFrame X makes that column the second variable and the other
        columns the first.
    x_transformer, y_transformer : "auto", None or object with ``fit`` and \
            ``transform``, default="auto"
        The feature maps (see :class:`HSICTest`; None: the exact kernel). Lists
        of maps are :class:`AggregatedHSICTest`'s ``x_transformers`` and
        ``y_transformers`` (in ``options``), which aggregate those maps.
    explain_columns : bool, list or dict, default=False
        Also test each column of X (True) or each group of its columns (a
        list or a dict of groups, as :meth:`HSICTest.explain`'s ``columns``)
        against y, on the same pairings as one another: the result's
        ``column_report``; ``pvalue`` and ``reject`` then decide over the
        table and its columns (a union bound of the two tests; the
        estimator's ``decision="table"`` in ``options`` keeps the table's
        test, whose p-value is always ``table_pvalue``; see :ref:`decision`).
        ``correction`` and ``decision`` apply only with ``explain_columns``:
        without it they are an error.
    aggregate : bool, default=False
        Fit :class:`AggregatedHSICTest` instead: a grid of Gaussian
        bandwidths for each variable, every pair of kernels on the same
        pairings, one valid p-value (for dependence the median bandwidth
        misses, such as a fast oscillation). The result's ``hsic`` and
        ``standard_error`` are then arrays, one entry per pair of kernels.
        With ``explain_columns``, its :meth:`~AggregatedHSICTest.explain`
        reports the columns and decides with the table as for
        :class:`HSICTest`. ``x_transformers`` or ``y_transformers`` in
        ``options`` aggregates those maps, with or without this flag.
    **options : dict
        Parameters of :class:`HSICTest` (or of :class:`AggregatedHSICTest`),
        e.g. ``n_resamples``, ``random_state``, ``block_size`` (pairs in time
        order: :ref:`time_ordered`).

    Returns
    -------
    result : HSICTestResult
        ``statistic`` (HSIC), ``pvalue``, ``null_distribution``, and the
        unbiased HSIC with its jackknife standard error (``hsic``,
        ``standard_error``, :meth:`~HSICTestResult.confidence_interval`);
        with ``explain_columns``, ``column_report``.

    See Also
    --------
    HSICTest : The estimator behind it.
    AggregatedHSICTest : The estimator behind ``aggregate=True``.
    mmd_test : The two-sample test in one call.

    Examples
    --------
    >>> import numpy as np
    >>> import skmmd
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, size=500)
    >>> statistic, pvalue = skmmd.hsic_test(x, np.sin(4 * x), random_state=0)
    >>> pvalue
    0.001
    >>> skmmd.hsic_test(x, rng.normal(size=500), random_state=0).pvalue > 0.05
    True

    Feature screening of a table against its target column:

    >>> import pandas as pd
    >>> table = pd.DataFrame(
    ...     {"x": x, "noise": rng.normal(size=500), "city": rng.choice(["A", "B"], 500)}
    ... )
    >>> table["target"] = x**2 + 0.1 * rng.normal(size=500)
    >>> result = skmmd.hsic_test(table, "target", explain_columns=True, random_state=0)
    >>> result.column_report[["column", "adjusted_p_value"]]
      column  adjusted_p_value
    0      x             0.002
    1   city             0.665
    2  noise             0.665

    A fast oscillation, with a grid of bandwidths:

    >>> x = rng.uniform(-2, 2, size=400)
    >>> y = np.sin(4 * x) + 0.5 * rng.normal(size=400)
    >>> skmmd.hsic_test(x, y, aggregate=True, n_resamples=199, random_state=0).pvalue
    0.005
    """
    if is_dataframe(X) and _is_label(y) and y in X.columns:
        X, y = X.drop(columns=[y]), X[[y]]
    elif isinstance(y, str):
        raise ValueError(
            f"y={y!r} names no column of X: give the second variable, or the "
            "label of a column of the DataFrame X."
        )
    explain_columns = check_explain_options(explain_columns, options)
    aggregate = _aggregates(aggregate, x_transformer, y_transformer, options)
    if aggregate:
        test = AggregatedHSICTest(**options).fit(X, y)
    else:
        test = HSICTest(x_transformer, y_transformer, **options).fit(X, y)
    if explain_columns is not False:  # a second pass, for every kernel
        report = test.explain(X, y, columns=report_columns(explain_columns))
        second_pass_decision(test, report)
    return test.result_


def _is_label(y):
    return isinstance(y, (str, int, np.integer, tuple))


def _aggregates(aggregate, x_transformer, y_transformer, options):
    """Whether the call fits the aggregated test; refuses lists as one map."""
    given = {"x_transformer": x_transformer, "y_transformer": y_transformer}
    for name, value in given.items():
        if isinstance(value, list):
            raise ValueError(
                f"{name} takes one map; give a list of maps as {name}s=[...] "
                "(the aggregated test over those maps)."
            )
    aggregate = aggregate or "x_transformers" in options or "y_transformers" in options
    if aggregate:
        for name, value in given.items():
            if not (isinstance(value, str) and value == "auto"):
                raise ValueError(
                    f"aggregate=True takes no {name}: the aggregated test maps "
                    "each variable with its own grid (give x_transformers and "
                    "y_transformers lists for other maps)."
                )
    return aggregate
