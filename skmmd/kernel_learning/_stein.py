"""The power criterion of a goodness-of-fit test's Stein features, and its
gradient in the frequencies, for :class:`~skmmd.LearnedFourierSampler`
fit with a model's score (``fit(X, score=...)``).

The statistic of :class:`~skmmd.KernelSteinTest` is the squared norm of the
mean Stein feature ``xi(x) = s(x) phi(x)' + grad phi(x)``; its unbiased
version is the U-statistic of ``h(x, y) = xi(x)' xi(y)`` and its variance
under the alternative is ``4 Var(xi(x)' E xi) / n``: the same three sums as
the two-sample criterion's paired differences ``d_i`` with ``xi_i`` in their
place (:func:`~skmmd.statistics._features.power_gradient`), so ``J`` and its
gradient in ``xi_i`` come from there; this module carries that gradient to
the frequencies ``W`` (Jitkrittum et al. 2017 optimize FSSD's locations and
width by the same ratio)."""

import numpy as np
from sklearn.utils import gen_batches

from .._utils import _budgets
from ..statistics._features import power_gradient
from ..statistics._stein import checked_score
from ._metric import MetricCriterion

# Scales of the median bandwidth tried as starting points.
STEIN_SCALES = (0.25, 0.5, 1.0, 2.0)


def check_stein_fit(y, n_components):
    """Refuse what a fit with a model's score cannot take."""
    if y is not None:
        raise ValueError(
            "Pass y (two samples' labels, for a two-sample test) or model_score "
            "(a model's, for a goodness-of-fit test), not both."
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
            "model_score must be a callable model_score(X) -> grad log p(X) of "
            f"shape (n, n_features); got {type(score).__name__}."
        )
    S = checked_score(score, X, "the model")
    return X, S


