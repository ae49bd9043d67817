"""Generators for the benchmark problems of the source papers."""

from numbers import Integral, Real

import numpy as np
from scipy.stats import multivariate_normal
from sklearn.utils import check_random_state

from ._utils._compat import Interval, validate_params

__all__ = [
    "TruncatedMixtureDensity",
    "make_blobs_two_sample",
    "make_hdgm",
    "make_liu_blobs",
    "make_mixture_bags",
    "make_mixture_components_regression",
    "make_mixture_of_gaussians",
    "make_perturbed_uniform",
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


@validate_params(
    {
        "samples_per_blob": [Interval(Integral, 1, None, closed="left")],
        "null": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_liu_blobs(samples_per_blob=40, *, null=False, random_state=None):
    """Blob of Liu et al. (2020): a 3 x 3 grid of Gaussians whose shapes differ.

    The alternative (their "Blob-D"): X's 9 blobs are spherical with variance
    0.03, Y's have covariances ``L^T L`` for the Cholesky factor ``L`` of
    ``[[0.03, c_i], [c_i, 0.03]]`` with ``c_i = -0.02 - 0.002 i`` for the first
    four blobs, 0 for the centre and ``0.02 + 0.002 (i - 5)`` for the last four,
    on centres ``{0, 1, 2}^2``; blobs are picked uniformly. The null ("Blob-S",
    ``null=True``): both samples are standard Gaussians on the same grid. The
    draws follow their code's order, so a seed gives their samples.

    Parameters
    ----------
    samples_per_blob : int, default=40
        ``n``: each sample has ``9 n`` points.
    null : bool, default=False
        Draw the null version (X and Y from one distribution).
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator for the draws.

    Returns
    -------
    X : ndarray of shape (9 * samples_per_blob, 2)
        Sample from P (spherical blobs; under the null, Blob-S).
    Y : ndarray of shape (9 * samples_per_blob, 2)
        Sample from Q (correlated blobs; under the null, like X).

    References
    ----------
    .. [1] F. Liu, W. Xu, J. Lu, G. Zhang, A. Gretton and D. J. Sutherland.
       Learning deep kernels for non-parametric two-sample tests. ICML 2020.

    Examples
    --------
    >>> from skmmd.datasets import make_liu_blobs
    >>> X, Y = make_liu_blobs(40, random_state=0)
    >>> X.shape, Y.shape
    ((360, 2), (360, 2))
    """
    rng = check_random_state(random_state)
    n = 9 * samples_per_blob
    if null:
        X = rng.multivariate_normal(np.zeros(2), np.eye(2), size=n)
        Y = rng.multivariate_normal(np.zeros(2), np.eye(2), size=n)
        for A in (X, Y):
            A[:, 0] += rng.randint(3, size=n)
            A[:, 1] += rng.randint(3, size=n)
        return X, Y
    X = rng.multivariate_normal(np.zeros(2), 0.03 * np.eye(2), size=n)
    Y = rng.multivariate_normal(np.zeros(2), np.eye(2), size=n)
    X[:, 0] += rng.randint(3, size=n)
    X[:, 1] += rng.randint(3, size=n)
    rows, cols = rng.randint(3, size=n), rng.randint(3, size=n)
    out = Y.copy()
    for i in range(9):
        c = -0.02 - 0.002 * i if i < 4 else (0.0 if i == 4 else 0.02 + 0.002 * (i - 5))
        L = np.linalg.cholesky(np.array([[0.03, c], [c, 0.03]]))
        cell = (rows == i // 3) & (cols == i % 3)
        out[cell] = Y[cell] @ L + [i // 3, i % 3]
    return X, out


@validate_params(
    {
        "samples_per_mode": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 2, None, closed="left")],
        "null": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_hdgm(samples_per_mode=1000, *, n_features=10, null=False, random_state=None):
    """HDGM of Liu et al. (2020): two Gaussian modes, correlations that differ.

    Both samples have two modes of ``samples_per_mode`` points each, centred at
    0 and at ``0.5`` in every coordinate. X's modes have identity covariance;
    Y's have correlation ``+0.5`` (first mode) and ``-0.5`` (second) between
    the first two coordinates, identity otherwise. With ``null=True`` Y is
    drawn like X.

    Parameters
    ----------
    samples_per_mode : int, default=1000
        Points per mode: each sample has ``2 samples_per_mode``.
    n_features : int, default=10
        Dimension ``d``.
    null : bool, default=False
        Draw the null version.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator for the draws.

    Returns
    -------
    X : ndarray of shape (2 * samples_per_mode, n_features)
        Sample from P, mode by mode.
    Y : ndarray of shape (2 * samples_per_mode, n_features)
        Sample from Q, mode by mode.

    References
    ----------
    .. [1] F. Liu, W. Xu, J. Lu, G. Zhang, A. Gretton and D. J. Sutherland.
       Learning deep kernels for non-parametric two-sample tests. ICML 2020.

    Examples
    --------
    >>> from skmmd.datasets import make_hdgm
    >>> X, Y = make_hdgm(100, random_state=0)
    >>> X.shape, Y.shape
    ((200, 10), (200, 10))
    """
    rng = check_random_state(random_state)
    d = n_features
    means = [np.zeros(d), np.full(d, 0.5)]
    X = np.vstack(
        [rng.multivariate_normal(mu, np.eye(d), samples_per_mode) for mu in means]
    )
    parts = []
    for mu, c in zip(means, (0.5, -0.5)):
        cov = np.eye(d)
        if not null:
            cov[0, 1] = cov[1, 0] = c
        parts.append(rng.multivariate_normal(mu, cov, samples_per_mode))
    return X, np.vstack(parts)


@validate_params(
    {
        "n_samples_x": [Interval(Integral, 1, None, closed="left")],
        "n_samples_y": [Interval(Integral, 1, None, closed="left")],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_mixture_of_gaussians(
    n_samples_x=500, n_samples_y=500, sigma=2.0, random_state=None
):
    """Two samples from mixtures of four Gaussians that differ in one component.

    Both mixtures have equal-weight components centred at ``(+-20, +-20)`` with
    unit standard deviation, except that in Y the component at ``(-20, -20)``
    has standard deviation ``sigma``. The difference is local and at a scale
    far below the median distance (about 40), where the median-heuristic MMD
    test has almost no power (MMD-FUSE, Biggs et al. 2023; MMDAgg).

    Parameters
    ----------
    n_samples_x : int, default=500
        Size of X.
    n_samples_y : int, default=500
        Size of Y.
    sigma : float, default=2.0
        Standard deviation of Y's component at ``(-20, -20)``; ``sigma=1`` is the
        null (same distribution).
    random_state : int, RandomState instance or None, default=None
        Determines the draws. Pass an int for reproducible output across
        multiple function calls.

    Returns
    -------
    X : ndarray of shape (n_samples_x, 2)
        Sample from the reference mixture.
    Y : ndarray of shape (n_samples_y, 2)
        Sample from the perturbed mixture.

    Examples
    --------
    >>> from skmmd.datasets import make_mixture_of_gaussians
    >>> X, Y = make_mixture_of_gaussians(100, 80, sigma=1.5, random_state=0)
    >>> X.shape, Y.shape
    ((100, 2), (80, 2))
    """
    rng = check_random_state(random_state)
    centers = np.array([[-20.0, -20.0], [-20.0, 20.0], [20.0, -20.0], [20.0, 20.0]])

    def draw(n, first_sd):
        component = rng.randint(4, size=n)
        sd = np.where(component == 0, first_sd, 1.0)[:, None]
        return centers[component] + sd * rng.standard_normal(size=(n, 2))

    return draw(n_samples_x, 1.0), draw(n_samples_y, float(sigma))


def _bump(t):
    """MMDAgg's G: a smooth positive bump on (-1, -1/2), negative on (-1/2, 0)."""
    out = np.zeros_like(t)
    up = (t > -1) & (t < -0.5)
    down = (t > -0.5) & (t < 0)
    out[up] = np.exp(-1 / (1 - (4 * t[up] + 3) ** 2))
    out[down] = -np.exp(-1 / (1 - (4 * t[down] + 1) ** 2))
    return out


@validate_params(
    {
        "n_samples_x": [Interval(Integral, 1, None, closed="left")],
        "n_samples_y": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_perturbations": [Interval(Integral, 1, None, closed="left")],
        "scale": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_perturbed_uniform(
    n_samples_x=500,
    n_samples_y=500,
    n_features=1,
    n_perturbations=2,
    scale=0.5,
    random_state=None,
):
    """A perturbed uniform sample X and a uniform sample Y on ``[0, 1]^d``.

    X has density (MMDAgg, Schrab et al. 2023, eq. 17, smoothness ``s = 1``)

        f(x) = 1 + c_d P^-1 sum_v theta_v prod_r G(P x_r - v_r),

    with ``P = n_perturbations`` bumps per axis, random signs ``theta_v``, and
    ``c_d = e^d P scale``, so ``scale = 1`` makes the density touch 0 (MMD-FUSE's
    parametrization). X is drawn by rejection sampling.

    Parameters
    ----------
    n_samples_x : int, default=500
        Size of the perturbed sample X.
    n_samples_y : int, default=500
        Size of the uniform sample Y.
    n_features : int, default=1
        Dimension d.
    n_perturbations : int, default=2
        Bumps per axis, P.
    scale : float in [0, 1], default=0.5
        Amplitude of the perturbation; 0 is the null.
    random_state : int, RandomState instance or None, default=None
        Determines the signs and the draws. Pass an int for reproducible output
        across multiple function calls.

    Returns
    -------
    X : ndarray of shape (n_samples_x, n_features)
        Sample from the perturbed density.
    Y : ndarray of shape (n_samples_y, n_features)
        Uniform sample.

    Examples
    --------
    >>> from skmmd.datasets import make_perturbed_uniform
    >>> X, Y = make_perturbed_uniform(200, 100, n_features=2, random_state=0)
    >>> X.shape, Y.shape
    ((200, 2), (100, 2))
    >>> bool(X.min() >= 0 and X.max() <= 1)
    True
    """
    rng = check_random_state(random_state)
    d, P = n_features, n_perturbations
    theta = rng.choice([-1.0, 1.0], size=(P,) * d)
    amplitude = np.exp(d) * scale  # c_d P^-s with c_d = e^d P^s scale
    density_max = 1.0 + amplitude * np.exp(-d)  # |G| <= 1/e

    def density(x):
        # Only the bump whose cell holds x is nonzero: v_r = floor(P x_r) + 1.
        cell = np.minimum(np.floor(P * x).astype(int), P - 1)
        bumps = np.prod(_bump(P * x - (cell + 1)), axis=1)
        return 1.0 + amplitude * theta[tuple(cell.T)] * bumps

    accepted = []
    n_left = n_samples_x
    while n_left > 0:
        x = rng.uniform(size=(2 * n_left + 16, d))
        keep = x[rng.uniform(0, density_max, size=x.shape[0]) <= density(x)]
        accepted.append(keep[:n_left])
        n_left -= accepted[-1].shape[0]
    return np.vstack(accepted), rng.uniform(size=(n_samples_y, d))


# ---------------------------------------------------------------------------
# Sets drawn from mixtures of truncated Gaussians on [0,1]^2: the synthetic
# experiments of the HDD paper (Sutherland, Oliva, Poczos & Schneider, AAAI
# 2016), with the generators of Oliva's funcLearn (syn_data/mirror_dists.m and
# syn_data/mirror_gmm.m)
# ---------------------------------------------------------------------------

_BOX = 8.0  # components live in [-8, 8]^2, mapped to [0, 1]^2 by (x + 8) / 16


class TruncatedMixtureDensity:
    """Density on ``[0,1]^2`` of a truncated, rescaled Gaussian mixture.

    An equal-weight Gaussian mixture truncated to ``[-8, 8]^2`` and mapped by
    ``(x + 8) / 16``. Calling it on an ``(m, 2)`` array of points in
    ``[0,1]^2`` returns the ``m`` density values (the exact density the sets
    are drawn from).

    Parameters
    ----------
    means : ndarray of shape (n_components, 2)
        Component means in the original ``[-8, 8]^2`` coordinates.
    covariances : ndarray of shape (n_components, 2, 2)
        Component covariances in the original coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.datasets import TruncatedMixtureDensity
    >>> p = TruncatedMixtureDensity(np.zeros((1, 2)), np.eye(2)[None])
    >>> p(np.array([[0.5, 0.5], [0.0, 0.0]])).shape
    (2,)
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
    """Draw sets of points from random mixtures of truncated Gaussians.

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
