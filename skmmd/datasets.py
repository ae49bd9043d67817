"""Generators for the benchmark problems of the source papers."""

from numbers import Integral, Real

import numpy as np
from scipy.stats import multivariate_normal
from sklearn.utils import check_random_state

from ._compat import Interval, validate_params

__all__ = [
    "TruncatedMixtureDensity",
    "make_blobs_two_sample",
    "make_mixture_bags",
    "make_mixture_components_regression",
]

# ---------------------------------------------------------------------------
# Two-sample problems
# ---------------------------------------------------------------------------


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_samples_y": [None, Interval(Integral, 1, None, closed="left")],
        "epsilon": [Interval(Real, 1, None, closed="left")],
        "grid": [Interval(Integral, 1, None, closed="left")],
        "separation": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_blobs_two_sample(
    n_samples=1000,
    *,
    n_samples_y=None,
    epsilon=4.0,
    grid=5,
    separation=10.0,
    random_state=None,
):
    """Gaussian blobs: a ``grid x grid`` mixture, spherical (P) vs elongated (Q).

    The benchmark of Gretton et al. (2012b) used by FastMMD (section 4.1): both
    distributions are equal-weight mixtures of 2-D Gaussians centred on a
    square grid with spacing ``separation``; P's blobs have identity covariance,
    Q's have covariance ``[[1, c], [c, 1]]`` with ``c = (epsilon - 1) /
    (epsilon + 1)``, i.e. eigenvalues with ratio ``epsilon`` along the
    diagonals. The difference is local to each blob, so a test needs a
    bandwidth near the blob scale (about 1) to see it.

    Parameters
    ----------
    n_samples : int, default=1000
        Points drawn from P.
    n_samples_y : int, default=None
        Points drawn from Q; ``None`` means ``n_samples``.
    epsilon : float, default=4.0
        Ratio of Q's large to small covariance eigenvalue; 1 makes P = Q (the
        null hypothesis).
    grid : int, default=5
        Blobs per side.
    separation : float, default=10.0
        Distance between neighbouring centres.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator for the draws. Pass an int for
        reproducible output across multiple function calls.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Sample from P.
    Y : ndarray of shape (n_samples_y, 2)
        Sample from Q.

    References
    ----------
    .. [1] A. Gretton, D. Sejdinovic, H. Strathmann, et al. Optimal kernel
       choice for large-scale two-sample tests. NIPS 2012.
    .. [2] J. Zhao and D. Meng. FastMMD. Neural Computation, 2015, section 4.1.

    Examples
    --------
    >>> from skmmd.datasets import make_blobs_two_sample
    >>> X, Y = make_blobs_two_sample(500, random_state=0)
    >>> X.shape, Y.shape
    ((500, 2), (500, 2))
    """
    rng = check_random_state(random_state)
    n_y = n_samples if n_samples_y is None else n_samples_y
    corr = (epsilon - 1.0) / (epsilon + 1.0)
    chol = np.linalg.cholesky(np.array([[1.0, corr], [corr, 1.0]]))

    def centres(n):
        return separation * rng.randint(grid, size=(n, 2))

    X = rng.standard_normal((n_samples, 2)) + centres(n_samples)
    Y = rng.standard_normal((n_y, 2)) @ chol.T + centres(n_y)
    return X, Y


# ---------------------------------------------------------------------------
# Sets drawn from mixtures of truncated Gaussians on [0,1]^2 (HDD paper,
# Sutherland et al. 2016, section 13 of specs/hdd.md; funcLearn's
# mirror_dists.m and mirror_gmm.m)
# ---------------------------------------------------------------------------

_BOX = 8.0  # components live in [-8, 8]^2, mapped to [0, 1]^2 by (x + 8) / 16


class TruncatedMixtureDensity:
    """Density on ``[0,1]^2`` of an equal-weight Gaussian mixture truncated to
    ``[-8, 8]^2`` and mapped by ``(x + 8) / 16``.

    Calling it on an ``(m, 2)`` array of points in ``[0,1]^2`` returns the
    ``m`` density values (the exact density the sets are drawn from).

    Parameters
    ----------
    means : ndarray of shape (n_components, 2)
        Component means in the original ``[-8, 8]^2`` coordinates.
    covariances : ndarray of shape (n_components, 2, 2)
        Component covariances in the original coordinates.
    """

    def __init__(self, means, covariances):
        self.means = np.asarray(means, dtype=np.float64)
        self.covariances = np.asarray(covariances, dtype=np.float64)
        self._components = [
            multivariate_normal(mean=m, cov=c)
            for m, c in zip(self.means, self.covariances)
        ]
        lower, upper = np.full(2, -_BOX), np.full(2, _BOX)
        mass = sum(c.cdf(upper, lower_limit=lower) for c in self._components)
        # Sampling draws as many points per component and discards those
        # outside the box, so the kept points follow sum_k N_k 1_box / sum_k
        # P_k(box); the Jacobian of x -> (x + 8) / 16 is 16^2.
        self._scale = (2 * _BOX) ** 2 / mass

    def __call__(self, u):
        x = np.asarray(u, dtype=np.float64) * (2 * _BOX) - _BOX
        return self._scale * sum(c.pdf(x) for c in self._components).reshape(-1)


