"""The numerical core of a conditional independence test in linear time: a
conditional HSIC of cross-fitted ridge residuals of random features.

With features ``a(x)``, ``b(y)``, ``c(z)`` of ``n`` rows, regress ``F = [a | b]``
on ``C = c(z)`` by ridge, each fold of rows from a fit on the other folds
(:class:`RidgeFolds`, from sufficient statistics accumulated chunk by chunk),
and test whether the residuals ``r, s`` are uncorrelated: ``T = n ||(1/n)
sum_i r_i s_i^T||_F^2``, calibrated by a multiplier bootstrap of the unit sums of
``vec(r_i s_i^T)`` (:class:`ConditionalParts`). Memory is ``O(K Dz (Dz + Df))``
for the regression and ``O(G Dx Dy)`` for ``G`` units, whatever ``n``.

The level rests on the product of the two regressions' errors being
``o(n^-1/2)`` (Shah & Peters 2020), so ``c`` must grow with ``n``. Measured
(``benchmarks/conditional_level_probe.py``): Gaussian random Fourier features
of z at the median bandwidth times {0.5, 1, 2}, :func:`n_z_features` of them
(``~ 4 sqrt(n)`` in all, capped at 600), ``K = 5`` folds, penalties chosen per
target by cross-validation over :data:`PENALTIES`, and 10 cos/sin features of
each of x and y (``Dx = Dy = 10``).
"""

import numpy as np

# Ridge penalties lambda of ``C'C + n_train lambda I`` (centered C), half a
# decade apart: for features of unit norm (cos/sin random Fourier features)
# the eigenvalues of C'C / n sum to at most 1, so 10 fits the mean only and
# 1e-8 is the unpenalized fit up to rounding.
PENALTIES = np.logspace(-8, 1, 19)


def n_z_features(n_rows, *, factor=10.0, low=48, cap=600):
    """The number of z-features for ``n_rows`` rows: ``factor * sqrt(n)``
    rounded to a multiple of 6, between ``low`` and ``cap``.

    Parameters
    ----------
    n_rows : int
        Rows of the test.
    factor : float, default=4.0
        Features per square root of a row.
    low, cap : int, default=48, 600
        Bounds. The cap keeps ``C'C`` at ``n Dz^2`` flops (about 3 s
        single-threaded at ``n = 10^5``, ``Dz = 600``).

    Returns
    -------
    n_features : int
        A multiple of 6: three bandwidths of cos/sin pairs.

    Notes
    -----
    The residual bias shrinks as the z-regression gets richer; the ridge
    penalty, chosen by cross-validation, guards against the variance. Too few
    features leave ``E[a(X) | Z]`` in the residuals of both x and y, and the
    level grows with ``n`` (RCIT's 100 features, unpenalized: type-I error
    far above alpha on strong non-linear nulls).

    Examples
    --------
    >>> from skmmd.mmd._conditional import n_z_features
    >>> n_z_features(1000), n_z_features(10**4), n_z_features(10**6)
    (126, 402, 600)
    """
    d = int(round(factor * np.sqrt(n_rows) / 6.0)) * 6
    return int(min(max(d, low), cap))


