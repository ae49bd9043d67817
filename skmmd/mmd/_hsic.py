"""HSIC, the MMD between a joint distribution and the product of its marginals,
from explicit features (Zhang, Filippi, Gretton & Sejdinovic 2018).

With features ``a_i`` of x and ``b_i`` of y for ``G`` observations (points, or
the unit sums of the independence test), ``K = a a^T`` and ``L = b b^T``, a
pairing ``pi`` of the y observations with the x ones has

- biased HSIC ``(1/G^2) sum_ij Kc_ij Lc_pi(i)pi(j)`` with centered Grams;
- unbiased HSIC (Song et al. 2012) from the zero-diagonal Grams ``K~, L~``:
  ``[tr(K~ L~) + 1'K~1 1'L~1 / ((G-1)(G-2)) - 2/(G-2) 1'K~L~1] / (G(G-3))``.

Each needs one quadratic sum ``sum_ij K_ij L_pi(i)pi(j)`` (``G^2`` per pairing,
compiled) and sums of ``G`` terms; ``G x G`` Grams are formed once, so the cost
never grows with the number of rows behind an observation.
"""

import numpy as np
from numba import njit, prange
from sklearn.utils import check_array

from .._utils._compat import StrOptions, validate_params

# Gram matrices of at most this many observations (two 128 MB float64 arrays).
MAX_OBSERVATIONS = 4096


@njit(parallel=True, cache=True)
def _paired_quadratic(K, L, pairings):  # pragma: no cover - compiled
    """``sum_ij K_ij L_p(i)p(j)`` for every row ``p`` of ``pairings``."""
    B, G = pairings.shape
    out = np.empty(B)
    for b in prange(B):
        p = pairings[b]
        total = 0.0
        for i in range(G):
            row = L[p[i]]
            Ki = K[i]
            acc = 0.0
            for j in range(G):
                acc += Ki[j] * row[p[j]]
            total += acc
        out[b] = total
    return out


def feature_gram(a):
    """The Gram ``a a^T`` of features centered over the observations (HSIC
    does not change when a constant is added to a feature map, and centered
    features keep the rounding small)."""
    a = np.asarray(a, dtype=np.float64)
    a = a - a.mean(axis=0)
    return a @ a.T


def centered_gram(K):
    """``H K H`` with ``H = I - 11'/G``: the Gram of the centered features of
    any kernel (the centering :func:`feature_gram` does in feature space)."""
    K = np.asarray(K, dtype=np.float64)
    rows = K.mean(axis=1)
    return K - rows[:, None] - K.mean(axis=0)[None, :] + rows.mean()


