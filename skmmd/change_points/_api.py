"""change_point_test: a fitted change point analysis's result in one call,
like ``scipy.stats``."""

from ._estimator import KernelChangePoints


def change_point_test(X, *, n_changes=None, penalty=None, alpha=0.05, **options):
    """Kernel change points of rows in time order, with a p-value each.

    Fits :class:`KernelChangePoints` and returns its ``result_``: the same
    numbers as the estimator's fitted attributes.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Rows in time order, numeric.
    n_changes : int or None, default=None
        Find this many changes; None: by ``penalty`` or by significance.
    penalty : float or None, default=None
        Find the changes of least cost plus ``penalty`` per change.
    alpha : float, default=0.05
        Level of the tests (by significance: a segment is split only when
        its test rejects).
    **options : dict
        Parameters of :class:`KernelChangePoints`, e.g. ``block_size``
        (rows in time order: :ref:`time_ordered`), ``transformer``,
        ``bandwidth``, ``search``, ``min_size``, ``n_resamples``,
        ``random_state``.

    Returns
    -------
    result : ChangePointResult
        ``change_points``, ``pvalues``, ``mmd2``, ``reject``, ``segments``;
        unpacks as ``change_points, pvalues``.

    See Also
    --------
    KernelChangePoints : The estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import change_point_test
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(size=(300, 2)), rng.normal(1.0, size=(300, 2))]
    >>> result = change_point_test(X, n_changes=1, random_state=0)
    >>> result.change_points.tolist(), bool(result.reject[0])
    ([301], True)
    """
    estimator = KernelChangePoints(
        n_changes=n_changes, penalty=penalty, alpha=alpha, **options
    )
    return estimator.fit(X).result_