class SteinCriterion(MetricCriterion):
    """``J`` of the Stein features of rows ``X`` (scores ``S``) for the
    frequencies ``W`` (d, L) and its gradient in ``W``, without the Stein
    features themselves: with ``C = cos(X W)`` and ``Sn = sin(X W)``, their
    cosine block is ``(S_ik C_ij - W_kj Sn_ij) / sqrt(L)`` and their sine
    block ``(S_ik Sn_ij + W_kj C_ij) / sqrt(L)``, so every sum over rows or
    over coordinates that ``J`` and its gradient need is a product of
    ``(n, d)`` and ``(n, L)`` arrays: ``O(n d L)`` time, ``O(n L)`` memory
    (rows in chunks of at most ``_budgets.MAP_CHUNK_ENTRIES`` entries)."""

    def __init__(self, draws_ard, draws_map, X, S):
        super().__init__(draws_ard, draws_map)
        self.X, self.S = X, S
        self.S_sq = np.einsum("ik,ik->i", S, S)
        self.blocks = list(
            gen_batches(
                X.shape[0], max(1, _budgets.MAP_CHUNK_ENTRIES // draws_ard.shape[1])
            )
        )
        self._cache = None

    def _trig(self, rows, W):
        """``cos(X W)`` and ``sin(X W)`` of a block (kept when one block holds
        every row, so the passes compute them once)."""
        if self._cache is not None and self._cache[0] is W:
            return self._cache[1]
        P = self.X[rows] @ W
        out = (np.cos(P), np.sin(P))
        if len(self.blocks) == 1:
            self._cache = (W, out)
        return out

    def _row_sums(self, rows, W, s_c, s_s):
        """``r_i = xi_i' s`` for the rows of a block, and its trig."""
        C, Sn = self._trig(rows, W)
        S = self.S[rows]
        r = np.einsum("ij,ij->i", C, S @ s_c + (W * s_s).sum(axis=0))
        r += np.einsum("ij,ij->i", Sn, S @ s_s - (W * s_c).sum(axis=0))
        return r / np.sqrt(W.shape[1]), C, Sn

    def _sums(self, W):
        """``s = sum_i xi_i`` (cosine and sine blocks), ``q = sum_i
        ||xi_i||^2``, ``sum_i r_i^2`` and ``u = sum_i r_i xi_i``."""
        n, L = self.X.shape[0], W.shape[1]
        root = np.sqrt(L)
        s_c, s_s = np.zeros_like(W), np.zeros_like(W)
        for rows in self.blocks:
            C, Sn = self._trig(rows, W)
            S = self.S[rows]
            s_c += (S.T @ C - W * Sn.sum(axis=0)) / root
            s_s += (S.T @ Sn + W * C.sum(axis=0)) / root
        q = float(self.S_sq.sum()) + n * float((W * W).sum()) / L
        row_sums_sq, u_c, u_s = 0.0, np.zeros_like(W), np.zeros_like(W)
        for rows in self.blocks:
            r, C, Sn = self._row_sums(rows, W, s_c, s_s)
            S = self.S[rows]
            row_sums_sq += float(r @ r)
            u_c += (S.T @ (r[:, None] * C) - W * (r @ Sn)) / root
            u_s += (S.T @ (r[:, None] * Sn) + W * (r @ C)) / root
        return (s_c, s_s), q, row_sums_sq, (u_c, u_s)

    def _criterion(self, s, q, row_sums_sq):
        flat = np.concatenate([s[0].ravel(), s[1].ravel()])
        return power_gradient(flat, q, row_sums_sq, self.X.shape[0])

    def value_of(self, W):
        s, q, row_sums_sq, _ = self._sums(W)
        return self._criterion(s, q, row_sums_sq)[0]

    def value_and_gradient_of(self, W):
        """``J`` and ``dJ/dW`` from ``dJ/dxi_i = (a + c r_i) s + c u + b
        xi_i`` (:func:`~skmmd.statistics._features.power_gradient`) through ``dxi /
        dW``, each contraction in closed form."""
        (s_c, s_s), q, row_sums_sq, (u_c, u_s) = self._sums(W)
        value, (a, b, c) = self._criterion((s_c, s_s), q, row_sums_sq)
        L = W.shape[1]
        root = np.sqrt(L)
        w_sq = (W * W).sum(axis=0)
        # sum_k W_kj T_kj of the constant parts of dJ/dxi, by block.
        w_c = c * (W * u_c).sum(axis=0)
        w_s = c * (W * u_s).sum(axis=0)
        w_sc, w_ss = (W * s_c).sum(axis=0), (W * s_s).sum(axis=0)
        grad_W = np.zeros_like(W)
        for rows in self.blocks:
            r, C, Sn = self._row_sums(rows, W, s_c, s_s)
            X, S = self.X[rows], self.S[rows]
            alpha = (a + c * r)[:, None]
            SW = S @ W
            S_sq = self.S_sq[rows][:, None]
            # sum_k dJ/dxi_(i,k,j) S_ik and sum_k dJ/dxi_(i,k,j) W_kj.
            score_c = (
                alpha * (S @ s_c) + c * (S @ u_c) + b * (S_sq * C - SW * Sn) / root
            )
            score_s = (
                alpha * (S @ s_s) + c * (S @ u_s) + b * (S_sq * Sn + SW * C) / root
            )
            weight_c = alpha * w_sc + w_c + b * (SW * C - w_sq * Sn) / root
            weight_s = alpha * w_ss + w_s + b * (SW * Sn + w_sq * C) / root
            projections = (score_s - weight_c) * C - (score_c + weight_s) * Sn
            grad_W += X.T @ projections
            # sum_i dJ/dxi_(i,s,k,j) C_ij - sum_i dJ/dxi_(i,c,k,j) Sn_ij.
            grad_W += s_s * (alpha[:, 0] @ C) + c * u_s * C.sum(axis=0)
            grad_W -= s_c * (alpha[:, 0] @ Sn) + c * u_c * Sn.sum(axis=0)
            grad_W += b * (W * (C * C).sum(axis=0) + W * (Sn * Sn).sum(axis=0)) / root
        return value, grad_W / root
