"""Exact kernels, used as ground truth for the feature maps and by the exact tests.

Every function evaluates the kernel matrix in row blocks, so the temporaries stay
``O(block_size x n_samples_Y)`` however large the inputs.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy
from sklearn.metrics.pairwise import euclidean_distances, manhattan_distances
from sklearn.utils import check_array, check_random_state, gen_batches

from . import _array_api
from ._compat import Interval, StrOptions, validate_params

__all__ = [
    "bandwidth_grid",
    "density_divergence",
    "gaussian_kernel",
    "gmm_kernel",
    "hdd_divergence_matrix",
    "hdd_integrand",
    "hdd_kernel",
    "kernel_blocks",
    "laplacian_kernel",
    "matern_kernel",
    "median_bandwidth",
]

# Rows per block are chosen so that one block holds about this many entries.
_BLOCK_ENTRIES = 2**22

_MATERN_NUS = (0.5, 1.5, 2.5)


def _check_pair(X, Y):
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
    if Y is None:
        return X, X
    Y = check_array(Y, accept_sparse="csr", dtype=[np.float64, np.float32])
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features; got X with "
            f"{X.shape[1]} and Y with {Y.shape[1]}."
        )
    return X, Y


def _check_bandwidth(bandwidth):
    if not isinstance(bandwidth, Real) or not np.isfinite(bandwidth) or bandwidth <= 0:
        raise ValueError(
            f"bandwidth must be a positive finite float; got {bandwidth!r}."
        )
    return float(bandwidth)


def _int32_indices(A):
    """A CSR matrix with int32 indices: scikit-learn's sparse Manhattan distance
    rejects the int64 indices that large scipy sparse matrices use."""
    if not sp.issparse(A) or A.indices.dtype == np.int32:
        return A
    A = sp.csr_matrix(A)
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32)
    return A


def _manhattan(A, B):
    return manhattan_distances(_int32_indices(A), _int32_indices(B))


def _matern_profile(r, nu):
    """Matern correlation as a function of the scaled distance ``r = dist / l``."""
    if nu == 0.5:
        return np.exp(-r)
    if nu == 1.5:
        s = np.sqrt(3.0) * r
        return (1.0 + s) * np.exp(-s)
    s = np.sqrt(5.0) * r
    return (1.0 + s + s * s / 3.0) * np.exp(-s)


def _block_kernel(name, A, B, bandwidth, nu):
    """Kernel between two row blocks, in the dtype of the inputs."""
    if name == "laplacian":
        K = _manhattan(A, B)
        K /= -bandwidth
        np.exp(K, out=K)
    elif name == "gaussian":
        K = euclidean_distances(A, B, squared=True)
        K *= -0.5 / bandwidth**2
        np.exp(K, out=K)
    elif name == "matern":
        K = _matern_profile(euclidean_distances(A, B) / bandwidth, nu)
    else:  # pragma: no cover - guarded by the public functions
        raise ValueError(f"Unknown kernel {name!r}.")
    dtype = np.result_type(A.dtype, B.dtype)
    return K.astype(dtype, copy=False)


def kernel_blocks(
    X, Y=None, *, kernel="gaussian", bandwidth=1.0, nu=1.5, block_size=None
):
    """Yield the exact kernel matrix ``k(X, Y)`` one row block at a time.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Left argument.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Right argument; ``None`` means ``Y = X``.
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        ``exp(-||x-y||_2^2 / (2 bandwidth^2))``, ``exp(-||x-y||_1 / bandwidth)``,
        or the Matern kernel of smoothness ``nu`` and length scale ``bandwidth``.
    bandwidth : float, default=1.0
        Positive kernel bandwidth (length scale).
    nu : {0.5, 1.5, 2.5}, default=1.5
        Matern smoothness; ignored by the other kernels.
    block_size : int, default=None
        Rows per block; by default about ``2**22 / n_samples_Y``.

    Yields
    ------
    rows : slice
        The rows of ``X`` covered by the block.
    block : ndarray of shape (rows, n_samples_Y)
        ``k(X[rows], Y)``, float32 if both inputs are float32, else float64.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.kernels import kernel_blocks
    >>> X = np.zeros((5, 2))
    >>> [block.shape for _, block in kernel_blocks(X, block_size=2)]
    [(2, 5), (2, 5), (1, 5)]
    """
    if kernel not in ("gaussian", "laplacian", "matern"):
        raise ValueError(
            f"kernel must be one of 'gaussian', 'laplacian', 'matern'; got {kernel!r}."
        )
    if kernel == "matern" and nu not in _MATERN_NUS:
        raise ValueError(f"nu must be one of {_MATERN_NUS}; got {nu!r}.")
    bandwidth = _check_bandwidth(bandwidth)
    X, Y = _check_pair(X, Y)
    if block_size is None:
        block_size = max(1, _BLOCK_ENTRIES // max(Y.shape[0], 1))
    for rows in gen_batches(X.shape[0], block_size):
        yield rows, _block_kernel(kernel, X[rows], Y, bandwidth, nu)


def _kernel_matrix(X, Y, **params):
    X, Y = _check_pair(X, Y)
    K = np.empty((X.shape[0], Y.shape[0]), dtype=np.result_type(X.dtype, Y.dtype))
    for rows, block in kernel_blocks(X, Y, **params):
        K[rows] = block
    return K


def gaussian_kernel(X, Y=None, *, bandwidth=1.0, block_size=None):
    """Exact Gaussian kernel ``exp(-||x - y||^2 / (2 bandwidth^2))``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Left argument.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Right argument; ``None`` means ``Y = X``.
    bandwidth : float, default=1.0
        Positive bandwidth ``sigma``; scikit-learn's ``gamma`` is
        ``1 / (2 sigma^2)``.
    block_size : int, default=None
        Rows evaluated at a time (bounds the temporaries).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix.

    See Also
    --------
    laplacian_kernel, matern_kernel, kernel_blocks

    Examples
    --------
    >>> from skmmd.kernels import gaussian_kernel
    >>> gaussian_kernel([[0.0], [1.0]], bandwidth=1.0).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    return _kernel_matrix(
        X, Y, kernel="gaussian", bandwidth=bandwidth, block_size=block_size
    )