class RidgeFolds:
    """Cross-fitted ridge regression of several targets on features, from
    per-fold sufficient statistics.

    Parameters
    ----------
    n_folds : int
        Number of folds ``K >= 2``; rows of fold ``k`` get residuals from the
        fit on the other folds.
    penalties : array-like of shape (n_penalties,), default=None
        Candidate ``lambda`` of ``C'C + n_train lambda I``; ``None`` is
        :data:`PENALTIES` (``logspace(-8, 1, 19)``).

    Attributes
    ----------
    counts_ : ndarray of shape (n_folds,)
        Rows of each fold.
    cv_error_ : ndarray of shape (n_penalties, n_targets)
        Held-out squared error of each penalty and target, summed over folds.
    penalty_ : ndarray of shape (n_targets,)
        The penalty chosen for each target.
    coef_ : ndarray of shape (n_folds, n_features, n_targets)
        ``W_k``, the fit on all folds but ``k``.
    intercept_ : ndarray of shape (n_folds, n_targets)
        Its intercepts (unpenalized).

    Notes
    -----
    Each fold ``k`` keeps ``n_k``, ``sum c``, ``sum f``, ``C_k'C_k``,
    ``C_k'F_k`` and ``sum f^2``. The training set ``-k`` (all folds but ``k``)
    is centered by its means ``mc, mf``: ``S = C'C - n mc mc'``, ``P = C'F - n
    mc mf'``, and ``W = V diag(1 / (s + n lambda)) V'P`` from ``S = V diag(s)
    V'``. With ``d_i = c_i - mc`` and ``e_i = f_i - mf`` over held-out fold
    ``k``, the held-out squared error of target ``t`` is ``sum e_it^2 - 2 w_t'
    sum d_i e_it + w_t' (sum d_i d_i') w_t``, each sum a combination of fold
    ``k``'s statistics: ``O(Dz^2 Df)`` per penalty after one eigendecomposition
    per fold. The chosen penalty minimizes the error summed over folds; the
    same ``K`` fits then give the cross-fitted residuals (the penalty, one
    number per target, is the only part of a fold's fit that saw the fold).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd._conditional import RidgeFolds
    >>> rng = np.random.default_rng(0)
    >>> C = rng.normal(size=(200, 3))
    >>> F = C @ [[1.0], [2.0], [0.0]] + 0.1 * rng.normal(size=(200, 1))
    >>> folds = np.arange(200) % 5
    >>> ridge = RidgeFolds(5).add(C[:120], F[:120], folds[:120])
    >>> ridge = ridge.add(C[120:], F[120:], folds[120:]).fit()
    >>> R = ridge.residuals(C, F, folds)
    >>> bool(R.std() < 0.12)
    True
    """

    def __init__(self, n_folds, penalties=None, split=None):
        self.n_folds = n_folds
        self.penalties = penalties
        self.split = split

    def add(self, C, F, folds):
        """Accumulate the statistics of a chunk of rows.

        Parameters
        ----------
        C : array-like of shape (n_chunk, n_features)
            Regressors (features of z).
        F : array-like of shape (n_chunk, n_targets)
            Targets (features of x and of y, side by side).
        folds : array-like of int of shape (n_chunk,)
            Fold of each row, in ``0 .. n_folds - 1``.

        Returns
        -------
        self : RidgeFolds
            This object.
        """
        C = np.asarray(C, dtype=np.float64)
        F = np.asarray(F, dtype=np.float64)
        folds = np.asarray(folds)
        K = self.n_folds
        if K < 2:
            raise ValueError(f"RidgeFolds needs n_folds >= 2; got {K}.")
        if C.ndim != 2 or F.ndim != 2 or not C.shape[0] == F.shape[0] == len(folds):
            raise ValueError(
                "C and F must be 2-D with one row per fold label; got shapes "
                f"{C.shape}, {F.shape} and {len(folds)} labels."
            )
        if len(folds) and (folds.min() < 0 or folds.max() >= K):
            raise ValueError(f"Fold labels must lie in 0..{K - 1}.")
        dz, df = C.shape[1], F.shape[1]
        if not hasattr(self, "_n"):
            self._n = np.zeros(K)
            self._sc, self._sf = np.zeros((K, dz)), np.zeros((K, df))
            self._cc, self._cf = np.zeros((K, dz, dz)), np.zeros((K, dz, df))
            self._ff = np.zeros((K, df))
        elif self._cf.shape[1:] != (dz, df):
            raise ValueError(
                f"Chunks must keep their widths {self._cf.shape[1:]}; got {(dz, df)}."
            )
        for k in range(K):
            rows = folds == k
            Ck, Fk = C[rows], F[rows]
            self._n[k] += Ck.shape[0]
            self._sc[k] += Ck.sum(axis=0)
            self._sf[k] += Fk.sum(axis=0)
            self._cc[k] += Ck.T @ Ck
            self._cf[k] += Ck.T @ Fk
            self._ff[k] += np.einsum("ij,ij->j", Fk, Fk)
        return self

    def _plans(self, df):
        """``(columns, train)`` pairs: ``train[k, l]`` when fold ``k``'s fit
        of those target columns uses fold ``l``."""
        K = self.n_folds
        step = np.subtract.outer(np.arange(K), np.arange(K)) % K
        distance = np.minimum(step, K - step)  # cyclic distance of two folds
        if self.split is None:
            return [(np.arange(df), distance > 0)]
        odd, even = distance % 2 == 1, (distance % 2 == 0) & (distance > 0)
        return [(np.arange(self.split), odd), (np.arange(self.split, df), even)]

    def fit(self):
        """Choose a penalty per target by cross-validation and fit the ``K``
        cross-fitted regressions.

        Returns
        -------
        self : RidgeFolds
            This object, fitted.
        """
        if not hasattr(self, "_n"):
            raise ValueError("RidgeFolds.fit needs rows: call add first.")
        pens = PENALTIES if self.penalties is None else self.penalties
        pens = np.atleast_1d(np.asarray(pens, dtype=np.float64))
        if pens.ndim != 1 or np.any(pens < 0):
            raise ValueError("penalties must be a 1-D array of numbers >= 0.")
        dz, df = self._cf.shape[1:]
        K, L = self.n_folds, len(pens)
        if self.split is not None and not (K >= 4 and 0 < self.split < df):
            raise ValueError(
                "split needs n_folds >= 4 and 0 < split < n_targets; got "
                f"n_folds={K}, split={self.split}, n_targets={df}."
            )
        error = np.zeros((L, df))
        fits = []
        for cols, train in self._plans(df):
            stats = (self._n, self._sc, self._sf[:, cols], self._cc)
            stats += (self._cf[:, :, cols], self._ff[:, cols])
            for k in range(K):
                n, sc, sf, cc, cf, _ = (s[train[k]].sum(axis=0) for s in stats)
                if n < 2:
                    raise ValueError("Every fold's training set needs 2 rows.")
                mc, mf = sc / n, sf / n
                s, V = np.linalg.eigh(cc - n * np.outer(mc, mc))
                s = np.maximum(s, 0.0)  # rounding can make flat directions < 0
                P = V.T @ (cf - n * np.outer(mc, mf))
                fits.append((k, cols, n, mc, mf, s, V, P))
                # Fold k's sums of d d', d e and e^2 centered at training means.
                nk, sck, sfk = (s[k] for s in stats[:3])
                dd = stats[3][k] - np.outer(mc, sck)
                dd += -np.outer(sck, mc) + nk * np.outer(mc, mc)
                de = stats[4][k] - np.outer(mc, sfk) - np.outer(sck - nk * mc, mf)
                ee = stats[5][k] - 2.0 * mf * sfk + nk * mf**2
                Q = P[:, None, :] / (s[:, None, None] + n * pens[None, :, None])
                HQ = (V.T @ dd @ V @ Q.reshape(dz, L * len(cols))).reshape(Q.shape)
                err = ee - 2.0 * np.einsum("jlt,jt->lt", Q, V.T @ de)
                error[:, cols] += err + np.einsum("jlt,jlt->lt", Q, HQ)
        self.cv_error_ = error
        self.penalty_ = pens[np.argmin(error, axis=0)]
        self.counts_ = self._n.copy()
        self.coef_ = np.empty((K, dz, df))
        self.intercept_ = np.empty((K, df))
        for k, cols, n, mc, mf, s, V, P in fits:
            W = V @ (P / (s[:, None] + n * self.penalty_[cols]))
            self.coef_[k][:, cols] = W
            self.intercept_[k, cols] = mf - mc @ W
        return self

    def residuals(self, C, F, folds):
        """``F - (C W_k + b_k)`` for the rows of each fold ``k``.

        Parameters
        ----------
        C : array-like of shape (n_chunk, n_features)
            Regressors.
        F : array-like of shape (n_chunk, n_targets)
            Targets.
        folds : array-like of int of shape (n_chunk,)
            Fold of each row, as given to :meth:`add`.

        Returns
        -------
        residuals : ndarray of shape (n_chunk, n_targets)
            Residuals of each row from the fit that did not see its fold.
        """
        if not hasattr(self, "coef_"):
            raise ValueError("RidgeFolds.residuals needs a fit: call fit first.")
        C = np.asarray(C, dtype=np.float64)
        out = np.array(F, dtype=np.float64)
        folds = np.asarray(folds)
        for k in range(self.n_folds):
            rows = folds == k
            out[rows] -= C[rows] @ self.coef_[k] + self.intercept_[k]
        return out


