"""The conditional HSIC statistic: with cross-fitted ridge residuals ``r, s``
of features of x and of y on features of z, and weights ``g(z)``, ``T = n
||(1/n) sum_i r_i g_i' s_i'||^2`` from unit sums of the row products
``vec(r_i g_i' s_i')`` (:func:`residual_products`); their statistic,
multiplier-bootstrap draws and effect size are
:class:`~skmmd.statistics._mean_norm.MultiplierParts`. The regression is
:mod:`skmmd.conditional._ridge`; the bootstrap's scale
:mod:`skmmd.conditional._wild_bootstrap`.
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
    >>> from skmmd.statistics._conditional import residual_products
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
