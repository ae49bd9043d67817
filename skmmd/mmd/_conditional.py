"""The core of a linear-time conditional independence test: a conditional
HSIC of cross-fitted ridge residuals of random features. With features
``a(x)``, ``b(y)``, ``c(z)`` and weights ``g(z)`` of ``n`` rows, regress ``F
= [a | b]`` on ``C = c(z)`` by ridge, each fold of rows from a fit on other
folds (:class:`RidgeFolds`, from sufficient statistics accumulated chunk by
chunk), and test whether the residuals ``r, s`` are uncorrelated given z:
``T = n ||(1/n) sum_i r_i g_i' s_i'||^2``, with a multiplier bootstrap of
unit sums of ``vec(r_i g_i' s_i')`` (:class:`ConditionalParts`) rescaled by
:func:`null_scale`. Memory does not grow with ``n``.

Recommended, from ``benchmarks/conditional_level_probe.py`` and
``benchmarks/bench_conditional.py``: ``RidgeFolds(5, split=Dx, shrink=10)``;
6 cos/sin random Fourier features of x, of y and (weights) of z;
:func:`n_z_features` Nystroem features of z (``ConditionalHSICTest``'s
default z map). No test holds its level on every null.
"""

import numpy as np

# Ridge penalties lambda of ``C'C + n_train lambda I`` (centered C), half a
# decade apart: for unit-norm features (cos/sin random Fourier features) the
# eigenvalues of C'C / n sum to at most 1: 10 fits the mean, 1e-8 interpolates.
PENALTIES = np.logspace(-8, 1, 19)


def n_z_features(n_rows, *, factor=10.0, low=48, cap=600):
    """The number of z-features for ``n_rows`` rows: ``factor * sqrt(n)``
    rounded to a multiple of 6, between ``low`` and ``cap``. Too few leave
    part of ``E[a(X) | Z]`` and ``E[b(Y) | Z]`` in both residuals (at ``n =
    1000``, 126 gave type-I errors up to 0.3, 300-600 at most 0.12); the
    cross-validated penalty guards against too many.

    Parameters
    ----------
    n_rows : int
        Rows of the test.
    factor : float, default=10.0
        Features per square root of a row.
    low, cap : int, default=48, 600
        Bounds; the cap bounds the cost ``n Dz^2 + 2 K Dz^3`` per test.

    Returns
    -------
    n_features : int
        A multiple of 6 (cos/sin pairs at two or three bandwidths).

    Examples
    --------
    >>> from skmmd.mmd._conditional import n_z_features
    >>> n_z_features(1000), n_z_features(10**4), n_z_features(10**6)
    (318, 600, 600)
    """
    d = int(round(factor * np.sqrt(n_rows) / 6.0)) * 6
    return int(min(max(d, low), cap))


class FoldDesign:
    """The regressors' side of :class:`RidgeFolds`: each fold's ``n_k``,
    ``sum c`` and ``C'C``, and each training set's eigendecomposition, kept
    for every regression on the same features and folds (the tests of a
    causal search with one conditioning set: only their targets differ).

    Parameters
    ----------
    n_folds : int
        Number of folds.

    Attributes
    ----------
    sealed : bool
        True once a :meth:`RidgeFolds.fit` used it: rows are then added to
        the targets' statistics only, and must be the same rows again.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd._conditional import FoldDesign, RidgeFolds
    >>> rng = np.random.default_rng(0)
    >>> C, folds = rng.normal(size=(100, 3)), np.arange(100) % 5
    >>> design = FoldDesign(5)
    >>> a = RidgeFolds(5, design=design).add(C, C[:, :1], folds).fit()
    >>> b = RidgeFolds(5, design=design).add(C, C[:, 1:], folds).fit()
    >>> design.sealed, len(design._bases)  # one eigendecomposition per fold
    (True, 5)
    """

    def __init__(self, n_folds):
        self.n_folds, self.sealed, self._bases = n_folds, False, {}

    def add(self, C, folds):
        """Accumulate ``n_k``, ``sum c``, ``C'C`` of a chunk (unless sealed)."""
        if self.sealed:
            return
        if not hasattr(self, "_stats"):
            dz, K = C.shape[1], self.n_folds
            self._stats = [np.zeros((K,)), np.zeros((K, dz)), np.zeros((K, dz, dz))]
        for k in range(self.n_folds):
            Ck = C[folds == k]
            for stat, term in zip(self._stats, (len(Ck), Ck.sum(0), Ck.T @ Ck)):
                stat[k] += term

    def basis(self, k, train):
        """``(n, mc, s, V, D)`` of fold ``k``'s training folds ``train``
        (boolean): rows, mean, eigendecomposition ``V diag(s) V'`` of the
        centered ``C'C``, and fold ``k``'s ``D = sum d_i d_i'`` (its rows
        centered at the training mean)."""
        key = (k, train.tobytes())
        if key not in self._bases:
            n, sc, cc = (a[train].sum(axis=0) for a in self._stats)
            if n < 2:
                raise ValueError("Every fold's training set needs 2 rows.")
            mc = sc / n
            s, V = np.linalg.eigh(cc - n * np.outer(mc, mc))
            s = np.maximum(s, 0.0)  # rounding can make flat directions < 0
            nk, sck, cck = (a[k] for a in self._stats)
            dd = cck - np.outer(mc, sck) - np.outer(sck - nk * mc, mc)
            self._bases[key] = (n, mc, s, V, dd)
        return self._bases[key]


