"""The two-sample family's counts and sums for the calibration loop: the
count vectors of the observed samples and of a batch of resamples
(:func:`observed_counts`, :func:`draw_counts`), and the kernel sums of a
batch (:func:`products`) from the pipeline's feature unit sums or from the
exact Gram matrix (:class:`KernelSums`).
"""

import numpy as np
from sklearn.utils import gen_batches

from .._inference._calibration import FeatureSums
from .._utils import _budgets
from .._utils._draws import permutation_counts


def observed_counts(n_units):
    """The count vectors ``(a, c)`` of the observed X and Y over the units."""
    g_x, g_y = n_units
    a = np.zeros((1, g_x + g_y))
    a[0, :g_x] = 1.0
    return a, 1.0 - a


def draw_counts(rng, method, n_resamples, n_units, out=None):
    """Count matrices of one batch: (A, C), rows X* and Y* of each resample.

    Each call consumes the generator row by row, so batches of any size cut
    from one stream give the same resamples. ``out``: a buffer of at least
    (n_resamples, G) for the permutation counts.
    """
    g_x, g_y = n_units
    G = g_x + g_y
    rows = np.arange(n_resamples)[:, None]
    if method == "permutation":
        # A uniformly random g_x-subset per row (Y* is the complement).
        return permutation_counts(rng, n_resamples, n_units, out), None
    draws = rng.integers(0, G, size=(n_resamples, g_x + g_y))
    flat = draws + rows * G
    A = np.bincount(flat[:, :g_x].ravel(), minlength=n_resamples * G)
    C = np.bincount(flat[:, g_x:].ravel(), minlength=n_resamples * G)
    shape = (n_resamples, G)
    return A.reshape(shape).astype(np.float64), C.reshape(shape).astype(np.float64)


def feature_products(sums, A, C, permutation):
    """``(a^T K a, c^T K c, a^T K c)`` for every row of ``A`` and ``C``, from
    the pipeline's :class:`~skmmd._inference._calibration.FeatureSums` (``K``
    the features' inner products); with ``permutation`` Y* is the complement
    of X* and ``C`` is not read."""
    S_x = sums.times(A) + sums.fixed["s_x"]
    S_y = sums.total - S_x if permutation else sums.times(C) + sums.fixed["s_y"]
    return (
        np.einsum("ij,ij->i", S_x, S_x),
        np.einsum("ij,ij->i", S_y, S_y),
        np.einsum("ij,ij->i", S_x, S_y),
    )


def products(sums, A, C, permutation):
    """:func:`feature_products` of the pipeline's sums of one map, or the
    sums' own products (:class:`KernelSums`, the per-column
    :class:`~skmmd.two_sample._resampled.ColumnSums`)."""
    if type(sums) is FeatureSums:
        return feature_products(sums, A, C, permutation)
    return sums.products(A, C, permutation)


def mean_difference(sums, m, n):
    """``s_x / m - s_y / n`` of the observed samples (the witness weights)."""
    a, _ = observed_counts(sums.n_units)
    s_x = sums.times(a)[0] + sums.fixed["s_x"]
    return s_x / m - (sums.total - s_x) / n


def kernel_rows(kernel, P, name):
    """Chunks ``(rows, K[rows])`` of the kernel matrix of ``P`` with itself,
    within ``_budgets.MAP_CHUNK_ENTRIES`` entries each; a non-finite value is a
    ValueError naming the rows and the kernel ``name``."""
    for rows in gen_batches(
        P.shape[0], max(1, _budgets.MAP_CHUNK_ENTRIES // P.shape[0])
    ):
        K = np.asarray(kernel(P[rows], P), dtype=np.float64)
        if not np.all(np.isfinite(K)):
            raise ValueError(
                f"The kernel returned non-finite values (NaN or infinity) for "
                f"rows {rows.start}-{rows.stop - 1} of the pooled sample; a "
                f"kernel must give finite similarities (kernel={name!r})."
            )
        yield rows, K


class KernelSums:
    """The exact Gram matrix of the pooled sample, stored or in row blocks."""

    def __init__(self, pooled, kernel_rows):
        self.pooled, self._kernel_rows = pooled, kernel_rows
        N = pooled.shape[0]
        self.K = np.empty((N, N)) if N * N <= _budgets.GRAM_ENTRIES else None
        self.q, self.r = np.empty(N), np.empty(N)
        for rows, K in kernel_rows(pooled):
            if self.K is not None:
                self.K[rows] = K
            self.q[rows] = np.diagonal(K[:, rows])
            self.r[rows] = K.sum(axis=1)
        self.total = self.r.sum()
        self.sizes = np.ones(N)
        self.fixed = {
            "s_x": 0.0,
            "s_y": 0.0,
            "q_x": 0.0,
            "q_y": 0.0,
            "r_x": 0,
            "r_y": 0,
        }
        self.n_units = None

    def times(self, W):
        """``K @ W.T`` (the faster orientation), blockwise when K is not stored."""
        if self.K is not None:
            return self.K @ W.T
        out = np.empty((W.shape[1], W.shape[0]))
        for rows, K in self._kernel_rows(self.pooled):
            out[rows] = K @ W.T
        return out

    def products(self, A, C, permutation):
        """``(a^T K a, c^T K c, a^T K c)`` for every row of ``A`` and ``C``."""
        if permutation:
            P_xx = np.einsum("ij,ji->i", A, self.times(A))
            ar = A @ self.r
            return P_xx, self.total - 2 * ar + P_xx, ar - P_xx
        b = A.shape[0]
        KW = self.times(np.vstack([A, C]))
        return (
            np.einsum("ij,ji->i", A, KW[:, :b]),
            np.einsum("ij,ji->i", C, KW[:, b:]),
            np.einsum("ij,ji->i", A, KW[:, b:]),
        )
