"""Generators of the two-sample problems used in the source papers' experiments."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ._compat import Interval, validate_params

__all__ = ["make_blobs_two_sample"]


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
