"""The power criterion of a goodness-of-fit test's Stein features, and its
gradient in the frequencies, for :class:`~skmmd.LearnedFourierSampler`
fit with a model's score (``fit(X, score=...)``).

The statistic of :class:`~skmmd.KernelSteinTest` is the squared norm of the
mean Stein feature ``xi(x) = s(x) phi(x)' + grad phi(x)``; its unbiased
version is the U-statistic of ``h(x, y) = xi(x)' xi(y)`` and its variance
under the alternative is ``4 Var(xi(x)' E xi) / n``: the same three sums as
the two-sample criterion's paired differences ``d_i`` with ``xi_i`` in their
place (:func:`~skmmd.mmd._features.power_gradient`), so ``J`` and its
gradient in ``xi_i`` come from there; this module carries that gradient to
the frequencies ``W`` (Jitkrittum et al. 2017 optimize FSSD's locations and
width by the same ratio)."""

import numpy as np
from sklearn.utils import gen_batches

from .._utils import _budgets
from ..mmd._features import power_gradient
from ..mmd._stein import stein_features
from ._metric import MetricCriterion

# Scales of the median bandwidth tried as starting points.
STEIN_SCALES = (0.25, 0.5, 1.0, 2.0)


def check_stein_fit(y, n_components):
    """Refuse what a fit with a model's score cannot take."""
    if y is not None:
        raise ValueError(
            "Pass y (two samples' labels, for a two-sample test) or score (a "
            "model's, for a goodness-of-fit test), not both."
        )
    if n_components % 2:
        raise ValueError(
            "Learning a kernel for a goodness-of-fit test needs cosines and sines "
            f"of the same frequencies: n_components must be even; got {n_components}."
        )


def stein_rows(X, score, subsample, rng):
    """The rows the criterion is estimated on (a seeded subsample of at most
    ``subsample``, dense float64) and the model's checked score at them."""
    n = X.shape[0]
    rows = np.sort(rng.permutation(n)[: n if subsample is None else subsample])
    X = X[rows]
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
    if not callable(score):
        raise TypeError(
            "score must be a callable score(X) -> grad log p(X) of shape (n, "
            f"n_features); got {type(score).__name__}."
        )
    S = np.asarray(score(X), dtype=np.float64)
    if S.shape != X.shape:
        raise ValueError(
            f"score(X) must have the shape of X, {X.shape}; got {S.shape}."
        )
    bad = int((~np.isfinite(S)).any(axis=1).sum())
    if bad:
        raise ValueError(
            f"score(X) is NaN or infinite at {bad} of the training rows (rows "
            "outside the model's support?)."
        )
    return X, S


class SteinCriterion(MetricCriterion):
    """``J`` of the Stein features of rows ``X`` (scores ``S``) for the
    frequencies ``W`` (d, L) and its gradient in ``W``, in row blocks whose
    Stein features take at most ``_budgets.BLOCK_ENTRIES`` entries."""

    def __init__(self, draws_ard, draws_map, X, S):
        super().__init__(draws_ard, draws_map)
        self.X, self.S = X, S
        d, L = draws_ard.shape
        self.blocks = list(
            gen_batches(X.shape[0], max(1, _budgets.BLOCK_ENTRIES // (2 * d * L)))
        )
        self._cache = None

    def _features(self, rows, W):
        """The block's Stein features, (n_rows, 2, d, L) (kept when one block
        holds every row, so the passes compute them once)."""
        if self._cache is not None and self._cache[0] is W:
            return self._cache[1]
        xi = stein_features(self.X[rows], self.S[rows], W).reshape(-1, 2, *W.shape)
        if len(self.blocks) == 1:
            self._cache = (W, xi)
        return xi

    def _sums(self, W):
        """``s = sum_i xi_i``, ``q = sum_i ||xi_i||^2``, ``sum_i r_i^2`` and
        ``u = sum_i r_i xi_i`` with ``r_i = xi_i' s``."""
        s, q = 0.0, 0.0
        for rows in self.blocks:
            xi = self._features(rows, W)
            s = s + xi.sum(axis=0)
            q += float(np.einsum("iakj,iakj->", xi, xi))
        row_sums_sq, u = 0.0, 0.0
        for rows in self.blocks:
            xi = self._features(rows, W)
            r = np.einsum("iakj,akj->i", xi, s)
            row_sums_sq += float(r @ r)
            u = u + np.einsum("i,iakj->akj", r, xi)
        return s, q, row_sums_sq, u

    def value_of(self, W):
        s, q, row_sums_sq, _ = self._sums(W)
        return power_gradient(s.ravel(), q, row_sums_sq, self.X.shape[0])[0]

    def value_and_gradient_of(self, W):
        s, q, row_sums_sq, u = self._sums(W)
        value, (a, b, c) = power_gradient(s.ravel(), q, row_sums_sq, self.X.shape[0])
        L = W.shape[1]
        grad_W = np.zeros_like(W)
        for rows in self.blocks:
            X, S, xi = self.X[rows], self.S[rows], self._features(rows, W)
            r = np.einsum("iakj,akj->i", xi, s)
            # dJ/dxi_i = (a + c r_i) s + c u + b xi_i, by (cosine, sine) block.
            G = (a + c * r)[:, None, None, None] * s + c * u + b * xi
            P = X @ W
            cos, sin = np.cos(P), np.sin(P)
            # xi's cosine block is (s_k cos p_j - W_kj sin p_j) / sqrt(L), its
            # sine block (s_k sin p_j + W_kj cos p_j) / sqrt(L), p_j = w_j'x.
            by_score = np.einsum("iakj,ik->iaj", G, S)
            by_weight = np.einsum("iakj,kj->iaj", G, W)
            projections = (by_score[:, 1] - by_weight[:, 0]) * cos - (
                by_score[:, 0] + by_weight[:, 1]
            ) * sin
            grad_W += X.T @ projections
            grad_W += np.einsum("ikj,ij->kj", G[:, 1], cos)
            grad_W -= np.einsum("ikj,ij->kj", G[:, 0], sin)
        return value, grad_W / np.sqrt(L)