def laplacian_kernel(X, Y=None, *, bandwidth=1.0, block_size=None):
    """Exact Laplacian kernel ``exp(-||x - y||_1 / bandwidth)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Left argument.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Right argument; ``None`` means ``Y = X``.
    bandwidth : float, default=1.0
        Positive bandwidth (L1 length scale).
    block_size : int, default=None
        Rows evaluated at a time (bounds the temporaries).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix.

    See Also
    --------
    gaussian_kernel, matern_kernel

    Examples
    --------
    >>> from skmmd.kernels import laplacian_kernel
    >>> laplacian_kernel([[0.0, 0.0], [1.0, 1.0]], bandwidth=2.0).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    return _kernel_matrix(
        X, Y, kernel="laplacian", bandwidth=bandwidth, block_size=block_size
    )


def matern_kernel(X, Y=None, *, bandwidth=1.0, nu=1.5, block_size=None):
    """Exact Matern kernel with smoothness ``nu`` and length scale ``bandwidth``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Left argument.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Right argument; ``None`` means ``Y = X``.
    bandwidth : float, default=1.0
        Positive length scale ``l``.
    nu : {0.5, 1.5, 2.5}, default=1.5
        Smoothness: 0.5 is ``exp(-r/l)``, 1.5 and 2.5 the once and twice
        differentiable Matern kernels (closed forms).
    block_size : int, default=None
        Rows evaluated at a time (bounds the temporaries).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix.

    See Also
    --------
    gaussian_kernel, laplacian_kernel

    Examples
    --------
    >>> from skmmd.kernels import matern_kernel
    >>> matern_kernel([[0.0], [1.0]], nu=0.5).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    return _kernel_matrix(
        X, Y, kernel="matern", bandwidth=bandwidth, nu=nu, block_size=block_size
    )


