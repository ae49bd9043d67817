"""Homogeneous density distances (HDD): exact references for HDDSampler."""

import numpy as np
from scipy.special import xlogy

from ._pairwise import _check_bandwidth

_DIVERGENCES = ("js", "hellinger", "tv")

# Default midpoints per axis when a density is given as a callable: the
# midpoint rule's error on a smooth density is O(n_grid^-2), and these grids
# keep one evaluation at about 4e3 to 2.6e5 points.
_DEFAULT_GRID = {1: 4096, 2: 256, 3: 64}


def _check_divergence(divergence):
    if divergence not in _DIVERGENCES:
        raise ValueError(
            f"divergence must be one of {_DIVERGENCES}; got {divergence!r}."
        )


def hdd_integrand(x, y, divergence="js"):
    """Pointwise integrand ``kappa(x, y)`` of a homogeneous density distance.

    ``rho^2(p, q) = integral of kappa(p(u), q(u)) du``, with ``kappa``
    symmetric, homogeneous of degree 1 and ``sqrt(kappa)`` a metric on the
    nonnegative reals.

    Parameters
    ----------
    x, y : array-like of nonnegative floats
        Density values (broadcast against each other).
    divergence : {"js", "hellinger", "tv"}, default="js"
        ``"js"``: ``x/2 ln(2x/(x+y)) + y/2 ln(2y/(x+y))`` (nats, with
        ``0 ln 0 = 0``); ``"hellinger"``: ``(sqrt(x) - sqrt(y))^2 / 2``;
        ``"tv"``: ``|x - y|``.

    Returns
    -------
    kappa : ndarray
        The integrand, elementwise.

    Examples
    --------
    >>> from skmmd.kernels import hdd_integrand
    >>> float(hdd_integrand(1.0, 0.0, "js"))  # = ln(2) / 2
    0.34657...
    """
    _check_divergence(divergence)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if divergence == "hellinger":
        return 0.5 * (np.sqrt(x) - np.sqrt(y)) ** 2
    if divergence == "tv":
        return np.abs(x - y)
    s = x + y
    # 0.5 [x ln x + y ln y - s ln(s/2)]; xlogy makes 0 ln 0 = 0 exactly.
    kappa = 0.5 * (xlogy(x, x) + xlogy(y, y) - xlogy(s, 0.5 * s))
    return np.maximum(kappa, 0.0)  # rounding can give -1e-17


def _grid_values(p, n_features, n_grid):
    """Density values on the midpoint grid of [0,1]^d (array or callable)."""
    if not callable(p):
        values = np.asarray(p, dtype=np.float64)
        if values.size == 0:
            raise ValueError("A density given on a grid must have at least one value.")
        return values.ravel()
    if n_features is None:
        raise ValueError(
            "n_features (the dimension d) is required when a density is a callable."
        )
    if n_grid is None:
        n_grid = _DEFAULT_GRID.get(n_features, 32)
    nodes = (np.arange(n_grid) + 0.5) / n_grid
    mesh = np.meshgrid(*([nodes] * n_features), indexing="ij")
    points = np.stack([m.ravel() for m in mesh], axis=1)
    values = np.asarray(p(points), dtype=np.float64).ravel()
    if values.shape[0] != points.shape[0]:
        raise ValueError(
            "A density callable must map an (m, d) array of points to m values; "
            f"got {values.shape[0]} values for {points.shape[0]} points."
        )
    return values


def density_divergence(p, q, *, divergence="js", n_features=None, n_grid=None):
    """Exact homogeneous density distance ``rho^2(p, q)`` on ``[0,1]^d``.

    Parameters
    ----------
    p, q : ndarray or callable
        Densities on ``[0,1]^d``. An ndarray holds the density values at the
        midpoints of a regular grid (any shape, ``n_grid^d`` values), so the
        integral is their mean. A callable maps an ``(m, d)`` array of points
        to ``m`` density values and is evaluated on the midpoint grid.
    divergence : {"js", "hellinger", "tv"}, default="js"
        Jensen-Shannon divergence in nats (range ``[0, ln 2]``), squared
        Hellinger distance ``1 - integral sqrt(p q)`` (range ``[0, 1]``), or
        ``integral |p - q|`` (range ``[0, 2]``: twice the total variation
        distance, whose square root is the Hilbertian metric).
    n_features : int, default=None
        Dimension ``d``; required for callables.
    n_grid : int, default=None
        Midpoints per axis for callables; by default 4096, 256 and 64 for
        ``d = 1, 2, 3`` (32 above).

    Returns
    -------
    rho2 : float
        ``integral kappa(p(u), q(u)) du`` by the midpoint rule.

    See Also
    --------
    hdd_kernel : ``exp(-rho^2 / (2 sigma^2))`` between many densities.
    skmmd.HDDSampler : Random features approximating that kernel from samples.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.kernels import density_divergence
    >>> p = lambda u: 2.0 * u[:, 0]   # Beta(2, 1)
    >>> q = lambda u: np.ones(len(u))  # U(0, 1)
    >>> round(density_divergence(p, q, divergence="tv", n_features=1), 4)
    0.5
    """
    _check_divergence(divergence)
    pv = _grid_values(p, n_features, n_grid)
    qv = _grid_values(q, n_features, n_grid)
    if pv.shape != qv.shape:
        raise ValueError(
            f"p and q must be given on the same grid; got {pv.size} and {qv.size} "
            "values."
        )
    return float(np.mean(hdd_integrand(pv, qv, divergence)))


