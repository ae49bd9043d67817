"""The squared norm of a mean of row features that vanish in mean under H0
(``T = ||sum_g U_g||^2 / n`` from unit sums ``U_g``), its multiplier-bootstrap
draws and its unbiased effect size: one statistic for the conditional HSIC
(:mod:`._conditional`) and the kernel Stein discrepancy (:mod:`._stein`).
"""

import numpy as np


class MultiplierParts:
    """The squared norm of the mean of row features that have mean 0 under
    H0, from their unit sums, and its multiplier bootstrap: the conditional
    HSIC of residual products, the kernel Stein discrepancy of Stein features.

    Parameters
    ----------
    U : array-like of shape (G, D)
        Sum of the row features over the rows of each unit (e.g.
        :func:`~skmmd.statistics._conditional.residual_products`).
    sizes : array-like of shape (G,)
        Rows in each unit.
    null_scale : float, default=1.0
        Factor of the bootstrap statistics
        (:func:`skmmd.conditional._wild_bootstrap.null_scale`).
    centered : bool, default=False
        Draw the bootstrap from the unit sums centered at the mean row
        (``U_g - m_g S / n``), as for a mean whose value is unknown. With
        long units (blocks of rows in time order) a small mean of the row
        features left by a regression's bias enters each unit's square
        ``m_g`` times over, and the uncentered draws would widen the null by
        it; centered draws estimate the spread about the mean only. Their
        spread is that of deviations from an estimated mean, ``1 - sum_g
        m_g^2 / n^2`` of the spread about the true one (``1 - 1/G`` for
        units of one size, independent units), so the draws are divided by
        it: with few long blocks the null would otherwise be too narrow.

    Attributes
    ----------
    G, n : int and float
        Numbers of units and of rows.

    Notes
    -----
    With row features ``u_i`` (for the conditional HSIC ``vec(r_i s_i')``),
    ``T = ||sum_g U_g||^2 / n = n ||(1/n) sum_i u_i||^2``. Under H0 ``E u =
    0`` and ``sum_g U_g / sqrt(n)`` is asymptotically ``N(0, Sigma)``,
    ``Sigma = E[u u']`` per row; the draws ``sum_g w_g U_g / sqrt(n)``
    (i.i.d. ``w_g``, mean 0, variance 1) reproduce it without assuming any
    structure of ``Sigma`` (for the conditional HSIC, ``E[r r'] kron E[s
    s']`` is false under heteroscedastic noise). The effect ``(||sum_g
    U_g||^2 - sum_g ||U_g||^2) / (n^2 - sum_g m_g^2)`` keeps cross terms of
    distinct units only: unbiased for ``||E u||^2`` when rows are
    independent; deleting unit ``h`` changes each sum by one term (jackknife
    in ``O(G D)``).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._mean_norm import MultiplierParts
    >>> parts = MultiplierParts([[1.0, 0.0], [1.0, 2.0]], [1, 1])
    >>> parts.observed()[0]  # ||(2, 2)||^2 / 2
    4.0
    >>> parts.statistics(np.array([[1.0, -1.0]]))[0]  # ||(0, -2)||^2 / 2
    array([2.])
    """

    def __init__(self, U, sizes, null_scale=1.0, centered=False):
        self.null_scale = float(null_scale)
        self.centered = bool(centered)
        self.U = np.asarray(U, dtype=np.float64)
        self.sizes = np.asarray(sizes, dtype=np.float64)
        if self.U.ndim != 2 or self.sizes.shape != (self.U.shape[0],):
            shapes = f"{self.U.shape} and {self.sizes.shape}"
            raise ValueError(f"U must be 2-D with one size per row; got {shapes}.")
        self.G, self.n = self.U.shape[0], float(self.sizes.sum())
        # The centered draws' spread relative to the spread about the true
        # mean (the sum of squared deviations from an estimated mean).
        kept = (
            1.0 - float(self.sizes @ self.sizes) / self.n**2 if self.centered else 1.0
        )
        self._draw_scale = self.null_scale / kept if kept > 0 else self.null_scale
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
        W = np.asarray(W, dtype=np.float64)
        WU = W @ self.U
        if self.centered:
            WU -= np.outer(W @ self.sizes, self.total / self.n)
        stat = np.einsum("bd,bd->b", WU, WU) * (self._draw_scale / self.n)
        scale = np.abs(W).max(axis=1, initial=0.0) ** 2 * self._abs2 / self.n
        scale = scale * self._draw_scale
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


class StackedParts:
    """Several :class:`MultiplierParts` of the same units (one per kernel),
    bootstrapped with the same signs: the aggregated tests' ``T`` rows.

    Parameters
    ----------
    parts : list of MultiplierParts
        Of the same units (same ``G`` and sizes).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._mean_norm import MultiplierParts, StackedParts
    >>> a = MultiplierParts([[1.0], [1.0]], [1, 1])
    >>> b = MultiplierParts([[1.0, 0.0], [0.0, 1.0]], [1, 1])
    >>> stacked = StackedParts([a, b])
    >>> stacked.observed()[0]  # ||(2)||^2 / 2 and ||(1, 1)||^2 / 2
    array([2., 1.])
    >>> stacked.statistics(np.array([[1.0, -1.0]]))[0]
    array([[0., 1.]])
    """

    def __init__(self, parts):
        self.parts = list(parts)
        self.G, self.n = self.parts[0].G, self.parts[0].n
        if any(p.G != self.G or p.n != self.n for p in self.parts):
            raise ValueError("StackedParts needs parts of the same units.")

    def observed(self):
        """Each kernel's statistic and rounding scale, as arrays (K,)."""
        pairs = [p.observed() for p in self.parts]
        return np.array([s for s, _ in pairs]), np.array([c for _, c in pairs])

    def statistics(self, W):
        """Each draw's statistic of each kernel, (B, K), and their scales."""
        pairs = [p.statistics(W) for p in self.parts]
        return (
            np.column_stack([s for s, _ in pairs]),
            np.column_stack([c for _, c in pairs]),
        )

    def effect(self):
        """Each kernel's effect and its jackknife standard error, arrays (K,)."""
        pairs = [p.effect() for p in self.parts]
        return np.array([e for e, _ in pairs]), np.array([s for _, s in pairs])
