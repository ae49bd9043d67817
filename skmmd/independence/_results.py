"""The result of the independence family, named for its quantities: HSIC
and the number of pairs (:class:`HSICTestResult`)."""

from .._inference._results import KernelTestResult


class HSICTestResult(KernelTestResult):
    """Result of a kernel test of independence, shaped like scipy's results.

    Unpacks as ``statistic, pvalue = result``. Returned by :func:`hsic_test`
    and stored as ``result_`` by :class:`HSICTest` (the same values as its
    fitted attributes).

    Parameters
    ----------
    statistic : float
        The test statistic: HSIC of the observed pairing (the test's
        ``statistic`` estimator).
    pvalue : float
        Permutation p-value of ``H0``: x and y are independent.
    null_distribution : ndarray of shape (n_resamples,)
        The statistic on each random pairing.
    alpha : float
        The level of the test.
    hsic : float
        Unbiased estimate of the kernels' HSIC of the rows (the same quantity
        at any ``n`` and resampling unit), the centre of
        :meth:`confidence_interval`.
    standard_error : float
        Delete-one-unit jackknife standard error of ``hsic``.
    n_pairs : int
        Number of ``(x, y)`` pairs tested.
    column_report : ColumnReport or None, default=None
        The per-column report of ``explain`` when it was asked for with the
        test (``hsic_test(..., explain_columns=True)``): a
        :class:`~skmmd.inspection.ColumnReport` (a plain DataFrame only with
        the meaning a report records in its ``attrs``).

    Attributes
    ----------
    reject : bool
        ``pvalue <= alpha``.

    See Also
    --------
    hsic_test : The function returning it.
    MMDTestResult : The two-sample test's result, of the same shape.

    Examples
    --------
    >>> import numpy as np
    >>> import skmmd
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, size=500)
    >>> result = skmmd.hsic_test(x, np.sin(4 * x), random_state=0)
    >>> statistic, pvalue = result
    >>> pvalue, result.n_pairs
    (0.001, 500)
    >>> low, high = result.confidence_interval()
    >>> bool(0 < low < result.hsic < high)
    True
    """

    EFFECT = "hsic"
    EFFECT_LABEL = "HSIC"
    SIZES = {"n_pairs": "pairs (x, y)"}
    TITLE = "skmmd independence test report"
    FINDING = "the two variables are dependent"
    H0 = "x and y are independent"
    NO_COLUMN = (
        "no column depends on y at that level on its own: the dependence lies in "
        "how columns act together, or is spread thinly over several."
    )

    def __init__(
        self,
        *,
        statistic,
        pvalue,
        null_distribution,
        alpha,
        hsic,
        standard_error,
        n_pairs,
        column_report=None,
    ):
        super().__init__(
            statistic=statistic,
            pvalue=pvalue,
            null_distribution=null_distribution,
            alpha=alpha,
            standard_error=standard_error,
            column_report=column_report,
        )
        self.hsic = hsic
        self.n_pairs = n_pairs

    def confidence_interval(self, confidence_level=0.95):
        """Confidence interval for the kernels' HSIC.

        From ``hsic`` and its jackknife standard error over resampling units,
        as :meth:`MMDTestResult.confidence_interval` (HSIC is the MMD^2
        between the joint distribution and the product of its marginals).

        Parameters
        ----------
        confidence_level : float, default=0.95
            In (0, 1).

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple ``(low, high)``.
        """
        return self._interval(confidence_level)
