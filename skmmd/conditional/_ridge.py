"""Cross-fitted ridge regression of the conditional test: the fold of each
row (:func:`fold_labels`), each fold's sufficient statistics of the
regressors (:class:`FoldDesign`, shared by the regressions on one set of
features and folds) and the ridge fits of several targets, each fold's
residuals from a fit on other folds, the penalty chosen by cross-validation
(:class:`RidgeFolds`). Statistics accumulate chunk by chunk: memory does not
grow with the rows.
"""

import functools

import numpy as np

from .._utils import _streams
from .._utils._threads import in_threads

# Folds are balanced within runs of this many row positions.
_FOLD_ROWS = 4096
# Regressors from which the folds' fits run side by side on threads
# (RidgeFolds.fit): below, starting a thread costs more than a fold's fit.
_THREADED_REGRESSORS = 48


def fold_labels(seed, positions, n_folds):
    """The cross-fitting fold of each row position: each run of ``n_folds``
    consecutive positions holds every fold once, in a seeded random order
    (per run of ``_FOLD_ROWS`` positions), so folds are random, balanced
    in any prefix of the rows, and independent of the chunks."""
    positions = np.asarray(positions, dtype=np.int64)
    out = np.empty(positions.size, dtype=np.int64)
    blocks = positions // _FOLD_ROWS
    runs = -(-_FOLD_ROWS // n_folds)
    for block in np.unique(blocks):
        rows = blocks == block
        rng = _streams.generator(seed, _streams.FOLDS, int(block))
        labels = rng.permuted(np.tile(np.arange(n_folds), (runs, 1)), axis=1)
        out[rows] = labels.ravel()[positions[rows] % _FOLD_ROWS]
    return out


# Ridge penalties lambda of ``C'C + n_train lambda I`` (centered C), half a
# decade apart: for unit-norm features (cos/sin random Fourier features) the
# eigenvalues of C'C / n sum to at most 1: 10 fits the mean, 1e-8 interpolates.
PENALTIES = np.logspace(-8, 1, 19)


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
    >>> from skmmd.conditional._ridge import FoldDesign, RidgeFolds
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
            dz, L = C.shape[1], self.n_folds
            self._stats = [np.zeros((L,)), np.zeros((L, dz)), np.zeros((L, dz, dz))]
        for k in range(self.n_folds):
            Ck = C[folds == k]
            for stat, term in zip(self._stats, (len(Ck), Ck.sum(0), Ck.T @ Ck)):
                stat[k] += term

    def basis(self, k, train):
        """``(n, mc, s, V, D)`` of fold ``k``'s training labels ``train``
        (boolean): rows, mean, eigendecomposition ``V diag(s) V'`` of the
        centered ``C'C``, and fold ``k``'s ``D = sum d_i d_i'`` (its rows
        centered at the training mean)."""
        key = (k, train.tobytes())
        if key not in self._bases:
            self._bases[key] = self._decomposed(k, train)
        return self._bases[key]

    def _decomposed(self, k, train):
        n, sc, cc = (a[train].sum(axis=0) for a in self._stats)
        if n < 2:
            raise ValueError("Every fold's training set needs 2 rows.")
        mc = sc / n
        s, V = np.linalg.eigh(cc - n * np.outer(mc, mc))
        s = np.maximum(s, 0.0)  # rounding can make flat directions < 0
        nk, sck, cck = (a[k] for a in self._stats)
        dd = cck - np.outer(mc, sck) - np.outer(sck - nk * mc, mc)
        return n, mc, s, V, dd


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
    a few times ``df / n`` relative to ``E[T]``. Disjoint x- and y-training
    folds, with ``l`` in the x-set of ``k`` only if ``k`` is not in the y-set
    of ``l``, make both products vanish, for fits on ``2/5`` of the rows
    (``K = 5``). What remains is
    ``n ||E[da(z) db(z)']||_F^2`` for the errors ``da, db`` of the x- and
    y-fits; their variance parts come from disjoint rows, independent under
    H0, so only the product of the smoothing biases counts: hence ``shrink``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.conditional._ridge import RidgeFolds
    >>> rng = np.random.default_rng(0)
    >>> C, folds = rng.normal(size=(200, 3)), np.arange(200) % 5
    >>> F = C @ [[1.0, 0.0], [2.0, 1.0], [0.0, 0.0]] + 0.1 * rng.normal(size=(200, 2))
    >>> ridge = RidgeFolds(5, split=1).add(C[:99], F[:99], folds[:99])
    >>> ridge = ridge.add(C[99:], F[99:], folds[99:]).fit()  # chunk by chunk
    >>> bool(ridge.residuals(C, F, folds).std() < 0.12)
    True
    """

    def __init__(
        self,
        n_folds,
        penalties=None,
        split=None,
        shrink=1.0,
        design=None,
    ):
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
        """``(columns, train)``: fold ``k``'s fit of columns trains on the
        rows of folds ``l`` where ``train[k, l]``."""
        K = self.n_folds
        step = np.subtract.outer(np.arange(K), np.arange(K)) % K
        distance = np.minimum(step, K - step)  # cyclic distance of two folds
        if self.split is None:
            return [(np.arange(df), distance > 0)]
        odd = distance % 2 == 1
        even = (distance % 2 == 0) & (distance > 0)
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
        folds = [
            (cols, train[k], k) for cols, train in self._plans(df) for k in range(K)
        ]
        # Each fold's eigendecomposition and errors on one BLAS thread (the
        # caller's one_blas_thread); the folds side by side where they are
        # large, since LAPACK releases the GIL. The same results either way.
        done = in_threads(
            [functools.partial(self._fold_fit, *fold, pens) for fold in folds],
            None if dz >= _THREADED_REGRESSORS else 1,
        )
        for (cols, _, _), (fit, basis, err) in zip(folds, done):
            fits.append(fit)
            self._bases.append(basis)
            error[:, cols] += err
        self.design.sealed = True
        self.cv_error_ = error
        if not self.shrink > 0:
            raise ValueError(f"shrink must be a number > 0; got {self.shrink!r}.")
        self.penalty_ = pens[np.argmin(error, axis=0)] / self.shrink
        self.counts_ = self.design._stats[0].copy()
        self.coef_, self.intercept_ = np.empty((K, dz, df)), np.empty((K, df))
        for k, cols, n, mc, mf, s, V, P in fits:
            W = V @ (P / (s[:, None] + n * self.penalty_[cols]))
            self.coef_[k][:, cols] = W
            self.intercept_[k, cols] = mf - mc @ W
        return self

    def _fold_fit(self, cols, train, k, pens):
        """Fold ``k``'s fit of the targets ``cols`` on the folds ``train``
        (boolean): the fit's factors, its basis for :meth:`refit`, and the
        held-out error on fold ``k`` of each penalty and target."""
        n, mc, s, V, D = self.design.basis(k, train)
        counts, sums = self.design._stats[:2]
        sf_all, cf_all, ff_all = (a[..., cols] for a in self._stats)
        mf = sf_all[train].sum(axis=0) / n
        P = V.T @ (cf_all[train].sum(axis=0) - n * np.outer(mc, mf))
        # Fold k's sums of d e and e^2 centered at training means; w' D w for
        # the coefficients W = V Q of every penalty (D, not V' D V: two
        # products per target set instead of Dz^3).
        nk, sck, sfk, cfk, ffk = (a[k] for a in (counts, sums, sf_all, cf_all, ff_all))
        de = cfk - np.outer(mc, sfk) - np.outer(sck - nk * mc, mf)
        ee = ffk - 2.0 * mf * sfk + nk * mf**2
        Q = P[:, None, :] / (s[:, None, None] + n * pens[None, :, None])
        W = V @ Q.reshape(len(mc), len(pens) * len(cols))
        DW = (D @ W).reshape(Q.shape)
        err = ee - 2.0 * np.einsum("jlt,jt->lt", Q, V.T @ de)
        err = err + np.einsum("jlt,jlt->lt", W.reshape(Q.shape), DW)
        return (k, cols, n, mc, mf, s, V, P), (k, cols, train, n, mc, s, V), err

    def refit(self, sums, cross, columns):
        """Fit new targets as the fitted ridge fits the targets ``columns``:
        same training folds, penalties and centering, one solve per fit.

        Parameters
        ----------
        sums, cross : array-like of shape (n_folds, n_new) and \
                (n_folds, n_features, n_new)
            Per fold: ``sum f`` and ``C'F`` of the
            new targets on the rows of :meth:`add`.
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
        labels = np.asarray(folds)
        for k in range(self.n_folds):
            rows = labels == k
            out[rows] -= C[rows] @ coef[k] + intercept[k]
        return out