def _subsample_distances(X, max_samples, random_state, metric):
    """Distances over distinct pairs of (a subsample of) X, in float64."""
    xp, device = _array_api.namespace(X)
    if xp is not None:
        # Arrays of other namespaces (a GPU): only the subsample comes to the
        # host, drawn as below so that it is the same subsample.
        n = X.shape[0]
        if n > max_samples:
            rng = check_random_state(random_state)
            rows = np.sort(rng.choice(n, size=max_samples, replace=False))
            X = _array_api.take_rows(X, rows, xp, device)
        X = _array_api.to_numpy(X, xp)
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
    n = X.shape[0]
    if n < 2:
        raise ValueError(
            "Bandwidths from pairwise distances need at least 2 samples; got "
            f"n_samples = {n}."
        )
    if n > max_samples:
        rng = check_random_state(random_state)
        X = X[np.sort(rng.choice(n, size=max_samples, replace=False))]
    distance = euclidean_distances if metric == "euclidean" else _manhattan
    X = X.astype(np.float64)
    D = distance(X, X)
    return D[np.triu_indices_from(D, k=1)]


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "metric": [StrOptions({"euclidean", "manhattan"})],
    },
    prefer_skip_nested_validation=True,
)
def median_bandwidth(X, max_samples=1000, random_state=None, metric="euclidean"):
    """Median heuristic: the median pairwise distance of (a subsample of) X.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data; for a two-sample test, the pooled sample (never one sample alone,
        which would break the exactness of the permutation test).
    max_samples : int, default=1000
        At most this many rows, drawn without replacement, enter the
        computation, so the cost is at most ``O(max_samples^2 d)``.
    random_state : int, RandomState instance or None, default=None
        Controls the subsample when ``n_samples > max_samples``. Pass an int
        for reproducible output across multiple function calls.
    metric : {"euclidean", "manhattan"}, default="euclidean"
        Distance matching the kernel: Euclidean for Gaussian and Matern,
        Manhattan (L1) for the Laplacian kernel.

    Returns
    -------
    bandwidth : float
        The median of the distances over distinct pairs. If that median is 0
        (more than half of the pairs tie), the median of the positive distances;
        if every distance is 0 (all rows identical), 1.0, since then every
        bandwidth gives the same kernel on these data.

    Examples
    --------
    >>> from skmmd.kernels import median_bandwidth
    >>> median_bandwidth([[0.0], [1.0], [3.0]])
    2.0
    """
    d = _subsample_distances(X, max_samples, random_state, metric)
    med = float(np.median(d))
    if med > 0:
        return med
    positive = d[d > 0]
    return float(np.median(positive)) if positive.size else 1.0


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "n_bandwidths": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "metric": [StrOptions({"euclidean", "manhattan"})],
    },
    prefer_skip_nested_validation=True,
)
def bandwidth_grid(
    X, n_bandwidths=10, max_samples=1000, random_state=None, metric="euclidean"
):
    """Geometric grid of bandwidths spanning the scales of the pairwise distances.

    From half the 5% quantile to twice the 95% quantile of the distances over
    distinct pairs of (a subsample of) X: the grid of aggregated tests such as
    MMDAgg, which must see scales far from the median.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data; for a two-sample test, the pooled sample only.
    n_bandwidths : int, default=10
        Number of bandwidths.
    max_samples : int, default=1000
        At most this many rows, drawn without replacement, enter the distances.
    random_state : int, RandomState instance or None, default=None
        Controls the subsample when ``n_samples > max_samples``. Pass an int
        for reproducible output across multiple function calls.
    metric : {"euclidean", "manhattan"}, default="euclidean"
        Distance matching the kernel (Manhattan for the Laplacian kernel).

    Returns
    -------
    bandwidths : ndarray of shape (n_bandwidths,)
        Increasing positive bandwidths (the geometric mean of the two ends
        when ``n_bandwidths=1``). Quantiles are taken over the positive
        distances, so ties do not produce a zero bandwidth; all-identical rows
        give a grid around 1.

    See Also
    --------
    median_bandwidth : One bandwidth, the median distance.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.kernels import bandwidth_grid
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> grid = bandwidth_grid(X, n_bandwidths=4)
    >>> grid.shape, bool(np.all(np.diff(grid) > 0))
    ((4,), True)
    """
    d = _subsample_distances(X, max_samples, random_state, metric)
    d = d[d > 0]
    low, high = np.quantile(d, [0.05, 0.95]) if d.size else (1.0, 1.0)
    low, high = low / 2, high * 2
    if n_bandwidths == 1:
        return np.array([np.sqrt(low * high)])
    return np.geomspace(low, high, n_bandwidths)


