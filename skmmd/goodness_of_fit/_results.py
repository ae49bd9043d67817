"""The result of the goodness-of-fit family, named for its quantity: the
squared kernel Stein discrepancy and the number of rows."""

from .._inference._results import KernelTestResult


class KernelSteinTestResult(KernelTestResult):
    """Result of a kernel Stein goodness-of-fit test, shaped like scipy's.

    Unpacks as ``statistic, pvalue = result``. Returned by
    :func:`goodness_of_fit_test` and stored as ``result_`` by
    :class:`KernelSteinTest` (the same values as its fitted attributes).

    Parameters
    ----------
    statistic : float
        The test statistic ``T = n ||(1/n) sum_i xi(x_i)||^2``: ``n`` times
        the V-statistic of the squared kernel Stein discrepancy.
    pvalue : float
        Multiplier-bootstrap p-value of ``H0``: the rows are drawn from the
        model. Asymptotic (a Gaussian approximation over the resampling
        units). For a family (a composite null), the parametric bootstrap's
        p-value of ``H0``: the rows are drawn from some member of the family.
    null_distribution : ndarray of shape (n_resamples,)
        The statistic of each bootstrap draw (random signs on the units'
        sums; for a family, rows drawn from the fitted member against their
        own refit).
    alpha : float
        The level of the test.
    ksd2 : float
        Unbiased estimate of the squared kernel Stein discrepancy ``KSD^2 =
        E u_p(x, x')`` (cross terms of distinct units only), 0 when the rows
        come from the model; the centre of :meth:`confidence_interval`.
    standard_error : float
        Delete-one-unit jackknife standard error of ``ksd2``.
    n_samples : int
        Number of rows tested.

    Attributes
    ----------
    reject : bool
        ``pvalue <= alpha``.

    See Also
    --------
    KernelSteinTest : The test storing it.
    MMDTestResult : The two-sample test's result, of the same shape.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skmmd import goodness_of_fit_test
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> result = goodness_of_fit_test(X, stats.norm(), random_state=0)
    >>> statistic, pvalue = result
    >>> bool(pvalue > 0.05), result.n_samples
    (True, 500)
    """

    EFFECT = "ksd2"
    EFFECT_LABEL = "KSD^2"
    SIZES = {"n_samples": "rows"}
    TITLE = "skmmd goodness-of-fit test report"
    FINDING = "the sample does not fit the model"
    H0 = "the rows are drawn from the model"

    def __init__(
        self,
        *,
        statistic,
        pvalue,
        null_distribution,
        alpha,
        ksd2,
        standard_error,
        n_samples,
    ):
        super().__init__(
            statistic=statistic,
            pvalue=pvalue,
            null_distribution=null_distribution,
            alpha=alpha,
            standard_error=standard_error,
        )
        self.ksd2 = ksd2
        self.n_samples = n_samples

    def confidence_interval(self, confidence_level=0.95):
        """Confidence interval for the squared kernel Stein discrepancy.

        From ``ksd2`` and its jackknife standard error over resampling
        units, by the normal approximation of a nonnegative quantity (as
        :meth:`MMDTestResult.confidence_interval`): the lower limit is at
        least 0 and the upper one covers small discrepancies whose estimate
        is noise.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the interval.

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple ``(low, high)``.
        """
        return self._interval(confidence_level)
