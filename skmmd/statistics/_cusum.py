"""The largest kernel CUSUM of a segment of rows in time order (the most
cost one split removes), from the unit sums of its features, and its
multiplier-bootstrap draws: the change point family's test of a segment."""

import numpy as np

from .._utils import _budgets


class CusumParts:
    """The largest standardized CUSUM of features over the ends of units in
    time order, ``T = max_j n / (k_j (n - k_j)) ||sum_{g <= j} (U_g - m_g
    S / n)||^2``, and its multiplier bootstrap.

    Parameters
    ----------
    U : array-like of shape (G, D)
        Sum of the rows' features over each unit, in time order.
    sizes : array-like of shape (G,)
        Rows in each unit.
    null_scale : float, default=1.0
        Factor of the bootstrap statistics (the correction of a block
        null for the dependence between neighbouring blocks).
    split_centered : bool, default=False
        Draw the bootstrap from the unit sums centered on each side of the
        observed statistic's split (:meth:`residuals`), as for a change
        there: under a change the sums centered at the segment's one mean
        carry the change itself, which would widen the null.

    Attributes
    ----------
    G, n : int and float
        Numbers of units and of rows.
    ends : ndarray of shape (G - 1,)
        The splits ``k_j`` the maximum runs over (each unit's end but the
        last), in rows from the segment's start.

    Notes
    -----
    At a split ``k`` the statistic is the cost the split removes from the
    segment, ``k (n - k) / n`` times the squared MMD of its two parts: a
    squared norm of the centered partial sum ``C_k = sum_{t < k} (z_t -
    zbar)``. Under H0 (no change) the process ``C_k / sqrt(n)`` tends to a
    Brownian bridge in feature space; the draws ``C*_k = sum_{g <= j} w_g
    V_g - (k / n) sum_g w_g V_g`` with ``V_g`` the centered unit sums and
    i.i.d. ``w_g`` of mean 0 and variance 1 reproduce it, units of
    consecutive rows keeping their dependence (a dependent multiplier
    bootstrap, Bucchia & Wendler 2017). All splits share each draw, so the
    null is that of the maximum: the search over the location is paid for.

    The draws' squared norms are read from the Gram matrix ``V V'`` of the
    ``G`` centered unit sums by two products with the weights, so they cost
    ``O(B G^2)`` after ``O(G^2 D)`` once.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._cusum import CusumParts
    >>> parts = CusumParts([[0.0], [0.0], [2.0], [2.0]], [1, 1, 1, 1])
    >>> parts.observed()[0]  # ||(-1) + (-1)||^2 * 4 / (2 * 2)
    4.0
    >>> int(parts.ends[parts.argmax()])
    2
    """

    def __init__(self, U, sizes, null_scale=1.0, split_centered=False):
        self.null_scale = float(null_scale)
        U = np.asarray(U, dtype=np.float64)
        self.sizes = np.asarray(sizes, dtype=np.float64)
        if U.ndim != 2 or self.sizes.shape != (U.shape[0],) or U.shape[0] < 2:
            shapes = f"{U.shape} and {self.sizes.shape}"
            raise ValueError(
                f"U must be 2-D with one size per row and 2 rows; got {shapes}."
            )
        self.G, self.n = U.shape[0], float(self.sizes.sum())
        V = U - np.outer(self.sizes, U.sum(axis=0) / self.n)
        self.ends = np.cumsum(self.sizes)[:-1]
        self.weights = self.n / (self.ends * (self.n - self.ends))
        self.batch = max(1, _budgets.BATCH_ENTRIES // (4 * self.G))
        partial = np.cumsum(V, axis=0)[:-1]
        self._observed = self.weights * np.einsum("jd,jd->j", partial, partial)
        absolute = np.abs(V).sum(axis=0)
        self._abs2 = float(absolute @ absolute) * float(self.weights.max())
        self._U, self._V, self._split_centered = U, V, split_centered
        self._gram = None

    def _grams(self):
        """The Gram matrix of the draws' unit sums and its strict lower
        triangle, computed at the first draw (units by units, never rows by
        rows): every draw is a norm of a combination of those sums."""
        if self._gram is None:
            V = self.residuals() if self._split_centered else self._V
            M = V @ V.T
            self._gram = (M, np.tril(M, -1))
        return self._gram

    def residuals(self):
        """The unit sums centered on each side of the largest CUSUM's split
        (each side at its own mean row), shape (G, D)."""
        j = self.argmax() + 1
        out = np.empty_like(self._U)
        for side in (slice(0, j), slice(j, self.G)):
            U, m = self._U[side], self.sizes[side]
            out[side] = U - np.outer(m, U.sum(axis=0) / m.sum())
        return out

    def observed(self):
        """The statistic ``T`` and its rounding scale (null values within
        ``100 eps`` times it are ties).

        Returns
        -------
        statistic, scale : float
            The statistic and its rounding scale.
        """
        return float(self._observed.max()), self._abs2

    def argmax(self):
        """The index into :attr:`ends` of the split of the largest CUSUM."""
        return int(np.argmax(self._observed))

    def statistics(self, W):
        """The largest CUSUM of each draw, the protocol of
        :meth:`~skmmd.statistics._mean_norm.MultiplierParts.statistics`.

        Parameters
        ----------
        W : ndarray of shape (B, G)
            A draw per row: each unit's weight (mean 0, variance 1).

        Returns
        -------
        statistics, scales : ndarray of shape (B,)
            Each draw's maximum over the splits (times ``null_scale``) and
            its rounding scale.
        """
        W = np.asarray(W, dtype=np.float64)
        # With P_j = sum_{g <= j} w_g V_g: ||P_j||^2 grows by 2 w_j (M w)_{<j}
        # + w_j^2 M_jj, and P_j'P_G = sum_{g <= j} w_g (M w)_g.
        M, lower = self._grams()
        steps = W * (2.0 * (W @ lower.T) + W * np.diag(M))
        square = np.cumsum(steps, axis=1)
        cross = np.cumsum(W * (W @ M), axis=1)
        share = self.ends / self.n
        bridge = (
            square[:, :-1] - 2.0 * share * cross[:, :-1] + share**2 * square[:, -1:]
        )
        stat = (bridge * self.weights).max(axis=1) * self.null_scale
        scale = np.abs(W).max(axis=1, initial=0.0) ** 2 * self._abs2
        return stat, scale * self.null_scale