class RidgeFolds:
    """Cross-fitted ridge regression of several targets on features, from
    per-fold sufficient statistics.

    Parameters
    ----------
    n_folds : int
        Number of folds ``K >= 2``; rows of fold ``k`` get residuals from a
        fit on other folds only.
    penalties : array-like of shape (n_penalties,), default=None
        Candidate ``lambda`` of ``C'C + n_train lambda I``; ``None`` is
        :data:`PENALTIES` (``logspace(-8, 1, 19)``).
    split : int or None, default=None
        ``None``: fold ``k`` is fit on all other folds. ``Dx`` (``K >= 4``):
        double cross-fitting of targets ``[a | b]`` with ``Dx`` x-columns:
        x-columns are fit on the folds at odd cyclic distance from ``k``,
        y-columns at even distance (``K = 5``: ``k +- 1`` and ``k +- 2``).
        Recommended for the test (see Notes).
    shrink : float, default=1.0
        Fit with the cross-validated penalty divided by ``shrink`` (``> 0``).
        Above 1 the fits are less smooth than the best prediction wants: a
        conditional test needs small bias more than small variance (see
        Notes).
    design : FoldDesign or None, default=None
        The regressors' statistics and eigendecompositions, shared with
        other fits on the same features and folds (None: this fit's own).

    Attributes
    ----------
    counts_ : ndarray of shape (n_folds,)
        Rows of each fold.
    cv_error_ : ndarray of shape (n_penalties, n_targets)
        Held-out squared error of each penalty and target, summed over folds.
    penalty_ : ndarray of shape (n_targets,)
        The penalty chosen for each target.
    coef_, intercept_ : ndarray of shape (n_folds, n_features, n_targets) \
            and (n_folds, n_targets)
        ``W_k`` and ``b_k``, the fit used for the rows of fold ``k``.

    Notes
    -----
    Each fold keeps ``n_k``, ``sum c``, ``sum f``, ``C'C``, ``C'F``, ``sum
    f^2``. A training set (a sum of folds) is centered by its means ``mc, mf``
    (unpenalized intercept): ``S = C'C - n mc mc' = V diag(s) V'``, ``P = C'F
    - n mc mf'``, ``W = V diag(1 / (s + n lambda)) V'P``. With ``d_i = c_i -
    mc``, ``e_i = f_i - mf`` on the held-out fold, target ``t``'s error is
    ``sum e_it^2 - 2 w_t' sum d_i e_it + w_t' (sum d_i d_i') w_t``: ``O(Dz^2
    Df)`` per penalty after one eigendecomposition per fit. The penalty with
    the least error summed over folds is used (the only part of a fold's fit
    that saw the fold).

    Why double cross-fitting: with smoothers ``H^a, H^b`` (``r_i`` has
    ``-H^a_ij`` times row ``j``'s x-noise), ``E[T]`` exceeds the bootstrap
    mean by about ``(2/n) sum_ij (H^a_ij H^b_ij + H^a_ij H^b_ji) E|r|^2|s|^2``,
    a few times ``df / n`` relative to ``E[T]`` (10-25 % measured at ``n =
    1000``). Disjoint x- and y-training folds, with ``l`` in the x-set of
    ``k`` only if ``k`` is not in the y-set of ``l``, make both products
    vanish, for fits on ``2/5`` of the rows (``K = 5``). What remains is
    ``n ||E[da(z) db(z)']||_F^2`` for the errors ``da, db`` of the x- and
    y-fits; their variance parts come from disjoint rows, independent under
    H0, so only the product of the smoothing biases counts: hence ``shrink``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd._conditional import RidgeFolds
    >>> rng = np.random.default_rng(0)
    >>> C, folds = rng.normal(size=(200, 3)), np.arange(200) % 5
    >>> F = C @ [[1.0, 0.0], [2.0, 1.0], [0.0, 0.0]] + 0.1 * rng.normal(size=(200, 2))
    >>> ridge = RidgeFolds(5, split=1).add(C[:99], F[:99], folds[:99])
    >>> ridge = ridge.add(C[99:], F[99:], folds[99:]).fit()  # chunk by chunk
    >>> bool(ridge.residuals(C, F, folds).std() < 0.12)
    True
    """

    def __init__(self, n_folds, penalties=None, split=None, shrink=1.0, design=None):
        self.n_folds, self.penalties, self.split = n_folds, penalties, split
        self.shrink = shrink
        self.design = FoldDesign(n_folds) if design is None else design

    def add(self, C, F, folds):
        """Accumulate the statistics of a chunk of rows.

        Parameters
        ----------
        C, F : array-like of shape (n_chunk, n_features) and (n_chunk, n_targets)
            Regressors (features of z) and targets (``[a(x) | b(y)]``).
        folds : array-like of int of shape (n_chunk,)
            Fold of each row, in ``0 .. n_folds - 1``.

        Returns
        -------
        self : RidgeFolds
            This object.
        """
        C, F = np.asarray(C, dtype=np.float64), np.asarray(F, dtype=np.float64)
        folds, K = np.asarray(folds), self.n_folds
        if K < 2:
            raise ValueError(f"RidgeFolds needs n_folds >= 2; got {K}.")
        if C.ndim != 2 or F.ndim != 2 or not C.shape[0] == F.shape[0] == len(folds):
            shapes = f"{C.shape}, {F.shape}, {len(folds)} labels"
            raise ValueError(f"C and F must be 2-D, one row per fold label: {shapes}")
        if len(folds) and (folds.min() < 0 or folds.max() >= K):
            raise ValueError(f"Fold labels must lie in 0..{K - 1}.")
        dz, df = C.shape[1], F.shape[1]
        if self.design.n_folds != K:
            raise ValueError(f"design has {self.design.n_folds} folds, not {K}.")
        if not hasattr(self, "_stats"):  # sum f, C'F, sum f^2
            self._stats = [np.zeros((K,) + shape) for shape in [(df,), (dz, df), (df,)]]
        elif (widths := self._stats[1].shape[1:]) != (dz, df):
            raise ValueError(f"Chunks must keep their widths {widths}; got {(dz, df)}.")
        if hasattr(self.design, "_stats") and self.design._stats[1].shape[1] != dz:
            got = self.design._stats[1].shape[1]
            raise ValueError(f"design has {got} regressors; C has {dz} columns.")
        self.design.add(C, folds)
        for k in range(K):
            Ck, Fk = C[folds == k], F[folds == k]
            for stat, term in zip(
                self._stats, (Fk.sum(0), Ck.T @ Fk, np.sum(Fk * Fk, 0))
            ):
                stat[k] += term
        return self

    def _plans(self, df):
        """``(columns, train)``: fold ``k``'s fit of columns uses fold ``l``."""
        K = self.n_folds
        step = np.subtract.outer(np.arange(K), np.arange(K)) % K
        distance = np.minimum(step, K - step)  # cyclic distance of two folds
        if self.split is None:
            return [(np.arange(df), distance > 0)]
        odd, even = distance % 2 == 1, (distance % 2 == 0) & (distance > 0)
        return [(np.arange(self.split), odd), (np.arange(self.split, df), even)]

    def fit(self):
        """Choose a penalty per target by cross-validation; fit each fold.

        Returns
        -------
        self : RidgeFolds
            This object, fitted.
        """
        if not hasattr(self, "_stats"):
            raise ValueError("RidgeFolds.fit needs rows: call add first.")
        pens = PENALTIES if self.penalties is None else self.penalties
        pens = np.atleast_1d(np.asarray(pens, dtype=np.float64))
        if pens.ndim != 1 or np.any(pens < 0):
            raise ValueError("penalties must be a 1-D array of numbers >= 0.")
        dz, df = self._stats[1].shape[1:]
        K, L = self.n_folds, len(pens)
        if self.split is not None and not (K >= 4 and 0 < self.split < df):
            got = f"n_folds={K}, split={self.split}, n_targets={df}"
            raise ValueError(f"split needs n_folds >= 4, 0 < split < n_targets: {got}")
        error, fits, self._bases = np.zeros((L, df)), [], []
        counts, sums = self.design._stats[:2]
        for cols, train in self._plans(df):
            sf_all, cf_all, ff_all = (a[..., cols] for a in self._stats)
            for k in range(K):
                n, mc, s, V, D = self.design.basis(k, train[k])
                mf = sf_all[train[k]].sum(axis=0) / n
                P = V.T @ (cf_all[train[k]].sum(axis=0) - n * np.outer(mc, mf))
                fits.append((k, cols, n, mc, mf, s, V, P))
                self._bases.append((k, cols, train[k], n, mc, s, V))
                # Fold k's sums of d e and e^2 centered at training means;
                # w' D w for the coefficients W = V Q of every penalty (D, not
                # V' D V: two products per target set instead of Dz^3).
                nk, sck, sfk = counts[k], sums[k], sf_all[k]
                de = cf_all[k] - np.outer(mc, sfk) - np.outer(sck - nk * mc, mf)
                ee = ff_all[k] - 2.0 * mf * sfk + nk * mf**2
                Q = P[:, None, :] / (s[:, None, None] + n * pens[None, :, None])
                W = V @ Q.reshape(dz, L * len(cols))
                DW = (D @ W).reshape(Q.shape)
                err = ee - 2.0 * np.einsum("jlt,jt->lt", Q, V.T @ de)
                error[:, cols] += err + np.einsum("jlt,jlt->lt", W.reshape(Q.shape), DW)
        self.design.sealed = True
        self.cv_error_ = error
        if not self.shrink > 0:
            raise ValueError(f"shrink must be a number > 0; got {self.shrink!r}.")
        self.penalty_ = pens[np.argmin(error, axis=0)] / self.shrink
        self.counts_ = counts.copy()
        self.coef_, self.intercept_ = np.empty((K, dz, df)), np.empty((K, df))
        for k, cols, n, mc, mf, s, V, P in fits:
            W = V @ (P / (s[:, None] + n * self.penalty_[cols]))
            self.coef_[k][:, cols] = W
            self.intercept_[k, cols] = mf - mc @ W
        return self

    def refit(self, sums, cross, columns):
        """Fit new targets as the fitted ridge fits the targets ``columns``:
        same training folds, penalties and centering, one solve per fit.

        Parameters
        ----------
        sums, cross : array-like of shape (n_folds, n_new) and \
                (n_folds, n_features, n_new)
            Per fold: ``sum f`` and ``C'F`` of the new targets on the rows of
            :meth:`add`.
        columns : array-like of int of shape (n_new,)
            The fitted target whose fit each new target copies.

        Returns
        -------
        coef, intercept : ndarray of shape (n_folds, n_features, n_new) and \
                (n_folds, n_new)
            ``W_k`` and ``b_k`` of the new targets (for :meth:`residuals`).
        """
        if not hasattr(self, "coef_"):
            raise ValueError("RidgeFolds.refit needs a fit: call fit first.")
        sums, cross = np.asarray(sums, np.float64), np.asarray(cross, np.float64)
        columns = np.asarray(columns)
        K, dz, dn = self.n_folds, cross.shape[1], len(columns)
        coef, intercept = np.zeros((K, dz, dn)), np.zeros((K, dn))
        for k, cols, train, n, mc, s, V in self._bases:
            new = np.isin(columns, cols)  # targets fit on this plan's folds
            mf = sums[train][:, new].sum(axis=0) / n
            P = V.T @ (cross[train][:, :, new].sum(axis=0) - n * np.outer(mc, mf))
            W = V @ (P / (s[:, None] + n * self.penalty_[columns[new]]))
            coef[k][:, new], intercept[k, new] = W, mf - mc @ W
        return coef, intercept

    def residuals(self, C, F, folds, coef=None, intercept=None):
        """``F - (C W_k + b_k)`` for the rows of each fold ``k``.

        Parameters
        ----------
        C, F, folds : array-like
            Regressors, targets and fold labels of rows, as for :meth:`add`.
        coef, intercept : ndarray or None, default=None
            Fits of other targets (:meth:`refit`); None: ``coef_``,
            ``intercept_``.

        Returns
        -------
        residuals : ndarray of shape (n_chunk, n_targets)
            Residuals of each row from the fit that did not see its fold.
        """
        if not hasattr(self, "coef_"):
            raise ValueError("RidgeFolds.residuals needs a fit: call fit first.")
        if coef is None:
            coef, intercept = self.coef_, self.intercept_
        C, out = np.asarray(C, dtype=np.float64), np.array(F, dtype=np.float64)
        for k in range(self.n_folds):
            rows = np.asarray(folds) == k
            out[rows] -= C[rows] @ coef[k] + intercept[k]
        return out


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
    >>> multiplier_weights(np.random.default_rng(0), 2, 3).shape
    (2, 3)
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
    null_scale : float, default=1.0
        Factor of the bootstrap statistics (:func:`null_scale`).

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
            Multiplier weights (:func:`multiplier_weights`).

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


