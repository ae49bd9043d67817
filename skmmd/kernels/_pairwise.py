"""Exact kernels on vectors and the bandwidth heuristics.

Every function evaluates the kernel matrix in chunks of rows, so the temporaries stay
``O(chunk_size x n_samples_Y)`` however large the inputs.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import pdist
from sklearn.metrics.pairwise import euclidean_distances, manhattan_distances
from sklearn.utils import check_array, check_random_state, gen_batches

from .._utils import _array_api, _budgets
from .._utils._compat import Interval, StrOptions, validate_params

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


def matern_profile(r, nu):
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
        K = matern_profile(euclidean_distances(A, B) / bandwidth, nu)
    else:  # pragma: no cover - guarded by the public functions
        raise ValueError(f"Unknown kernel {name!r}.")
    dtype = np.result_type(A.dtype, B.dtype)
    return K.astype(dtype, copy=False)


def kernel_chunks(
    X, Y=None, *, kernel="gaussian", bandwidth=1.0, nu=1.5, chunk_size=None
):
    """Yield the exact kernel matrix ``k(X, Y)`` one chunk of rows at a time.

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
    chunk_size : int, default=None
        Rows per chunk (a memory size); by default about
        ``2**22 / n_samples_Y``.

    Yields
    ------
    rows : slice
        The rows of ``X`` covered by the chunk.
    chunk : ndarray of shape (rows, n_samples_Y)
        ``k(X[rows], Y)``, float32 if both inputs are float32, else float64.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.kernels import kernel_chunks
    >>> X = np.zeros((5, 2))
    >>> [chunk.shape for _, chunk in kernel_chunks(X, chunk_size=2)]
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
    if chunk_size is None:
        chunk_size = max(1, _budgets.MAP_CHUNK_ENTRIES // max(Y.shape[0], 1))
    for rows in gen_batches(X.shape[0], chunk_size):
        yield rows, _block_kernel(kernel, X[rows], Y, bandwidth, nu)


def _kernel_matrix(X, Y, **params):
    X, Y = _check_pair(X, Y)
    K = np.empty((X.shape[0], Y.shape[0]), dtype=np.result_type(X.dtype, Y.dtype))
    for rows, block in kernel_chunks(X, Y, **params):
        K[rows] = block
    return K


def gaussian_kernel(X, Y=None, *, bandwidth=1.0, chunk_size=None):
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
    chunk_size : int, default=None
        Rows evaluated at a time (bounds the temporaries).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix.

    See Also
    --------
    laplacian_kernel, matern_kernel, kernel_chunks

    Examples
    --------
    >>> from skmmd.kernels import gaussian_kernel
    >>> gaussian_kernel([[0.0], [1.0]], bandwidth=1.0).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    return _kernel_matrix(
        X, Y, kernel="gaussian", bandwidth=bandwidth, chunk_size=chunk_size
    )


def laplacian_kernel(X, Y=None, *, bandwidth=1.0, chunk_size=None):
    """Exact Laplacian kernel ``exp(-||x - y||_1 / bandwidth)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Left argument.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Right argument; ``None`` means ``Y = X``.
    bandwidth : float, default=1.0
        Positive bandwidth (L1 length scale).
    chunk_size : int, default=None
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
        X, Y, kernel="laplacian", bandwidth=bandwidth, chunk_size=chunk_size
    )


def matern_kernel(X, Y=None, *, bandwidth=1.0, nu=1.5, chunk_size=None):
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
    chunk_size : int, default=None
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
        X, Y, kernel="matern", bandwidth=bandwidth, nu=nu, chunk_size=chunk_size
    )


def _random_pair_distances(X, n_pairs, rng, metric):
    """Distances of ``n_pairs`` random pairs of distinct rows of X, in
    float64, blockwise (linear in the rows; each block's rows and their
    differences within ``_budgets.PART_ENTRIES`` entries, as each pair's
    distance is the same whatever the block)."""
    n = X.shape[0]
    first = rng.randint(n, size=n_pairs)
    second = (first + rng.randint(1, n, size=n_pairs)) % n
    out = np.empty(n_pairs)
    if not sp.issparse(X) and X.size <= _budgets.MAP_CHUNK_ENTRIES:
        # Rows of a Fortran-ordered X (a table's prepared columns) lie far
        # apart: gathered from a C-ordered copy (of at most a block's
        # entries; a larger X is gathered as it is), whose rows are
        # contiguous in memory.
        X = np.ascontiguousarray(X)
    for block in gen_batches(n_pairs, max(1, _budgets.PART_ENTRIES // X.shape[1])):
        diff = X[first[block]] - X[second[block]]
        if metric == "manhattan":
            out[block] = np.asarray(abs(diff).sum(axis=1)).ravel()
        elif sp.issparse(diff):
            out[block] = np.sqrt(np.asarray(diff.multiply(diff).sum(axis=1)).ravel())
        else:
            out[block] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


def _subsample_distances(X, max_samples, random_state, metric, n_pairs=None):
    """Distances over distinct pairs of (a subsample of) X, in float64 (of
    ``n_pairs`` random pairs of all rows when given and X has more than
    ``max_samples`` rows)."""
    xp, device = _array_api.namespace(X)
    if xp is not None and n_pairs is not None:
        X = _array_api.to_numpy(X, xp)
    elif xp is not None:
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
    if n > max_samples and n_pairs is not None:
        rng = check_random_state(random_state)
        X = X.astype(np.float64, copy=False)
        return _random_pair_distances(X, n_pairs, rng, metric)
    if n > max_samples:
        rng = check_random_state(random_state)
        X = X[np.sort(rng.choice(n, size=max_samples, replace=False))]
    X = X.astype(np.float64)
    if not sp.issparse(X):  # each pair once, without the n x n index arrays
        return pdist(X, "euclidean" if metric == "euclidean" else "cityblock")
    D = (euclidean_distances if metric == "euclidean" else _manhattan)(X, X)
    return D[np.triu_indices_from(D, k=1)]


def _median(d):
    """``np.median`` of a fresh 1-D array, partitioned in place (np.median
    copies it, a cost that counts in a two-sample test)."""
    if d.size == 0 or np.isnan(d).any():
        return float(np.median(d))
    k = d.size // 2
    if d.size % 2:
        d.partition(k)
        return float(d[k])
    d.partition([k - 1, k])
    return float(np.mean(d[k - 1 : k + 1]))


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "metric": [StrOptions({"euclidean", "manhattan"})],
        "n_pairs": [None, Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def median_bandwidth(
    X, max_samples=1000, random_state=None, metric="euclidean", *, n_pairs=None
):
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
    n_pairs : int, default=None
        With more than ``max_samples`` rows: None takes every pair of a
        subsample of ``max_samples`` rows; an int takes this many random
        pairs of distinct rows of all of X, in linear time, so the median's
        random error shrinks as ``n`` grows (as ``1 / sqrt(n_pairs)`` once
        the rows far outnumber the pairs, against ``1 / sqrt(max_samples)``
        for every pair of a subsample).

    Returns
    -------
    bandwidth : float
        The median of the distances over distinct pairs. If that median is 0
        (more than half of the pairs tie), the median of the positive distances;
        if every distance is 0 (all rows identical), 1.0, since then every
        bandwidth gives the same kernel on these data. A ValueError if the
        distances overflow.

    Examples
    --------
    >>> from skmmd.kernels import median_bandwidth
    >>> median_bandwidth([[0.0], [1.0], [3.0]])
    2.0
    """
    with np.errstate(over="ignore", invalid="ignore"):
        d = _subsample_distances(X, max_samples, random_state, metric, n_pairs)
    med = _median(d)
    if not np.isfinite(med):
        raise ValueError(
            "The median distance between the rows of X is not finite: their "
            "values are too large for squared distances in float64 (|x| above "
            "about 1e150). Rescale X (e.g. with StandardScaler) or pass a "
            "bandwidth."
        )
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


def _l1_norms(X):
    return np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()


def gmm_kernel(X, Y=None, *, chunk_size=None):
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
    chunk_size : int, default=None
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
    if chunk_size is None:
        chunk_size = max(1, _budgets.MAP_CHUNK_ENTRIES // max(Y.shape[0], 1))
    for rows in gen_batches(X.shape[0], chunk_size):
        dist = _manhattan(X[rows], Y)
        total = nx[rows, None] + ny[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            block = (total - dist) / (total + dist)
        block[total == 0] = 1.0  # GMM(0, 0): 0/0, defined as 1
        # Round-off can leave tiny negatives where the true value is 0.
        K[rows] = np.clip(block, 0.0, 1.0)
    return K