def _random_component(rng):
    """funcLearn's component law: ``A = (U + 1)(2 U_{2x2} - 1)``,
    ``Sigma = A A^T + diag(U_2)``, mean ``U([-5, 5]^2)``."""
    A = (rng.uniform() + 1.0) * (2.0 * rng.uniform(size=(2, 2)) - 1.0)
    cov = A @ A.T + np.diag(rng.uniform(size=2))
    mean = rng.uniform(-5.0, 5.0, size=2)
    return mean, cov


def _draw_mixture_bag(n_components, n_points, rng):
    per = -(-n_points // n_components)
    means, covs, points = [], [], []
    for _ in range(n_components):
        mean, cov = _random_component(rng)
        means.append(mean)
        covs.append(cov)
        points.append(rng.multivariate_normal(mean, cov, size=per))
    X = np.concatenate(points)
    X = X[np.all(np.abs(X) <= _BOX, axis=1)]
    X = X[rng.permutation(X.shape[0])]
    return (X + _BOX) / (2 * _BOX), means, covs


def make_mixture_bags(n_bags=30, *, n_points=1000, n_components=5, random_state=None):
    """Sets of points from random mixtures of truncated Gaussians on ``[0,1]^2``.

    The Gram-matrix experiment of the HDD paper: each set comes from its own
    equal-weight mixture of ``n_components`` Gaussians (funcLearn's random
    means and covariances), ``ceil(n_points / n_components)`` points per
    component, points outside ``[-8, 8]^2`` discarded, then mapped to
    ``[0,1]^2``.

    Parameters
    ----------
    n_bags : int, default=30
        Number of sets.
    n_points : int, default=1000
        Points drawn per set before truncation (a few may be discarded).
    n_components : int, default=5
        Mixture components per set.
    random_state : int, RandomState instance or None, default=None
        Controls the mixtures and the samples. Pass an int for reproducible
        output across multiple function calls.

    Returns
    -------
    bags : list of ndarray of shape (n_i, 2)
        The sets, in ``[0,1]^2``.
    densities : list of TruncatedMixtureDensity
        The exact density of each set (callables on ``[0,1]^2``), for the
        true kernel values (e.g. :func:`skmmd.kernels.hdd_kernel`).

    Examples
    --------
    >>> from skmmd.datasets import make_mixture_bags
    >>> bags, densities = make_mixture_bags(3, n_points=100, random_state=0)
    >>> len(bags), bags[0].shape[1], densities[0](bags[0][:2]).shape
    (3, 2, (2,))
    """
    rng = check_random_state(random_state)
    bags, densities = [], []
    for _ in range(n_bags):
        X, means, covs = _draw_mixture_bag(n_components, n_points, rng)
        bags.append(X)
        densities.append(TruncatedMixtureDensity(means, covs))
    return bags, densities


def make_mixture_components_regression(
    n_bags=1000, *, n_points=200, max_components=10, random_state=None
):
    """Regress the number of mixture components from a set of samples.

    The HDD paper's regression problem (funcLearn's ``mirror_gmm.m``): the
    number of components is uniform on ``{1..max_components}``; each set has
    ``ceil(n_points / K)`` points per component, drawn as in
    :func:`make_mixture_bags`.

    Parameters
    ----------
    n_bags : int, default=1000
        Number of sets.
    n_points : int, default=200
        Points per set before truncation.
    max_components : int, default=10
        Largest number of components.
    random_state : int, RandomState instance or None, default=None
        Controls the mixtures and the samples. Pass an int for reproducible
        output across multiple function calls.

    Returns
    -------
    bags : list of ndarray of shape (n_i, 2)
        The sets, in ``[0,1]^2``.
    y : ndarray of shape (n_bags,)
        Number of components of each set (float).

    Examples
    --------
    >>> from skmmd.datasets import make_mixture_components_regression
    >>> bags, y = make_mixture_components_regression(5, random_state=0)
    >>> len(bags), y.shape, bool(y.min() >= 1 and y.max() <= 10)
    (5, (5,), True)
    """
    rng = check_random_state(random_state)
    y = rng.randint(1, max_components + 1, size=n_bags)
    bags = [_draw_mixture_bag(k, n_points, rng)[0] for k in y]
    return bags, y.astype(np.float64)
