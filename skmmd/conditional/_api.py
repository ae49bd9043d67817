"""conditional_independence_test: a fitted conditional test's result in one
call, like ``scipy.stats``."""

from ._estimator import ConditionalHSICTest


def conditional_independence_test(X, y, Z=None, **options):
    """Kernel test of conditional independence of ``X`` and ``y`` given ``Z``.

    Fits :class:`ConditionalHSICTest` and returns its ``result_``:
    ``statistic, pvalue = conditional_independence_test(X, y, Z)``, linear in
    the number of rows. The arguments are spelled as in
    ``ConditionalHSICTest.fit(X, y, Z)`` and :func:`hsic_test`.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n,) or (n, n_features_x)
        The first variable.
    y : DataFrame or array-like of shape (n,) or (n, n_features_y)
        The second variable, paired with ``X`` row by row.
    Z : DataFrame, array-like of shape (n,) or (n, n_features_z) or None, \
            default=None
        The conditioning variables (None: the unconditional test).
    **options : dict
        Parameters of :class:`ConditionalHSICTest`, e.g. ``n_resamples``,
        ``random_state``.

    Returns
    -------
    result : ConditionalHSICTestResult
        ``statistic``, ``pvalue``, ``null_distribution``, and the effect size
        ``conditional_hsic`` (the squared norm of the residuals'
        cross-covariance) with its jackknife ``standard_error`` and
        :meth:`~ConditionalHSICTestResult.confidence_interval`.

    See Also
    --------
    ConditionalHSICTest : The estimator behind it.
    hsic_test : The unconditional test in one call.

    Examples
    --------
    >>> import numpy as np
    >>> import skmmd
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=2000)
    >>> x = z**2 + 0.5 * rng.normal(size=2000)
    >>> y = np.tanh(2 * z) + 0.5 * rng.normal(size=2000)
    >>> bool(skmmd.conditional_independence_test(x, y, z, random_state=0).pvalue > 0.05)
    True
    >>> y2 = y + x  # y also depends on x itself
    >>> skmmd.conditional_independence_test(x, y2, z, random_state=0).pvalue
    0.001
    """
    test = ConditionalHSICTest(**options).fit(X, y, Z=Z)
    return test.result_
