"""Gaussian mixtures: a composite mixture's resamples refit from the law they
are drawn from (:func:`em_refit`: EM in numpy on the mixture's own
parameters, without the estimator's k-means start, initializations and
checks, which cost a resample many times its EM steps), and the views the
aggregated test adds for a mixture (:func:`mixture_views`: the leading
principal subspaces of the model's covariance)."""

import copy

import numpy as np

from .._utils._compat import (
    compute_precision_cholesky,
    estimate_gaussian_parameters,
    estimate_log_gaussian_prob,
)


def em_refit(start, X):
    """A copy of the fitted ``GaussianMixture`` ``start`` refit to the rows
    ``X`` by EM from ``start``'s own parameters: E and M steps until the
    mean log-likelihood moves by less than ``start.tol`` or after
    ``start.max_iter`` steps, as its ``fit`` stops (one initialization: the
    start).

    Parameters
    ----------
    start : GaussianMixture
        A fitted mixture (any ``covariance_type``), left as it is.
    X : ndarray of shape (n, d)
        The rows.

    Returns
    -------
    model : GaussianMixture
        The refit mixture, with the attributes a fit sets that a score
        reads (``weights_``, ``means_``, ``covariances_``,
        ``precisions_cholesky_``, ``precisions_``, ``n_iter_``).
    """
    kind, n = start.covariance_type, X.shape[0]
    weights, means = start.weights_, start.means_
    chol = start.precisions_cholesky_
    covariances, previous, step = start.covariances_, -np.inf, 0
    for step in range(1, start.max_iter + 1):
        weighted = _log_gaussian(X, means, chol, kind) + np.log(weights)
        top = weighted.max(axis=1, keepdims=True)
        resp = np.exp(weighted - top)
        total = resp.sum(axis=1, keepdims=True)
        norm = np.log(total[:, 0]) + top[:, 0]
        resp /= total
        weights, means, covariances = _gaussian_parameters(
            X, resp, start.reg_covar, kind
        )
        weights = weights / n
        chol = _precision_cholesky(covariances, kind)
        likelihood = float(norm.mean())
        if abs(likelihood - previous) < start.tol:
            break
        previous = likelihood
    model = copy.copy(start)
    model.weights_, model.means_ = weights, means
    model.covariances_, model.precisions_cholesky_ = covariances, chol
    if kind == "full":
        model.precisions_ = np.matmul(chol, chol.transpose(0, 2, 1))
    elif kind == "tied":
        model.precisions_ = chol @ chol.T
    else:
        model.precisions_ = chol**2
    model.n_iter_, model.lower_bound_ = step, likelihood
    return model


def _precision_cholesky(covariances, kind):
    """The Cholesky factors of the precisions, batched over the components
    of a full covariance (scikit-learn's helper factors them one by one)."""
    if kind != "full":
        return compute_precision_cholesky(covariances, kind)
    try:
        lower = np.linalg.cholesky(covariances)
    except np.linalg.LinAlgError:  # the helper's error, which names the fix
        return compute_precision_cholesky(covariances, kind)
    return np.linalg.inv(lower).transpose(0, 2, 1)


def _log_gaussian(X, means, chol, kind):
    """``log N(x | mean_k, cov_k)`` of every row and component (n, K),
    batched over the components of a full covariance."""
    if kind != "full":
        return estimate_log_gaussian_prob(X, means, chol, kind)
    d = X.shape[1]
    Y = np.matmul(X[None, :, :] - means[:, None, :], chol)  # (K, n, d)
    log_det = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
    return -0.5 * ((Y * Y).sum(axis=2).T + d * np.log(2 * np.pi)) + log_det


def _gaussian_parameters(X, resp, reg_covar, kind):
    """The M step's weights (unnormalized), means and covariances, batched
    over the components of a full covariance (as scikit-learn's helper)."""
    if kind != "full":
        return estimate_gaussian_parameters(X, resp, reg_covar, kind)
    nk = resp.sum(axis=0) + 10 * np.finfo(resp.dtype).eps
    means = resp.T @ X / nk[:, None]
    D = X[None, :, :] - means[:, None, :]
    weighted = resp.T[:, :, None] * D
    covariances = np.matmul(weighted.transpose(0, 2, 1), D) / nk[:, None, None]
    covariances += reg_covar * np.eye(X.shape[1])
    return nk, means, covariances


def mixture_views(gm):
    """The leading principal subspaces of a fitted Gaussian mixture's
    covariance, of each dimension ``m = 1, ..., min(K, d - 1)`` (``K``
    components in ``d`` dimensions): the bases (d, m), orthonormal columns,
    that the aggregated test's grid is also applied on.

    The mixture's covariance ``sum_k w_k (Sigma_k + mu_k mu_k') - mu mu'``
    is largest along the directions in which its components differ: their
    means span at most ``K - 1`` of them, and a component that covers what
    is more than one (two blobs merged) is longest along one more. A kernel
    on all ``d`` coordinates sees a misfit in these few weakly when the
    others are noise, as each coordinate's score adds its noise to the
    statistic; on the subspace, with the score projected on it, the
    statistic holds the misfit and none of the other coordinates' noise
    (a sliced Stein discrepancy, Gong, Li & Hernandez-Lobato 2021). As the
    number of directions that hold a misfit is not known, each leading
    subspace up to ``K`` is a view, and the aggregation pays for them with a
    smaller correction than the power they add. None where ``d = 1``.

    Parameters
    ----------
    gm : GaussianMixture or BayesianGaussianMixture
        A fitted mixture, any ``covariance_type``.

    Returns
    -------
    bases : list of ndarray of shape (d, m)
        The views, from ``m = 1``.
    """
    weights, means = gm.weights_, gm.means_
    K, d = means.shape
    centred = means - weights @ means
    covariance = np.einsum("k,kij->ij", weights, _full_covariances(gm))
    covariance += (weights[:, None] * centred).T @ centred
    _, axes = np.linalg.eigh(covariance)  # eigenvalues in increasing order
    axes = axes[:, ::-1]
    return [np.ascontiguousarray(axes[:, :m]) for m in range(1, min(K, d - 1) + 1)]


def _full_covariances(gm):
    """Every component's covariance as a full (K, d, d) array."""
    K, d = gm.means_.shape
    kind, covariances = gm.covariance_type, np.asarray(gm.covariances_)
    if kind == "full":
        return covariances
    if kind == "tied":
        return np.broadcast_to(covariances, (K, d, d))
    if kind == "diag":
        return covariances[:, :, None] * np.eye(d)
    return covariances[:, None, None] * np.eye(d)  # spherical
