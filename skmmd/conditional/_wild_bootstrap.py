"""The scale of the conditional test's multiplier bootstrap: wild re-fits of
the cross-fitted ridge (:func:`null_scale`) on pseudo-data of random signs
drawn per row position (:func:`pseudo_signs`), so that the bootstrap's mean
matches the statistic's under H0 although residuals of different rows share
fit noise.
"""

import numpy as np

from .._utils import _streams
from ..statistics._conditional import residual_products


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
    >>> from skmmd.conditional._wild_bootstrap import pseudo_signs
    >>> w, v = pseudo_signs(0, [5, 6, 7], 2)
    >>> bool((pseudo_signs(0, [6], 2)[0] == w[1]).all()), w.shape
    (True, (3, 2))
    """
    positions = np.asarray(positions, dtype=np.int64)
    out = np.empty((positions.size, 2 * n_draws))
    block = 4096
    for b in np.unique(positions // block):
        rows = positions // block == b
        rng = _streams.generator(seed, _streams.WILD_SIGNS, int(b))
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
    ridge : ~skmmd.conditional._ridge.RidgeFolds
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
    trained on. These are negative, of the order of ``df / n_train``, so
    without the correction the test is conservative. Draw ``M`` pseudo-data
    sets of pure noise, ``w_i r_i`` and ``v_i s_i`` with independent signs
    (H0 holds: independent noise, conditional means 0), re-fit them with the
    same folds and penalties (one solve each, the eigendecompositions kept), and compare
    the mean of ``||sum_i u*_i||^2`` with that of ``sum_i ||u*_i||^2``.

    The first is estimated as ``sum_i ||u_i||^2 + ||sum_i (u*_i - w_i v_i
    u_i)||^2``: the no-refit draw ``t0 = sum_i w_i v_i u_i`` (a bootstrap
    draw, of known mean square ``sum_i ||u_i||^2``) is uncorrelated with the
    re-fits' part ``d = sum_i u*_i - t0``, because a row never trains its own
    fits (``H_ii = 0``) and no row trains both the x- and the y-fit of
    another (disjoint training folds, ``ridge.split``; without it the
    estimate keeps ``2 t0 . d``). So ``E||t0 + d||^2 = E||t0||^2 +
    E||d||^2``, and the draws' ``2 t0 . d``, of mean 0 and the largest
    variance in the test's regime, are left out, which makes the estimate's
    spread over sign draws smaller than that of ``||t0 + d||^2 - ||t0||^2``.
    Where the fits nearly interpolate Gaussian noise (penalty ``1e-3``,
    ``Dz`` near ``n_train``) ``d`` dominates and it can be larger.
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
