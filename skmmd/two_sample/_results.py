"""The result of an MMD test, with its effect size: MMD^2 and its jackknife
standard error from the unit sums the linear-time pipeline keeps."""

import warnings

import numpy as np

from .._inference._results import KernelTestResult
from ..statistics._features import mmd2_from_parts


def _unit_products(sums, m):
    """Per-unit inner products with the two sample sums, and the sums' own.

    Returns ``(P, c_x, c_y, u2, g_x)`` with ``P = (||s_x||^2, ||s_y||^2,
    s_x^T s_y)``, ``c_x[g] = u_g^T s_x``, ``c_y[g] = u_g^T s_y``,
    ``u2[g] = ||u_g||^2`` for every unit ``g`` (the first ``g_x`` are X's).
    From features this uses only the unit sums ``U`` and the fixed remainder
    (what a streamed or distributed fit keeps); the exact path takes the
    products with its Gram matrix (units are single points).
    """
    if hasattr(sums, "n_blocks"):  # ColumnSums: each column's, (G, columns)
        return _column_products(sums)
    if hasattr(sums, "blocks"):
        # Block by block: the unit sums are often views of a streamed state,
        # and stacking them would copy all G x D of them.
        g_x = sums.n_units[0]
        s_x, s_y, start = sums.fixed["s_x"], sums.fixed["s_y"], 0
        for block in sums.blocks:
            split = min(max(g_x - start, 0), block.shape[0])
            s_x = s_x + block[:split].sum(axis=0)
            s_y = s_y + block[split:].sum(axis=0)
            start += block.shape[0]
        S = np.column_stack([s_x, s_y])
        c = np.concatenate([block @ S for block in sums.blocks])
        c_x, c_y = c[:, 0], c[:, 1]
        u2 = np.concatenate([np.einsum("ij,ij->i", b, b) for b in sums.blocks])
        P = (s_x @ s_x, s_y @ s_y, s_x @ s_y)
    else:  # exact kernel: K a_x and K a_y in one pass over K
        g_x = m
        a = np.zeros((2, sums.q.size))
        a[0, :g_x], a[1, g_x:] = 1.0, 1.0
        KA = sums.times(a)
        c_x, c_y, u2 = KA[:, 0], KA[:, 1], sums.q
        P = (c_x[:g_x].sum(), c_y[g_x:].sum(), c_x[g_x:].sum())
    return P, c_x, c_y, u2, g_x


def _column_products(sums):
    """:func:`_unit_products` of every column of a ``ColumnSums`` at once:
    ``P`` of shape (columns,), ``c_x, c_y, u2`` of shape (G, columns)."""
    g_x, k = sums.n_units[0], sums.n_blocks
    s_x, start = sums.fixed["s_x"], 0
    for block in sums.blocks:
        s_x = s_x + block[: max(g_x - start, 0)].sum(axis=0)
        start += block.shape[0]
    s_y = sums.total - s_x
    s_x, s_y = s_x.reshape(k, -1), s_y.reshape(k, -1)
    units = [b.reshape(b.shape[0], k, -1) for b in sums.blocks]
    c_x = np.concatenate([np.einsum("gkw,kw->gk", u, s_x) for u in units])
    c_y = np.concatenate([np.einsum("gkw,kw->gk", u, s_y) for u in units])
    u2 = np.concatenate([np.einsum("gkw,gkw->gk", u, u) for u in units])
    P = tuple(
        np.einsum("kw,kw->k", a, b) for a, b in ((s_x, s_x), (s_y, s_y), (s_x, s_y))
    )
    return P, c_x, c_y, u2, g_x


def _q_parts(sums, g_x):
    fixed = sums.fixed
    return (
        sums.q[:g_x].sum() + fixed["q_x"],
        sums.q[g_x:].sum() + fixed["q_y"],
    )


