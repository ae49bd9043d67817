"""Truncated-Gaussian kernel density estimates of sets of points in
``[0,1]^d`` (on the midpoint grid, or at any points) and their bandwidth by
leave-one-out ISE cross-validation, for :class:`HDDSampler`."""

import numpy as np
from scipy.special import ndtr
from sklearn.metrics.pairwise import euclidean_distances


def _gaussian_factors(x, nodes, h):
    """Unnormalised 1-D Gaussian factors ``exp(-(u_g - x_m)^2 / 2h^2)``, (n, G)."""
    return np.exp(-0.5 * ((nodes[None, :] - x[:, None]) / h) ** 2)


def grid_kde(bag, nodes, h):
    """Truncated-Gaussian KDE of one set on the midpoint grid, flattened.

    Each point's kernel is renormalised so that its midpoint-rule integral
    over the grid is exactly 1 per axis (the discrete counterpart of
    dividing by ``Phi((1-x)/h) - Phi(-x/h)``), so the estimate integrates to 1.
    The product kernel factorises over axes: for d = 2 the grid values are
    ``K_1^T K_2 / n``, one GEMM.

    Returns
    -------
    p : ndarray of shape (G^d,)
        Density values on the grid.
    norms : ndarray of shape (n,)
        Per point normaliser ``prod_d mean_g exp(-(u_g - x_md)^2 / 2h^2)``.
    """
    n, d = bag.shape
    R = None
    norms = np.ones(n)
    for j in range(d):
        K = _gaussian_factors(bag[:, j], nodes, h)
        c = np.maximum(K.mean(axis=1), np.finfo(np.float64).tiny)
        K /= c[:, None]
        norms *= c
        if j == d - 1:
            p = K.sum(axis=0) / n if R is None else (R.T @ K).ravel() / n
        else:
            R = K if R is None else (R[:, :, None] * K[:, None, :]).reshape(n, -1)
    return p, norms


def kde_at_points(bag, points, h):
    """Truncated-Gaussian KDE of one set at any ``points`` of ``[0,1]^d``,
    each point's kernel normalised by its mass in the box."""
    # analytic truncation normaliser sqrt(2 pi) h [Phi((1-x)/h) - Phi(-x/h)]
    norms = np.prod(
        np.sqrt(2.0 * np.pi) * h * (ndtr((1.0 - bag) / h) - ndtr(-bag / h)), axis=1
    )
    K = euclidean_distances(points, bag, squared=True)
    K *= -0.5 / h**2
    np.exp(K, out=K)
    return K @ (1.0 / norms) / bag.shape[0]


def loo_ise_score(bag, nodes, h, sq_dists):
    """Least-squares cross-validation score ``int p^2 - 2 mean_m p_{-m}(x_m)``.

    ``int p^2`` by the midpoint rule on the grid (accurate for ``h`` above
    the grid spacing); the leave-one-out term exactly at the points.
    """
    n = bag.shape[0]
    p, norms = grid_kde(bag, nodes, h)
    K = np.exp(-0.5 / h**2 * sq_dists)
    np.fill_diagonal(K, 0.0)
    loo = (K @ (1.0 / norms)) / (n - 1)
    return float(np.mean(p**2) - 2.0 * np.mean(loo))


def cross_validate_kde_bandwidth(bags, grid_size, rng, max_points=2000):
    """One KDE bandwidth for all sets (funcLearn's procedure).

    For each set with at least 2 points, minimise the leave-one-out ISE score
    over ``h = 2^(k/4)`` between the grid spacing and 1/2 (a coarse pass in
    steps of ``2^(1/2)``, then its two neighbours); return
    ``sqrt(min(median, mean))`` of the chosen ``h^2``. A set larger than
    ``max_points`` is subsampled (the score costs ``O(n^2)``) and its ``h``
    rescaled by ``(n_sub / n)^(1 / (d + 4))``, the optimal-bandwidth rate.
    """
    nodes = (np.arange(grid_size) + 0.5) / grid_size
    lo, hi = int(np.ceil(4 * np.log2(1.0 / grid_size))), -4
    chosen = []
    for bag in bags:
        n, d = bag.shape
        if n < 2:
            continue
        if n > max_points:
            bag = bag[rng.choice(n, size=max_points, replace=False)]
        sq = euclidean_distances(bag, squared=True)
        cache = {}

        def score(k, bag=bag, sq=sq, cache=cache):
            k = min(max(k, lo), hi)
            if k not in cache:
                cache[k] = loo_ise_score(bag, nodes, 2.0 ** (k / 4), sq)
            return cache[k]

        k_best = min(range(lo, hi + 1, 2), key=score)
        k_best = min(max(min((k_best - 1, k_best, k_best + 1), key=score), lo), hi)
        h = 2.0 ** (k_best / 4) * (bag.shape[0] / n) ** (1.0 / (d + 4))
        chosen.append(h**2)
    if not chosen:
        return None
    return float(np.sqrt(min(np.median(chosen), np.mean(chosen))))
