"""The result of the conditional family, named for its quantities: the
conditional HSIC of residuals, its bootstrap null and the number of rows
(:class:`ConditionalHSICTestResult`)."""

from .._inference._results import KernelTestResult


class ConditionalHSICTestResult(KernelTestResult):
    """Result of a conditional independence test, shaped like scipy's results.

    Unpacks as ``statistic, pvalue = result``. Stored as ``result_`` by
    :class:`ConditionalHSICTest` (the same values as its fitted attributes).

    Parameters
    ----------
    statistic : float
        The test statistic ``T = n ||(1/n) sum_i r_i g_i' s_i'||^2``: the
        squared norm of the mean weighted product of the cross-fitted ridge
        residuals ``r`` of x's features and ``s`` of y's on z's features
        (weights ``g(z)``).
    pvalue : float
        Multiplier-bootstrap p-value of ``H0``: x and y are independent given
        z. Asymptotic: valid as the regressions of x's and y's features on z
        converge (see the user guide's limits).
    null_distribution : ndarray of shape (n_resamples,)
        The statistic of each bootstrap draw (random signs on the resampling
        units' sums, rescaled by the wild re-fits' ``null_scale_``).
    alpha : float
        The level of the test.
    conditional_hsic : float
        Unbiased estimate of ``||E[r g(z)' s']||_F^2`` (cross terms of distinct
        units only), the squared norm of the conditional cross-covariance of
        the features of ``(x, z)`` and of y given z; 0 under ``H0``, the centre
        of :meth:`confidence_interval`.
    standard_error : float
        Delete-one-unit jackknife standard error of ``conditional_hsic``.
    n_samples : int
        Number of ``(x, y, z)`` rows tested.

    Attributes
    ----------
    reject : bool
        ``pvalue <= alpha``.

    See Also
    --------
    ConditionalHSICTest : The test storing it.
    HSICTestResult : The unconditional test's result, of the same shape.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import ConditionalHSICTest
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(1000, 1))
    >>> x, y = z + rng.normal(size=(1000, 1)), z + rng.normal(size=(1000, 1))
    >>> result = ConditionalHSICTest(random_state=0).fit(x, y, Z=z).result_
    >>> statistic, pvalue = result
    >>> bool(pvalue > 0.05), result.n_samples
    (True, 1000)
    """

    EFFECT = "conditional_hsic"
    EFFECT_LABEL = "conditional HSIC"
    SIZES = {"n_samples": "rows (x, y, z)"}
    TITLE = "skmmd conditional independence test report"
    FINDING = "the two variables are dependent given z"
    H0 = "x and y are independent given z"

    def __init__(
        self,
        *,
        statistic,
        pvalue,
        null_distribution,
        alpha,
        conditional_hsic,
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
        self.conditional_hsic = conditional_hsic
        self.n_samples = n_samples

    def confidence_interval(self, confidence_level=0.95):
        """Confidence interval for the conditional HSIC ``||E[r g(z)' s']||^2``.

        From ``conditional_hsic`` and its jackknife standard error over
        resampling units, by the normal approximation of a nonnegative
        quantity (as :meth:`HSICTestResult.confidence_interval`): the lower
        limit is at least 0 and the upper one covers small effects whose
        estimate is noise.

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