def effect_size(sums, m, n):
    """Unbiased MMD^2 and its delete-one-unit jackknife standard error.

    Deleting unit ``g`` of X (size ``s_g``, sum ``u_g``) changes the kernel
    sums by ``||s_x||^2 -> ||s_x||^2 - 2 u_g^T s_x + ||u_g||^2`` and
    ``s_x^T s_y -> s_x^T s_y - u_g^T s_y``, so all ``G`` leave-one-out
    statistics cost ``O(G D)``. The two-sample jackknife variance is the sum
    of the two samples' ``(G - 1)/G sum_g (theta_(g) - mean)^2``. The rows of
    the fixed remainder (fewer than one unit per sample) are never deleted.

    Returns
    -------
    mmd2 : float
        ``MMD2_u`` of the observed split (whatever statistic the test uses).
    standard_error : float
        Jackknife standard error of ``mmd2``.
    """
    (P_xx, P_yy, P_xy), c_x, c_y, u2, g_x = _unit_products(sums, m)
    q_x, q_y = _q_parts(sums, g_x)
    sizes, q = sums.sizes, sums.q
    if np.ndim(P_xx):  # one value per column: units down, columns across
        sizes, q = sizes[:, None], q[:, None]
    mmd2, _ = mmd2_from_parts(
        P_xx, P_yy, P_xy, q_x, q_y, 0.0, m * (m - 1), n * (n - 1), m * n, True
    )
    X_units, Y_units = slice(None, g_x), slice(g_x, None)
    m_del = m - sizes[X_units]
    n_del = n - sizes[Y_units]
    with np.errstate(invalid="ignore", divide="ignore"):
        theta_x, _ = mmd2_from_parts(
            P_xx - 2 * c_x[X_units] + u2[X_units],
            P_yy,
            P_xy - c_y[X_units],
            q_x - q[X_units],
            q_y,
            0.0,
            m_del * (m_del - 1),
            n * (n - 1),
            m_del * n,
            True,
        )
        theta_y, _ = mmd2_from_parts(
            P_xx,
            P_yy - 2 * c_y[Y_units] + u2[Y_units],
            P_xy - c_x[Y_units],
            q_x,
            q_y - q[Y_units],
            0.0,
            m * (m - 1),
            n_del * (n_del - 1),
            m * n_del,
            True,
        )
    if min(theta_x.shape[0], theta_y.shape[0]) < 2 or not (
        np.isfinite(theta_x).all() and np.isfinite(theta_y).all()
    ):
        warnings.warn(
            "The standard error of MMD^2 is undefined for samples this small: "
            "the jackknife needs at least two resampling units per sample and "
            f"two rows left in each without one (here {g_x} units in X and "
            f"{theta_y.shape[0]} in Y, of {m} and {n} rows); standard_error is inf "
            "and the confidence interval [0, inf). The p-value is valid.",
            UserWarning,
            stacklevel=3,
        )
        if np.ndim(mmd2):
            return mmd2, np.full(np.shape(mmd2), np.inf)
        return float(mmd2), float("inf")
    variance = 0.0
    for theta in (theta_x, theta_y):
        G = theta.shape[0]
        variance += (G - 1) / G * np.sum((theta - theta.mean(axis=0)) ** 2, axis=0)
    if np.ndim(mmd2):
        return mmd2, np.sqrt(variance)
    return float(mmd2), float(np.sqrt(variance))