def pseudo_signs(seed, positions, n_draws):
    """Random signs of rows, a function of the seed and the row's position
    only: two passes over the rows, in any chunks, draw the same.

    Parameters
    ----------
    seed : int
        Seed of the signs.
    positions : array-like of int of shape (n,)
        Row positions.
    n_draws : int
        Signs per row and variable.

    Returns
    -------
    w, v : ndarray of shape (n, n_draws)
        Signs of the x- and of the y-residuals.

    Examples
    --------
    >>> from skmmd.mmd._conditional import pseudo_signs
    >>> w, v = pseudo_signs(0, [5, 6, 7], 2)
    >>> bool((pseudo_signs(0, [6], 2)[0] == w[1]).all()), w.shape
    (True, (3, 2))
    """
    positions = np.asarray(positions, dtype=np.int64)
    out = np.empty((positions.size, 2 * n_draws))
    block = 4096
    for b in np.unique(positions // block):
        rows = positions // block == b
        rng = np.random.default_rng([seed, 5, int(b)])
        signs = np.where(rng.random((block, 2 * n_draws)) < 0.5, -1.0, 1.0)
        out[rows] = signs[positions[rows] % block]
    return out[:, :n_draws], out[:, n_draws:]


def null_scale(chunks, ridge, split, *, n_draws=16, seed=0):
    """The ratio of the statistic's mean under H0 to the multiplier
    bootstrap's, estimated by wild re-fits of the cross-fitted ridge.

    Parameters
    ----------
    chunks : callable
        ``chunks()`` yields ``(positions, C, F, G, folds)`` for consecutive
        chunks of all rows: features of z, targets ``[a | b]``, weights, fold
        labels. Called twice.
    ridge : RidgeFolds
        The fitted ridge.
    split : int
        ``Dx``: the first ``split`` targets are the x-features.
    n_draws : int, default=16
        Wild re-fits ``M``.
    seed : int, default=0
        Seed of the signs.

    Returns
    -------
    scale : float
        ``kappa``: multiply the bootstrap statistics by it.

    Notes
    -----
    The bootstrap's mean, ``sum_i ||u_i||^2 / n``, misses the cross terms
    ``E[u_i . u_j]`` of rows whose residuals share fit noise: ``r_i`` holds
    ``-H^a_ij`` times the x-noise of row ``j`` where ``j`` trained the x-fit
    of ``i``, and ``s_i, s_j`` share the noise of the rows both y-fits
    trained on. These are negative, of the order of ``df / n_train``
    (``E[T]`` about 0.91 times the bootstrap's mean at ``n = 1000``), so the
    test is conservative. Draw ``M`` pseudo-data sets of pure noise, ``w_i
    r_i`` and ``v_i s_i`` with independent signs (H0 holds: independent
    noise, conditional means 0), re-fit them with the same folds and
    penalties (one solve each, the eigendecompositions kept), and compare
    the mean of ``||sum_i u*_i||^2`` with that of ``sum_i ||u*_i||^2``.

    The first is estimated as ``sum_i ||u_i||^2 + ||sum_i (u*_i - w_i v_i
    u_i)||^2``: the no-refit draw ``t0 = sum_i w_i v_i u_i`` (a bootstrap
    draw, of known mean square ``sum_i ||u_i||^2``) is uncorrelated with the
    re-fits' part ``d = sum_i u*_i - t0``, because a row never trains its own
    fits (``H_ii = 0``) and no row trains both the x- and the y-fit of
    another (disjoint training folds, ``ridge.split``; without it the
    estimate keeps ``2 t0 . d``). So ``E||t0 + d||^2 = E||t0||^2 +
    E||d||^2``, and the draws' ``2 t0 . d``, of mean 0 and the largest
    variance in the test's regime, are left out. The estimate's standard
    deviation over sign draws against that of ``||t0 + d||^2 - ||t0||^2``
    (the test's default maps, three nulls, two data sets each): 2-3 times
    smaller at ``n = 1000-2000`` (0.009-0.041 against 0.013-0.067 at ``M =
    16``), smaller in 11 of 12 at ``n = 300-500`` (``M = 8``). Where the fits
    nearly interpolate Gaussian noise (penalty ``1e-3``, ``Dz`` near
    ``n_train``) ``d`` dominates and it can be larger.
    """
    M = n_draws

    def pseudo(positions, C, F, folds):
        R = ridge.residuals(C, F, folds)
        w, v = pseudo_signs(seed, positions, M)
        x, y = R[:, :split], R[:, split:]
        Fx = (w[:, :, None] * x[:, None, :]).reshape(len(R), -1)
        Fy = (v[:, :, None] * y[:, None, :]).reshape(len(R), -1)
        return R, w * v, np.hstack([Fx, Fy])

    K, df, dz = ridge.n_folds, ridge.coef_.shape[2], ridge.coef_.shape[1]
    dy = df - split
    columns = np.concatenate(
        [np.tile(np.arange(split), M), np.tile(np.arange(split, df), M)]
    )
    sums, cross = np.zeros((K, len(columns))), np.zeros((K, dz, len(columns)))
    for positions, C, F, _, folds in chunks():
        Fs = pseudo(positions, C, F, folds)[2]
        for k in range(K):
            rows = folds == k
            sums[k] += Fs[rows].sum(axis=0)
            cross[k] += C[rows].T @ Fs[rows]
    coef, intercept = ridge.refit(sums, cross, columns)
    totals = controls = None  # (M, width): sums of u*_i and of w_i v_i u_i
    spread = own = 0.0
    for positions, C, F, G, folds in chunks():
        R, wv, Fs = pseudo(positions, C, F, folds)
        Rs = ridge.residuals(C, Fs, folds, coef, intercept)
        x = Rs[:, : split * M].reshape(len(R), M, split)
        y = Rs[:, split * M :].reshape(len(R), M, dy)
        U = residual_products(R[:, :split], R[:, split:], G)
        if totals is None:
            totals, controls = np.zeros((M, U.shape[1])), np.zeros((M, U.shape[1]))
        own += np.sum(U * U)
        controls += wv.T @ U
        # The draws' residual products, summed over rows without forming them.
        xg = (x[:, :, :, None] * G[:, None, None, :]).reshape(len(R), M, -1)
        totals += np.matmul(xg.transpose(1, 2, 0), y.transpose(1, 0, 2)).reshape(M, -1)
        spread += np.sum(np.sum(xg * xg, axis=2) * np.sum(y * y, axis=2))
    if ridge.split is None:  # shared training rows: t0 . d has a mean
        excess = np.sum(totals * totals) - np.sum(controls * controls)
    else:
        excess = np.sum((totals - controls) ** 2)
    return float((excess / M + own) / (spread / M))