def _density_stack(P, n_features, n_grid):
    if not any(callable(p) for p in P):
        P = np.asarray(P, dtype=np.float64)
        if P.ndim < 2:
            raise ValueError(
                "P must hold one density per row (first axis); got an array with "
                f"{P.ndim} dimension(s)."
            )
        return P.reshape(P.shape[0], -1)
    return np.stack([_grid_values(p, n_features, n_grid) for p in P])


def hdd_divergence_matrix(P, Q=None, *, divergence="js", n_features=None, n_grid=None):
    """Pairwise ``rho^2`` between two collections of densities.

    Parameters
    ----------
    P : ndarray of shape (n_P, ...) or sequence of callables
        Densities: the first axis indexes densities, the remaining axes hold
        values on a midpoint grid of ``[0,1]^d``; or callables as in
        :func:`density_divergence`.
    Q : same as P, default=None
        Right argument; ``None`` means ``Q = P``.
    divergence : {"js", "hellinger", "tv"}, default="js"
        See :func:`density_divergence`.
    n_features, n_grid : int, default=None
        Used for callables, as in :func:`density_divergence`.

    Returns
    -------
    R : ndarray of shape (n_P, n_Q)
        ``R[i, j] = rho^2(P[i], Q[j])``, computed one row at a time, so the
        temporaries are ``O(n_Q x grid size)``. Time ``O(n_P n_Q grid size)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.kernels import hdd_divergence_matrix
    >>> P = np.array([[2.0, 0.0], [0.0, 2.0]])  # disjoint halves of [0, 1]
    >>> hdd_divergence_matrix(P, divergence="hellinger")
    array([[0., 1.],
           [1., 0.]])
    """
    _check_divergence(divergence)
    Pv = _density_stack(P, n_features, n_grid)
    Qv = Pv if Q is None else _density_stack(Q, n_features, n_grid)
    if Pv.shape[1] != Qv.shape[1]:
        raise ValueError(
            f"P and Q must be given on the same grid; got {Pv.shape[1]} and "
            f"{Qv.shape[1]} values per density."
        )
    R = np.empty((Pv.shape[0], Qv.shape[0]))
    for i, p in enumerate(Pv):
        R[i] = hdd_integrand(p[None, :], Qv, divergence).mean(axis=1)
    return R


def hdd_kernel(
    P, Q=None, *, divergence="js", bandwidth=1.0, n_features=None, n_grid=None
):
    """Exact HDD kernel ``exp(-rho^2(p, q) / (2 bandwidth^2))`` between densities.

    Parameters
    ----------
    P : ndarray of shape (n_P, ...) or sequence of callables
        Densities, as in :func:`hdd_divergence_matrix`.
    Q : same as P, default=None
        Right argument; ``None`` means ``Q = P``.
    divergence : {"js", "hellinger", "tv"}, default="js"
        The distance ``rho^2``; see :func:`density_divergence`.
    bandwidth : float, default=1.0
        Positive bandwidth (``sigma``): the length scale of the divergences.
    n_features, n_grid : int, default=None
        Used for callables, as in :func:`density_divergence`.

    Returns
    -------
    K : ndarray of shape (n_P, n_Q)
        The kernel matrix; positive definite since ``sqrt(rho^2)`` is a
        Hilbertian metric (Hein and Bousquet 2005).

    See Also
    --------
    skmmd.HDDSampler : Random features approximating this kernel from samples.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.kernels import hdd_kernel
    >>> P = np.array([[2.0, 0.0], [0.0, 2.0]])
    >>> hdd_kernel(P, divergence="tv", bandwidth=1.0).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    bandwidth = _check_bandwidth(bandwidth)
    R = hdd_divergence_matrix(
        P, Q, divergence=divergence, n_features=n_features, n_grid=n_grid
    )
    R *= -0.5 / bandwidth**2
    return np.exp(R, out=R)
