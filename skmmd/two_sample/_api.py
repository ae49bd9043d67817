"""mmd_test and hsic_test: a fitted test's result in one call, like
``scipy.stats``."""

from ..kernel_approximation import TabularSampler
from ._aggregated import AggregatedMMDTest
from ._hsic import HSICTest
from ._mmd import MMDTest


def mmd_test(X, Y, *, transformer="auto", **options):
    """Kernel two-sample test of ``H0: P = Q`` in one call, like ``scipy.stats``.

    Fits :class:`MMDTest` (or :class:`AggregatedMMDTest` for a list of
    transformers) and returns its ``result_``: the same numbers as the
    estimator's fitted attributes.

    Parameters
    ----------
    X : DataFrame, array-like or sequence of shape (m, ...) or (N, ...)
        The first sample, or the pooled sample when ``Y`` is labels.
    Y : DataFrame, array-like or sequence of shape (n, ...) or (N,)
        The second sample (same columns as ``X``), or labels of two classes.
    transformer : "auto", object with ``fit`` and ``transform``, list or None, \
            default="auto"
        The feature map. ``"auto"``: a :class:`TabularSampler` with the given
        ``random_state`` (any table: numeric, categorical, missing values);
        ``None``: the exact (quadratic-time) Gaussian kernel test; a list:
        the aggregated test over those maps.
    **options : dict
        Parameters of :class:`MMDTest` (or :class:`AggregatedMMDTest`), e.g.
        ``n_resamples``, ``alpha``, ``random_state``.

    Returns
    -------
    result : MMDTestResult
        ``statistic``, ``pvalue``, ``null_distribution``, ``mmd2``,
        ``standard_error``, :meth:`~MMDTestResult.confidence_interval` and
        :meth:`~MMDTestResult.relevance_test`; unpacks as
        ``statistic, pvalue``.

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
    """
    if isinstance(transformer, list):
        test = AggregatedMMDTest(transformer, **options)
    else:
        if isinstance(transformer, str) and transformer == "auto":
            transformer = TabularSampler(random_state=options.get("random_state"))
        test = MMDTest(transformer, **options)
    return test.fit(X, Y).result_


def hsic_test(X, y, *, x_transformer="auto", y_transformer="auto", **options):
    """Kernel test of independence of ``X`` and ``y`` (HSIC) in one call.

    Fits :class:`HSICTest` and returns its ``result_``, shaped like
    :func:`mmd_test`'s: ``statistic, pvalue = hsic_test(X, y)``.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n, n_features)
        The first variable.
    y : DataFrame or array-like of shape (n,) or (n, n_features_y)
        The second variable, paired with X row by row.
    x_transformer, y_transformer : "auto" or object with ``fit`` and \
            ``transform``, default="auto"
        The feature maps (see :class:`HSICTest`).
    **options : dict
        Parameters of :class:`HSICTest`, e.g. ``n_resamples``,
        ``random_state``.

    Returns
    -------
    result : MMDTestResult
        ``statistic`` (HSIC), ``pvalue``, ``null_distribution``, and the
        unbiased HSIC with its jackknife standard error (``mmd2``,
        ``standard_error``, :meth:`~MMDTestResult.confidence_interval`).

    See Also
    --------
    HSICTest : The estimator behind it.
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
    """
    test = HSICTest(x_transformer, y_transformer, **options)
    return test.fit(X, y).result_