class MMDTestResult(KernelTestResult):
    """Result of an MMD two-sample test, in the shape of ``scipy.stats`` results.

    Unpacks as ``statistic, pvalue = result``. Returned by :func:`mmd_test`
    and stored as ``result_`` by :class:`MMDTest` and
    :class:`AggregatedMMDTest` (the same values as their fitted attributes).

    Parameters
    ----------
    statistic : float
        The test statistic: MMD^2 (:class:`MMDTest`) or the aggregated
        statistic (:class:`AggregatedMMDTest`).
    pvalue : float
        Permutation (or bootstrap) p-value of ``H0: P = Q``.
    null_distribution : ndarray of shape (n_resamples,)
        The statistic on each resample.
    alpha : float
        The level of the test.
    mmd2 : float or ndarray of shape (n_kernels,)
        Unbiased estimate ``MMD2_u`` of the kernel's MMD^2 (one per kernel for
        the aggregated test), the centre of :meth:`confidence_interval`.
    standard_error : float or ndarray of shape (n_kernels,)
        Delete-one-unit jackknife standard error of ``mmd2``.
    n_samples_x : int
        Size of the first sample.
    n_samples_y : int
        Size of the second sample.
    column_report : ColumnReport or None, default=None
        The per-column report of ``explain`` when it was asked for with the
        test (``mmd_test(..., explain_columns=True)``): a
        :class:`~skmmd.inspection.ColumnReport` (a plain DataFrame only with
        the meaning a report records in its ``attrs``).

    Attributes
    ----------
    reject : bool
        ``pvalue <= alpha``.

    See Also
    --------
    mmd_test : The function returning it.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import MMDTest, RandomFourierSampler
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(400, 2)), rng.normal(size=(400, 2)) + 0.5
    >>> test = MMDTest(RandomFourierSampler(random_state=0), random_state=0)
    >>> result = test.fit(X, Y).result_
    >>> statistic, pvalue = result
    >>> statistic == test.statistic_, pvalue
    (True, 0.001)
    """

    EFFECT = "mmd2"
    EFFECT_LABEL = "MMD^2"
    TITLE = "skmmd two-sample test report"
    FINDING = "the samples differ"
    H0 = "one distribution"
    NO_COLUMN = (
        "no column moved at that level on its own: the difference lies in how "
        "columns vary together, or is spread thinly over several."
    )
    SIZES = {
        "n_samples_x": "rows of the reference (X)",
        "n_samples_y": "rows of the current sample (Y)",
    }

    def __init__(
        self,
        *,
        statistic,
        pvalue,
        null_distribution,
        alpha,
        mmd2,
        standard_error,
        n_samples_x,
        n_samples_y,
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
        self.mmd2 = mmd2
        self.n_samples_x = n_samples_x
        self.n_samples_y = n_samples_y

    def confidence_interval(self, confidence_level=0.95):
        """Confidence interval for the kernel's MMD^2.

        It covers the MMD^2 of the test's kernel (for a random feature map: of
        that fitted map, ``||E z(X) - E z(Y)||^2``), from ``mmd2`` and its
        jackknife standard error ``se`` over resampling units; see Notes.

        Parameters
        ----------
        confidence_level : float, default=0.95
            In (0, 1).

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple ``(low, high)`` (arrays for the aggregated test, one
            entry per kernel).

        Notes
        -----
        With ``z`` the normal quantile of ``(1 + confidence_level) / 2``, the
        lower limit is ``max(mmd2 - z se, 0)``. The upper limit allows for the
        standard error growing with MMD^2: the statistic's leading term has
        variance proportional to MMD^2 (that of the witness function), so the
        upper limit is the ``theta`` solving ``theta - mmd2 = z se sqrt(theta /
        f)``, ``f = max(mmd2, se)`` (or ``mmd2 + z se`` when that is below
        ``f``, where the statistic is indistinguishable from 0). The plain
        symmetric interval ``mmd2 -/+ z se`` under-covers on moderate
        alternatives, since a low estimate comes with a low standard error;
        ``benchmarks/bench_tables.py`` measures the coverage of both (the
        benchmarks page). Trust it from about a thousand
        points (resampling units) per sample; under the null the jackknife
        over-estimates the variance of the degenerate statistic, so the
        interval is conservative there.
        """
        return self._interval(confidence_level)


def result(test, sums, m, n):
    """The :class:`MMDTestResult` of a fitted test: its attributes, and each
    kernel's MMD^2 with its jackknife standard error (one kernel: floats)."""
    mmd2, se = np.array([effect_size(s, m, n) for s in sums]).T
    if len(sums) == 1:
        mmd2, se = float(mmd2[0]), float(se[0])
    return MMDTestResult(
        statistic=test.statistic_,
        pvalue=float(test.p_value_),
        null_distribution=test.null_distribution_,
        alpha=test.alpha,
        mmd2=mmd2,
        standard_error=se,
        n_samples_x=m,
        n_samples_y=n,
    )
