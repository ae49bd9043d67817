"""The conditional HSIC statistic: with cross-fitted ridge residuals ``r, s``
of features of x and of y on features of z, and weights ``g(z)``, ``T = n
||(1/n) sum_i r_i g_i' s_i'||^2`` from unit sums of the row products
``vec(r_i g_i' s_i')`` (:func:`residual_products`), its multiplier-bootstrap
draws and its effect size (:class:`ConditionalParts`). The regression is
:mod:`skmmd.independence._ridge`; the bootstrap's scale
:mod:`skmmd.independence._wild_bootstrap`.
"""

import numpy as np


def residual_products(R, S, G=None):
    """Row-wise ``vec(r_i g_i' s_i')``: the terms of the weighted residual
    cross-covariance.

    Parameters
    ----------
    R, S : array-like of shape (n, Dx) and (n, Dy)
        Residuals of the x-features and of the y-features.
    G : array-like of shape (n, Dg) or None, default=None
        Weights of each row (features of z); None: one weight of 1.

    Returns
    -------
    products : ndarray of shape (n, Dx * Dg * Dy)
        Entry ``(i, (j Dg + m) Dy + l)`` is ``R_ij G_im S_il``.

    Notes
    -----
    With ``G = g(z)``, ``r_i g_i'`` is the residual of the features ``a(x)
    g(z)'`` of ``(x, z)`` on z (``E[a(X) g(Z)' | Z] = E[a(X) | Z] g(Z)'``): no
    further regression. Under H0 ``E[g(Z) r s'] = E[g(Z) E[r s' | Z]] = 0``
    for every ``g``, while the unweighted ``E[r s']`` also vanishes when the
    conditional covariance of x and y changes sign with z (KCI's kernel on
    ``(X, Z)`` for the same reason).

    Examples
    --------
    >>> from skmmd.mmd._conditional import residual_products
    >>> residual_products([[1.0, 2.0]], [[3.0, 4.0, 5.0]])
    array([[ 3.,  4.,  5.,  6.,  8., 10.]])
    >>> residual_products([[1.0]], [[3.0]], G=[[1.0, -2.0]])
    array([[ 3., -6.]])
    """
    R, S = np.asarray(R, dtype=np.float64), np.asarray(S, dtype=np.float64)
    if G is not None:
        G = np.asarray(G, dtype=np.float64)
        R = (R[:, :, None] * G[:, None, :]).reshape(R.shape[0], -1)
    return (R[:, :, None] * S[:, None, :]).reshape(R.shape[0], -1)


class ConditionalParts:
    """The conditional HSIC of unit sums of residual products and its
    multiplier bootstrap.

    Parameters
    ----------
    U : array-like of shape (G, D)
        Sum of :func:`residual_products` over the rows of each unit.
    sizes : array-like of shape (G,)
        Rows in each unit.
    null_scale : float, default=1.0
        Factor of the bootstrap statistics
        (:func:`skmmd.independence._wild_bootstrap.null_scale`).

    Attributes
    ----------
    G, n : int and float
        Numbers of units and of rows.

    Notes
    -----
    ``T = ||sum_g U_g||^2 / n = n ||(1/n) sum_i r_i s_i'||_F^2``. Under H0
    ``sum_g U_g / sqrt(n)`` is asymptotically ``N(0, Sigma)``, ``Sigma = E[u
    u']`` per row; the draws ``sum_g w_g U_g / sqrt(n)`` (i.i.d. ``w_g``, mean
    0, variance 1) reproduce it without assuming ``Sigma = E[r r'] kron E[s
    s']``, false under heteroscedastic noise. The effect ``(||sum_g U_g||^2 -
    sum_g ||U_g||^2) / (n^2 - sum_g m_g^2)`` keeps cross terms of distinct
    units only: unbiased for ``||E[r s']||_F^2`` when rows are independent;
    deleting unit ``h`` changes each sum by one term (jackknife in ``O(G D)``).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd._conditional import ConditionalParts
    >>> parts = ConditionalParts([[1.0, 0.0], [1.0, 2.0]], [1, 1])
    >>> parts.observed()[0]  # ||(2, 2)||^2 / 2
    4.0
    >>> parts.statistics(np.array([[1.0, -1.0]]))[0]  # ||(0, -2)||^2 / 2
    array([2.])
    """

    def __init__(self, U, sizes, null_scale=1.0):
        self.null_scale = float(null_scale)
        self.U = np.asarray(U, dtype=np.float64)
        self.sizes = np.asarray(sizes, dtype=np.float64)
        if self.U.ndim != 2 or self.sizes.shape != (self.U.shape[0],):
            shapes = f"{self.U.shape} and {self.sizes.shape}"
            raise ValueError(f"U must be 2-D with one size per row; got {shapes}.")
        self.G, self.n = self.U.shape[0], float(self.sizes.sum())
        self.total = self.U.sum(axis=0)
        # Rounding of any weighted sum is within eps * sum_g |w_g| |U_g|.
        absolute = np.abs(self.U).sum(axis=0)
        self._abs2 = float(absolute @ absolute)

    def observed(self):
        """The statistic ``T = ||sum_g U_g||^2 / n`` and its rounding scale
        (null values within ``100 eps`` times it are ties).

        Returns
        -------
        statistic, scale : float
            The statistic and its rounding scale.
        """
        return float(self.total @ self.total) / self.n, self._abs2 / self.n

    def statistics(self, W):
        """Bootstrap statistics ``||w_b U||^2 / n`` (times ``null_scale``)
        for the rows of ``W``.

        Parameters
        ----------
        W : ndarray of shape (B, G)
            Multiplier weights: one row of i.i.d. mean-0, variance-1
            weights per draw.

        Returns
        -------
        statistics, scales : ndarray of shape (B,)
            One per row of ``W``, and their rounding scales.
        """
        WU = np.asarray(W, dtype=np.float64) @ self.U
        stat = np.einsum("bd,bd->b", WU, WU) * (self.null_scale / self.n)
        scale = np.abs(W).max(axis=1, initial=0.0) ** 2 * self._abs2 / self.n
        scale = scale * self.null_scale
        return stat, scale

    def effect(self):
        """An effect size ``~ ||E[r s']||_F^2`` and its delete-one-unit
        jackknife standard error.

        Returns
        -------
        effect, se : float
            ``(||sum_g U_g||^2 - sum_g ||U_g||^2) / (n^2 - sum_g m_g^2)`` and
            its jackknife standard error (NaN with fewer than 3 units).
        """
        S, U, m = self.total, self.U, self.sizes
        norms = np.einsum("gd,gd->g", U, U)
        square, own, pairs = float(S @ S), norms.sum(), self.n**2 - m @ m
        effect = (square - own) / pairs
        if self.G < 3:
            return float(effect), float("nan")
        # Without unit h: ||S - U_h||^2 - (own - ||U_h||^2) over its pairs.
        cross = (square - 2.0 * (U @ S) + 2.0 * norms - own) / (
            (self.n - m) ** 2 - (m @ m - m**2)
        )
        se = np.sqrt((1 - 1 / self.G) * np.sum((cross - cross.mean()) ** 2))
        return float(effect), float(se)