# ---------------------------------------------------------------------------
# Homogeneous density distances (HDD): exact references for HDDSampler
# ---------------------------------------------------------------------------

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
        Positive ``sigma``.
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


def _l1_norms(X):
    return np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()


def gmm_kernel(X, Y=None, *, block_size=None):
    r"""Exact generalized min-max (GMM) kernel of Li (2017).

    ``GMM(u, v) = sum_i min(u~_i, v~_i) / sum_i max(u~_i, v~_i)`` on the
    sign-split vectors ``u~ = [max(u, 0), max(-u, 0)]`` (nonnegative, twice
    the dimension), so inputs may have negative entries.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Left argument.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Right argument; ``None`` means ``Y = X``.
    block_size : int, default=None
        Rows evaluated at a time (bounds the temporaries); by default about
        ``2**22 / n_samples_Y``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix, float64, in [0, 1]. ``GMM(0, v) = 0`` for
        ``v != 0`` and, by convention, ``GMM(0, 0) = 1``.

    See Also
    --------
    skmmd.GCWSSampler : Random features whose inner products estimate it.

    Notes
    -----
    Per coordinate ``min(a, b) = (a + b - |a - b|) / 2`` and the sign split
    keeps L1 norms and L1 distances (``||u~ - v~||_1 = ||u - v||_1``), so

    .. math:: GMM(u, v) = \frac{\|u\|_1 + \|v\|_1 - \|u - v\|_1}
                             {\|u\|_1 + \|v\|_1 + \|u - v\|_1},

    one Manhattan-distance block per row block, dense or sparse. The
    subtraction costs an absolute error of about ``1e-16`` (relative to 1).

    References
    ----------
    .. [1] P. Li. Linearized GMM kernels and normalized random Fourier
       features. KDD 2017.

    Examples
    --------
    >>> from skmmd.kernels import gmm_kernel
    >>> gmm_kernel([[1.0, 2.0], [3.0, 1.0], [-1.0, 0.0]])
    array([[1. , 0.4, 0. ],
           [0.4, 1. , 0. ],
           [0. , 0. , 1. ]])
    """
    X, Y = _check_pair(X, Y)
    X = X.astype(np.float64, copy=False)
    Y = Y.astype(np.float64, copy=False)
    nx, ny = _l1_norms(X), _l1_norms(Y)
    K = np.empty((X.shape[0], Y.shape[0]))
    if block_size is None:
        block_size = max(1, _BLOCK_ENTRIES // max(Y.shape[0], 1))
    for rows in gen_batches(X.shape[0], block_size):
        dist = _manhattan(X[rows], Y)
        total = nx[rows, None] + ny[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            block = (total - dist) / (total + dist)
        block[total == 0] = 1.0  # GMM(0, 0): 0/0, defined as 1
        # Round-off can leave tiny negatives where the true value is 0.
        K[rows] = np.clip(block, 0.0, 1.0)
    return K
