"""mmd_test: a fitted two-sample test's result in one call, like
``scipy.stats``."""

from .._inference._explain import (
    check_explain_options,
    report_columns,
    second_pass_decision,
)
from ._aggregated import AggregatedMMDTest
from ._mmd import MMDTest


def mmd_test(
    X, Y, *, transformer="auto", explain_columns=False, aggregate=False, **options
):
    """Kernel two-sample test of ``H0: P = Q`` in one call, like ``scipy.stats``.

    Fits :class:`MMDTest` (or :class:`AggregatedMMDTest` with
    ``aggregate=True`` or a list of maps as ``transformers``) and returns its
    ``result_``: the same numbers as the estimator's fitted attributes.

    Parameters
    ----------
    X : DataFrame, array-like or sequence of shape (m, ...) or (N, ...)
        The first sample, or the pooled sample when ``Y`` is labels.
    Y : DataFrame, array-like or sequence of shape (n, ...) or (N,)
        The second sample (same columns as ``X``), or labels of two classes.
    transformer : "auto", object with ``fit`` and ``transform`` or None, \
            default="auto"
        The feature map, as in :class:`MMDTest`. ``"auto"``: a
        :class:`TabularSampler` for DataFrames (any table: numeric,
        categorical, missing values), else a :class:`RandomFourierSampler`,
        with the given ``random_state``; ``None``: the exact (quadratic-time)
        Gaussian kernel test. A list of maps is :class:`AggregatedMMDTest`'s
        ``transformers`` (in ``options``), which aggregates those maps.
    explain_columns : bool, list or dict, default=False
        Also test each column (True) or each group of columns (a list or a
        dict of groups, as :meth:`MMDTest.explain`'s ``columns``), as
        ``MMDTest(explain_columns=...)`` does: the result's
        ``column_report``, and ``pvalue`` / ``reject`` become the decision
        over the table and its columns (``decision``; the table's alone is
        ``table_pvalue``). ``correction`` and ``decision`` apply only with
        ``explain_columns``: without it they are an error.
    aggregate : bool, default=False
        Fit :class:`AggregatedMMDTest` instead, as :func:`hsic_test` and
        :func:`goodness_of_fit_test` do: with ``transformer="auto"`` a grid
        of Gaussian and Laplacian bandwidths, every kernel on the same
        permutations, one valid p-value (``transformers=[...]`` in
        ``options`` aggregates those maps, with or without this flag).
    **options : dict
        Parameters of :class:`MMDTest` (or :class:`AggregatedMMDTest`, such
        as ``transformers``, a list of maps to aggregate), e.g.
        ``n_resamples``, ``alpha``, ``random_state``, ``block_size`` (rows in
        time order: :ref:`time_ordered`). The aggregated test takes
        ``calibration="permutation"`` (its only calibration) and refuses
        ``"bootstrap"``.

    Returns
    -------
    result : MMDTestResult
        ``statistic``, ``pvalue``, ``null_distribution``, ``mmd2``,
        ``standard_error``, :meth:`~MMDTestResult.confidence_interval` and
        :meth:`~MMDTestResult.relevance_test`; unpacks as
        ``statistic, pvalue``; with ``explain_columns``, ``column_report``.

    See Also
    --------
    MMDTest : The estimator behind it (``explain``, ``witness``).
    scipy.stats.permutation_test : Generic permutation tests.

    Examples
    --------
    >>> import numpy as np
    >>> import skmmd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2))
    >>> Y = rng.normal(size=(500, 2)) + [0.5, 0.0]
    >>> statistic, pvalue = skmmd.mmd_test(X, Y, random_state=0)
    >>> pvalue
    0.001
    >>> low, high = skmmd.mmd_test(X, Y, random_state=0).confidence_interval()
    >>> bool(0 < low < statistic < high)
    True

    The aggregated test over a list of maps:

    >>> maps = [
    ...     skmmd.RandomFourierSampler(bandwidth=b, random_state=0) for b in (0.5, 2.0)
    ... ]
    >>> skmmd.mmd_test(X, Y, transformers=maps, n_resamples=199, random_state=0).pvalue
    0.005
    """
    explain_columns = check_explain_options(explain_columns, options)
    if isinstance(transformer, list):
        raise ValueError(
            "transformer takes one map; give a list of maps as transformers=[...] "
            "(the aggregated test over those maps)."
        )
    aggregate = aggregate or "transformers" in options
    if aggregate and not (isinstance(transformer, str) and transformer == "auto"):
        raise ValueError(
            "aggregate=True aggregates a grid of bandwidths (transformers='auto') "
            f"or a list of maps (transformers=[...]); got transformer={transformer!r}."
        )
    if aggregate:
        calibration = options.pop("calibration", "permutation")
        if calibration != "permutation":
            raise ValueError(
                "The aggregated test (aggregate=True or transformers=[...]) "
                "calibrates its kernels on shared permutations only; got "
                f"calibration={calibration!r}."
            )
        test = AggregatedMMDTest(**options).fit(X, Y)
        if explain_columns is not False:  # a second pass, for every kernel
            report = test.explain(X, Y, columns=report_columns(explain_columns))
            second_pass_decision(test, report)
        return test.result_
    test = MMDTest(transformer, explain_columns=explain_columns, **options)
    return test.fit(X, Y).result_