class HSICParts:
    """The Grams of ``G`` observations and the terms of both estimators that
    depend on the pairing only through O(G) sums.

    Parameters
    ----------
    K : ndarray of shape (G, G)
        Centered Gram of x (:func:`feature_gram` of features or unit sums of
        features, or :func:`centered_gram` of an exact kernel matrix).
    L : ndarray of shape (G, G)
        Centered Gram of y, its rows paired with those of ``K``.
    unbiased : bool
        Which estimator.
    """

    def __init__(self, K, L, unbiased):
        self.G = G = K.shape[0]
        self.unbiased = unbiased
        self.K, self.L = K, L
        if unbiased:
            dk, dl = np.diagonal(self.K).copy(), np.diagonal(self.L).copy()
            self.dk, self.dl = dk, dl
            # Row sums of the zero-diagonal Grams, and their totals.
            self.rk = self.K.sum(axis=1) - dk
            self.rl = self.L.sum(axis=1) - dl
            self.const = self.rk.sum() * self.rl.sum() / ((G - 1) * (G - 2))

    def statistics(self, pairings):
        """HSIC of each pairing (rows of ``pairings``, int64 of shape (B, G)).

        Returns the statistics and their rounding scales (for ties).
        """
        G = self.G
        quadratic = _paired_quadratic(self.K, self.L, pairings)
        scale = np.abs(self.K).sum() * np.abs(self.L).max() + 0.0 * quadratic
        if not self.unbiased:
            return quadratic / G**2, scale / G**2
        diagonal = self.dk @ self.dl[pairings].T
        cross = self.rk @ self.rl[pairings].T
        stat = quadratic - diagonal + self.const - 2.0 * cross / (G - 2)
        return stat / (G * (G - 3)), scale / (G * (G - 3))

    def jackknife(self):
        """The unbiased HSIC of the observed pairing and its delete-one
        jackknife standard error (``O(G^2)``; needs ``G >= 5``)."""
        G = self.G
        Kt = self.K - np.diag(np.diagonal(self.K))
        Lt = self.L - np.diag(np.diagonal(self.L))
        rk, rl = Kt.sum(axis=1), Lt.sum(axis=1)
        cross = np.einsum("ij,ij->i", Kt, Lt)
        g = G - 1  # observations left
        trace = cross.sum() - 2.0 * cross
        sk, sl = rk.sum() - 2.0 * rk, rl.sum() - 2.0 * rl
        rows = rk @ rl - rk * rl - Lt @ rk - Kt @ rl + cross
        loo = (trace + sk * sl / ((g - 1) * (g - 2)) - 2.0 * rows / (g - 2)) / (
            g * (g - 3)
        )
        full = (
            cross.sum()
            + rk.sum() * rl.sum() / ((G - 1) * (G - 2))
            - 2.0 * (rk @ rl) / (G - 2)
        ) / (G * (G - 3))
        se = np.sqrt((G - 1) / G * np.sum((loo - loo.mean()) ** 2))
        return float(full), float(se)

    def observed(self):
        """The statistic of the observed pairing and its rounding scale."""
        stat, scale = self.statistics(np.arange(self.G)[None, :])
        return float(stat[0]), float(scale[0])


@validate_params(
    {
        "X": ["array-like"],
        "Y": ["array-like"],
        "statistic": [StrOptions({"biased", "unbiased"})],
    },
    prefer_skip_nested_validation=True,
)
def hsic_features(X, Y, *, statistic="biased"):
    """HSIC of paired features: the squared norm of their cross-covariance.

    The biased estimator is ``||C||_F^2`` with ``C = (1/n) sum_i (x_i -
    mean x)(y_i - mean y)^T``, i.e. ``(1/n^2) tr(K H L H)`` with the Gram
    matrices of the linear kernel on these features; the unbiased estimator
    is Song et al.'s (2012). Both are computed from the ``n x n`` Grams, as
    :class:`~skmmd.HSICTest` computes them for its resampling units, so at
    most 4096 rows.

    Parameters
    ----------
    X : array-like of shape (n, D_x)
        Features of the first variable (e.g. ``sampler.transform(x)``).
    Y : array-like of shape (n, D_y)
        Features of the second variable, row ``i`` paired with row ``i`` of X.
    statistic : {"biased", "unbiased"}, default="biased"
        The estimator.

    Returns
    -------
    hsic : float
        The estimate (the unbiased one may be slightly negative).

    See Also
    --------
    skmmd.HSICTest : The permutation test of independence built on it.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd import hsic_features
    >>> x = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> round(hsic_features(x, 2 * x), 6)  # (2 var(x))^2 = (2 * 1.25)^2
    6.25
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = check_array(Y, dtype=np.float64, input_name="Y")
    n = X.shape[0]
    if Y.shape[0] != n:
        raise ValueError(
            f"X and Y must have the same number of rows (paired); got {n} and "
            f"{Y.shape[0]}."
        )
    low = 4 if statistic == "unbiased" else 1
    if not low <= n <= MAX_OBSERVATIONS:
        raise ValueError(
            f"The {statistic} HSIC of features takes {low} to {MAX_OBSERVATIONS} "
            f"rows; got {n}."
        )
    parts = HSICParts(feature_gram(X), feature_gram(Y), statistic == "unbiased")
    return parts.observed()[0]