def residual_products(R, S):
    """Row-wise ``vec(r_i s_i')``: the terms of the residual cross-covariance.

    Parameters
    ----------
    R : array-like of shape (n, Dx)
        Residuals of the x-features.
    S : array-like of shape (n, Dy)
        Residuals of the y-features.

    Returns
    -------
    products : ndarray of shape (n, Dx * Dy)
        Entry ``(i, j Dy + l)`` is ``R_ij S_il``.

    Examples
    --------
    >>> from skmmd.mmd._conditional import residual_products
    >>> residual_products([[1.0, 2.0]], [[3.0, 4.0, 5.0]])
    array([[ 3.,  4.,  5.,  6.,  8., 10.]])
    """
    R = np.asarray(R, dtype=np.float64)
    S = np.asarray(S, dtype=np.float64)
    return (R[:, :, None] * S[:, None, :]).reshape(R.shape[0], -1)


def multiplier_weights(rng, n_resamples, n_units, kind="rademacher"):
    """I.i.d. multiplier-bootstrap weights, one row per resample.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the draws.
    n_resamples, n_units : int
        Shape ``(B, G)`` of the weights.
    kind : {"rademacher", "normal"}, default="rademacher"
        Random signs, or standard normal weights.

    Returns
    -------
    W : ndarray of shape (n_resamples, n_units)
        The weights.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd._conditional import multiplier_weights
    >>> W = multiplier_weights(np.random.default_rng(0), 3, 4)
    >>> W.shape, bool(np.all(np.abs(W) == 1.0))
    ((3, 4), True)
    """
    if kind == "rademacher":
        return 2.0 * rng.integers(0, 2, size=(n_resamples, n_units)) - 1.0
    if kind == "normal":
        return rng.standard_normal((n_resamples, n_units))
    raise ValueError(f"kind must be 'rademacher' or 'normal'; got {kind!r}.")


class ConditionalParts:
    """The conditional HSIC of unit sums of residual products and its
    multiplier bootstrap.

    Parameters
    ----------
    U : array-like of shape (G, D)
        Sum of :func:`residual_products` over the rows of each unit.
    sizes : array-like of shape (G,)
        Rows in each unit.

    Attributes
    ----------
    G : int
        Number of units.
    n : float
        Number of rows.

    Notes
    -----
    The statistic is ``T = ||sum_g U_g||^2 / n = n ||(1/n) sum_i r_i
    s_i'||_F^2``. Under H0 ``E[r s'] = 0`` and ``sum_g U_g / sqrt(n)`` is
    asymptotically ``N(0, Sigma)`` with ``Sigma = E[u u']`` per row; the draws
    ``sum_g w_g U_g / sqrt(n)``, i.i.d. ``w_g`` of mean 0 and variance 1,
    reproduce it without assuming ``Sigma = E[r r'] kron E[s s']``, which
    fails under heteroscedastic noise. The effect size ``(||sum_g U_g||^2 -
    sum_g ||U_g||^2) / (n^2 - sum_g m_g^2)`` keeps the cross terms of
    distinct units only, so it is unbiased for ``||E[r s']||_F^2`` when rows
    are independent with a common mean; deleting unit ``h`` changes each sum
    by one term, so its jackknife costs ``O(G D)``.

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

    def __init__(self, U, sizes):
        self.U = np.asarray(U, dtype=np.float64)
        self.sizes = np.asarray(sizes, dtype=np.float64)
        if self.U.ndim != 2 or self.sizes.shape != (self.U.shape[0],):
            raise ValueError(
                "U must be 2-D with one size per row; got shapes "
                f"{self.U.shape} and {self.sizes.shape}."
            )
        self.G = self.U.shape[0]
        self.n = float(self.sizes.sum())
        self.total = self.U.sum(axis=0)
        # Rounding of any weighted sum is within eps * sum_g |w_g| |U_g|.
        absolute = np.abs(self.U).sum(axis=0)
        self._abs2 = float(absolute @ absolute)

    def observed(self):
        """The statistic ``T`` and its rounding scale.

        Returns
        -------
        statistic : float
            ``||sum_g U_g||^2 / n``.
        scale : float
            Rounding scale: null values within ``100 eps`` of it are ties.
        """
        return float(self.total @ self.total) / self.n, self._abs2 / self.n

    def statistics(self, W):
        """Bootstrap statistics ``||w_b U||^2 / n`` for the rows of ``W``.

        Parameters
        ----------
        W : ndarray of shape (B, G)
            Multiplier weights (:func:`multiplier_weights`).

        Returns
        -------
        statistics : ndarray of shape (B,)
            One per row of ``W``.
        scales : ndarray of shape (B,)
            Their rounding scales.
        """
        WU = np.asarray(W, dtype=np.float64) @ self.U
        stat = np.einsum("bd,bd->b", WU, WU) / self.n
        scale = np.abs(W).max(axis=1, initial=0.0) ** 2 * self._abs2 / self.n
        return stat, scale

    def effect(self):
        """An effect size ``~ ||E[r s']||_F^2`` and its delete-one-unit
        jackknife standard error.

        Returns
        -------
        effect : float
            ``(||sum_g U_g||^2 - sum_g ||U_g||^2) / (n^2 - sum_g m_g^2)``.
        se : float
            Jackknife standard error (NaN with fewer than 3 units).
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
        G = self.G
        se = np.sqrt((G - 1) / G * np.sum((cross - cross.mean()) ** 2))
        return float(effect), float(se)
