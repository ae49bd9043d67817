"""Maximum mean discrepancy (MMD) statistics: from explicit features in linear
time, exact from a kernel in row blocks, the linear-time and B-test baselines,
the power criterion used for kernel selection, the witness function, and the
regularized Nystroem MMD with its three-sample decision rule."""

from collections import namedtuple
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_array, gen_batches

from ._compat import HasMethods, Interval, StrOptions, validate_params
from .kernel_approximation import NystroemSampler
from .kernel_approximation._nystroem import _is_vector_data
from .kernels import _matern_profile, kernel_blocks

__all__ = [
    "ThreeSampleResult",
    "mmd2_block",
    "mmd2_exact",
    "mmd2_features",
    "mmd2_linear",
    "nystroem_mmd2",
    "power_criterion",
    "three_sample_test",
    "witness",
]

# Rows per block when streaming features or kernel rows.
_BLOCK_ENTRIES = 2**22

_STATISTICS = StrOptions({"unbiased", "biased"})
_KERNELS = [StrOptions({"gaussian", "laplacian", "matern"}), callable]


def _mmd2_from_parts(P_xx, P_yy, P_xy, D_x, D_y, D_xy, n_xx, n_yy, n_xy, unbiased):
    """MMD^2 from the kernel sums of (possibly resampled, weighted) samples.

    ``P_xx = a^T K a``, ``P_yy = c^T K c``, ``P_xy = a^T K c`` for count vectors
    ``a`` (X*) and ``c`` (Y*) over the pooled points, ``D_* = sum a_i c_i k_ii``
    style diagonal sums (pairs of a point with itself), ``n_* `` the numbers of
    pairs that remain once those are excluded. ``unbiased=False`` gives the
    V-statistic, which keeps every pair. Works elementwise on arrays, one entry
    per resample.

    Returns the statistic and the magnitude of the terms it is computed from
    (the scale of its rounding error, used as the tie tolerance).
    """
    if unbiased:
        terms = ((P_xx - D_x) / n_xx, (P_yy - D_y) / n_yy, (P_xy - D_xy) / n_xy)
        scale = (
            (np.abs(P_xx) + np.abs(D_x)) / n_xx
            + (np.abs(P_yy) + np.abs(D_y)) / n_yy
            + 2 * (np.abs(P_xy) + np.abs(D_xy)) / n_xy
        )
    else:
        terms = (P_xx / n_xx, P_yy / n_yy, P_xy / n_xy)
        scale = np.abs(terms[0]) + np.abs(terms[1]) + 2 * np.abs(terms[2])
    return terms[0] + terms[1] - 2 * terms[2], scale


def _check_two(X, Y, min_samples=2, name_x="X", name_y="Y"):
    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32])
    Y = check_array(Y, accept_sparse="csr", dtype=[np.float64, np.float32])
    for name, A in ((name_x, X), (name_y, Y)):
        if A.shape[0] < min_samples:
            raise ValueError(
                f"{name} needs at least {min_samples} samples for this MMD "
                f"statistic; got {A.shape[0]}."
            )
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{name_x} and {name_y} must have the same number of features; got "
            f"{X.shape[1]} and {Y.shape[1]}."
        )
    return X, Y


def _feature_sums(Z, transform=None, block_size=None):
    """Streaming ``sum_i z_i`` and ``sum_i ||z_i||^2`` in float64.

    With ``transform``, ``Z`` holds raw rows mapped one row block at a time, so
    the full feature matrix is never stored.
    """
    s, q = 0.0, 0.0
    n = Z.shape[0]
    if block_size is None:
        width = Z.shape[1] if transform is None else 1024
        block_size = max(1, _BLOCK_ENTRIES // max(width, 1))
    for rows in gen_batches(n, block_size):
        block = Z[rows] if transform is None else transform(Z[rows])
        block = np.asarray(block.todense() if hasattr(block, "todense") else block)
        block = block.astype(np.float64, copy=False)
        s = s + block.sum(axis=0)
        q += float(np.einsum("ij,ij->", block, block))
    return s, q


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "Y": ["array-like", "sparse matrix"],
        "statistic": [_STATISTICS],
        "transform": [None, callable],
        "block_size": [None, Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def mmd2_features(X, Y, *, statistic="unbiased", transform=None, block_size=None):
    """Squared MMD of the linear kernel on features, in ``O((m + n) D)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (m, D)
        Features ``z(x_i)`` of the first sample, or raw rows if ``transform``
        is given.
    Y : {array-like, sparse matrix} of shape (n, D)
        Features of the second sample (or raw rows).
    statistic : {"unbiased", "biased"}, default="unbiased"
        U-statistic (can be negative) or V-statistic (``>= 0``).
    transform : callable, default=None
        If given, ``transform(rows)`` maps a row block of X or Y to features,
        e.g. a fitted sampler's ``transform``; only one block of features is
        held in memory at a time.
    block_size : int, default=None
        Rows per block.

    Returns
    -------
    mmd2 : float
        The statistic for the kernel ``k(x, y) = z(x)^T z(y)``.

    See Also
    --------
    mmd2_exact : The same statistic from an exact kernel, in quadratic time.

    Notes
    -----
    With ``s_x = sum_i z(x_i)``, ``q_x = sum_i ||z(x_i)||^2`` (likewise for Y)::

        MMD2_b = ||s_x / m - s_y / n||^2
        MMD2_u = (||s_x||^2 - q_x) / (m (m-1)) + (||s_y||^2 - q_y) / (n (n-1))
                 - 2 s_x^T s_y / (m n)

    which are the exact quadratic formulas applied to ``z(x)^T z(y)``; for the
    ``[cos, sin]`` Fourier map this is FastMMD [1]_.

    References
    ----------
    .. [1] J. Zhao and D. Meng. FastMMD: ensemble of circular discrepancy for
       efficient two-sample test. Neural Computation, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd import mmd2_features
    >>> X = np.array([[0.0], [1.0]])
    >>> Y = np.array([[2.0], [3.0]])
    >>> float(mmd2_features(X, Y, statistic="biased"))
    4.0
    """
    unbiased = statistic == "unbiased"
    X, Y = _check_two(X, Y, min_samples=2 if unbiased else 1)
    m, n = X.shape[0], Y.shape[0]
    s_x, q_x = _feature_sums(X, transform, block_size)
    s_y, q_y = _feature_sums(Y, transform, block_size)
    pairs = (m * (m - 1), n * (n - 1), m * n) if unbiased else (m * m, n * n, m * n)
    stat, _ = _mmd2_from_parts(
        s_x @ s_x, s_y @ s_y, s_x @ s_y, q_x, q_y, 0.0, *pairs, unbiased
    )
    return float(stat)


def _kernel_params(kernel, bandwidth, nu):
    """A callable ``k(A, B) -> matrix block`` for a kernel name or callable."""
    if callable(kernel):
        return lambda A, B: np.asarray(kernel(A, B), dtype=np.float64)

    def block(A, B):
        ((_, K),) = kernel_blocks(
            A, B, kernel=kernel, bandwidth=bandwidth, nu=nu, block_size=A.shape[0]
        )
        return K.astype(np.float64, copy=False)

    return block


def _kernel_sums(X, Y, kfun, block_size=None):
    """``sum k(X, Y)`` and, if ``Y is X``, the trace, from row blocks."""
    if block_size is None:
        block_size = max(1, _BLOCK_ENTRIES // max(Y.shape[0], 1))
    total, trace = 0.0, 0.0
    for rows in gen_batches(X.shape[0], block_size):
        K = kfun(X[rows], Y)
        total += float(K.sum())
        if Y is X:
            trace += float(np.trace(K[:, rows]))
    return total, trace


_EXACT_PARAMS = {
    "X": ["array-like", "sparse matrix"],
    "Y": ["array-like", "sparse matrix"],
    "kernel": _KERNELS,
    "bandwidth": [Interval(Real, 0, None, closed="neither")],
    "nu": [Interval(Real, 0, None, closed="neither")],
}


@validate_params(
    {
        **_EXACT_PARAMS,
        "statistic": [_STATISTICS],
        "block_size": [None, Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def mmd2_exact(
    X,
    Y,
    *,
    kernel="gaussian",
    bandwidth=1.0,
    nu=1.5,
    statistic="unbiased",
    block_size=None,
):
    """Exact squared MMD from a kernel, in quadratic time and blockwise memory.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (m, n_features)
        First sample.
    Y : {array-like, sparse matrix} of shape (n, n_features)
        Second sample.
    kernel : {"gaussian", "laplacian", "matern"} or callable, default="gaussian"
        A kernel of :mod:`skmmd.kernels`, or ``kernel(A, B)`` returning the
        kernel matrix between two row blocks (e.g.
        ``sklearn.metrics.pairwise.linear_kernel``).
    bandwidth : float, default=1.0
        Bandwidth of a named kernel.
    nu : float, default=1.5
        Smoothness of the Matern kernel (0.5, 1.5 or 2.5).
    statistic : {"unbiased", "biased"}, default="unbiased"
        U-statistic or V-statistic.
    block_size : int, default=None
        Rows of the kernel matrix evaluated at a time (memory
        ``O(block_size x max(m, n))``).

    Returns
    -------
    mmd2 : float
        The statistic.

    See Also
    --------
    mmd2_features : The linear-time statistic from explicit features.

    Notes
    -----
    ``MMD2_b = mean k(X, X) + mean k(Y, Y) - 2 mean k(X, Y)``; the unbiased
    ``MMD2_u`` drops the diagonal of ``k(X, X)`` and ``k(Y, Y)`` and divides by
    ``m (m - 1)`` and ``n (n - 1)`` (Gretton et al. 2012, eq. 3 and Lemma 6).

    References
    ----------
    .. [1] A. Gretton, K. M. Borgwardt, M. J. Rasch, B. Schoelkopf and A. Smola.
       A kernel two-sample test. JMLR, 13:723-773, 2012.

    Examples
    --------
    >>> from sklearn.metrics.pairwise import linear_kernel
    >>> from skmmd.mmd import mmd2_exact
    >>> float(mmd2_exact([[0.0], [1.0]], [[2.0], [3.0]], kernel=linear_kernel,
    ...                  statistic="biased"))
    4.0
    """
    unbiased = statistic == "unbiased"
    X, Y = _check_two(X, Y, min_samples=2 if unbiased else 1)
    m, n = X.shape[0], Y.shape[0]
    kfun = _kernel_params(kernel, bandwidth, nu)
    P_xx, D_x = _kernel_sums(X, X, kfun, block_size)
    P_yy, D_y = _kernel_sums(Y, Y, kfun, block_size)
    P_xy, _ = _kernel_sums(X, Y, kfun, block_size)
    if not unbiased:
        D_x = D_y = 0.0
    pairs = (m * (m - 1), n * (n - 1), m * n) if unbiased else (m * m, n * n, m * n)
    stat, _ = _mmd2_from_parts(P_xx, P_yy, P_xy, D_x, D_y, 0.0, *pairs, unbiased)
    return float(stat)


def _paired_kernel(A, B, kernel, bandwidth, nu):
    """``k(a_i, b_i)`` for matching rows of two dense arrays."""
    if callable(kernel):
        return np.array([float(kernel(a[None], b[None])[0, 0]) for a, b in zip(A, B)])
    diff = A - B
    if kernel == "laplacian":
        return np.exp(-np.abs(diff).sum(axis=1) / bandwidth)
    sq = np.einsum("ij,ij->i", diff, diff)
    if kernel == "gaussian":
        return np.exp(-0.5 * sq / bandwidth**2)
    return _matern_profile(np.sqrt(sq) / bandwidth, nu)


@validate_params(_EXACT_PARAMS, prefer_skip_nested_validation=True)
def mmd2_linear(X, Y, *, kernel="gaussian", bandwidth=1.0, nu=1.5):
    """Linear-time MMD^2 of Gretton et al. (2012), a baseline.

    Parameters
    ----------
    X : array-like of shape (m, n_features)
        First sample.
    Y : array-like of shape (n, n_features)
        Second sample; the first ``2 floor(min(m, n) / 2)`` rows of each are used.
    kernel : {"gaussian", "laplacian", "matern"} or callable, default="gaussian"
        Kernel, as in :func:`mmd2_exact`.
    bandwidth : float, default=1.0
        Bandwidth of a named kernel.
    nu : float, default=1.5
        Smoothness of the Matern kernel.

    Returns
    -------
    mmd2 : float
        ``mean_i h((x_{2i-1}, y_{2i-1}), (x_{2i}, y_{2i}))`` with
        ``h = k(x, x') + k(y, y') - k(x, y') - k(x', y)``: unbiased, but with
        far higher variance than the statistics that use every pair.

    See Also
    --------
    mmd2_features : Linear time with every pair, through explicit features.

    References
    ----------
    .. [1] A. Gretton et al. A kernel two-sample test. JMLR, 2012, section 6.

    Examples
    --------
    >>> from skmmd.mmd import mmd2_linear
    >>> round(mmd2_linear([[0.0], [1.0]], [[0.0], [1.0]]), 12)
    0.0
    """
    X, Y = _check_two(X, Y)
    X = X.toarray() if hasattr(X, "toarray") else X
    Y = Y.toarray() if hasattr(Y, "toarray") else Y
    half = min(X.shape[0], Y.shape[0]) // 2
    x1, x2 = X[0 : 2 * half : 2], X[1 : 2 * half : 2]
    y1, y2 = Y[0 : 2 * half : 2], Y[1 : 2 * half : 2]
    params = (kernel, bandwidth, nu)
    h = (
        _paired_kernel(x1, x2, *params)
        + _paired_kernel(y1, y2, *params)
        - _paired_kernel(x1, y2, *params)
        - _paired_kernel(x2, y1, *params)
    )
    return float(h.mean())


@validate_params(
    {**_EXACT_PARAMS, "block_size": [None, Interval(Integral, 2, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def mmd2_block(X, Y, *, kernel="gaussian", bandwidth=1.0, nu=1.5, block_size=None):
    """B-test statistic (Zaremba et al. 2013): mean of exact MMD2_u over blocks.

    Parameters
    ----------
    X : array-like of shape (m, n_features)
        First sample.
    Y : array-like of shape (n, n_features)
        Second sample; both are cut into ``floor(min(m, n) / block_size)``
        blocks (the remaining rows are unused).
    kernel : {"gaussian", "laplacian", "matern"} or callable, default="gaussian"
        Kernel, as in :func:`mmd2_exact`.
    bandwidth : float, default=1.0
        Bandwidth of a named kernel.
    nu : float, default=1.5
        Smoothness of the Matern kernel.
    block_size : int, default=None
        Points per sample in a block; by default ``floor(sqrt(min(m, n)))``.

    Returns
    -------
    mmd2 : float
        Mean of the blocks' unbiased statistics; cost ``O(N block_size)``.

    See Also
    --------
    mmd2_linear, mmd2_exact

    References
    ----------
    .. [1] W. Zaremba, A. Gretton and M. Blaschko. B-tests: low variance kernel
       two-sample tests. NIPS 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd import mmd2_block
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(400, 2)), rng.normal(2.0, size=(400, 2))
    >>> round(mmd2_block(X, Y, bandwidth=2.0), 1)
    0.7
    """
    X, Y = _check_two(X, Y)
    n_pair = min(X.shape[0], Y.shape[0])
    if block_size is None:
        block_size = max(2, int(np.sqrt(n_pair)))
    n_blocks = n_pair // block_size
    if n_blocks < 1:
        raise ValueError(
            f"block_size={block_size} exceeds the smaller sample size {n_pair}."
        )
    stats = [
        mmd2_exact(X[rows], Y[rows], kernel=kernel, bandwidth=bandwidth, nu=nu)
        for rows in gen_batches(n_blocks * block_size, block_size)
    ]
    return float(np.mean(stats))


def _power_from_h(h_row_sums, h_diag_sum, n, eps):
    """``MMD2_u / sqrt(V)`` from the row sums of the paired ``h`` matrix."""
    total = h_row_sums.sum()
    mmd2 = (total - h_diag_sum) / (n * (n - 1))
    var = 4.0 / n**3 * np.sum(h_row_sums**2) - 4.0 / n**4 * total**2
    return float(mmd2 / np.sqrt(max(var, eps)))


@validate_params(
    {
        "X": ["array-like"],
        "Y": ["array-like"],
        "eps": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def power_criterion(X, Y, *, eps=1e-10):
    """Test-power criterion ``MMD2_u / sqrt(V)`` from features, in ``O(n D)``.

    Larger is better: the asymptotic power of the test at a fixed level grows
    with it, so it is the quantity to maximize when selecting a kernel or a
    bandwidth on held-out data.

    Parameters
    ----------
    X : array-like of shape (m, D)
        Features of the first sample.
    Y : array-like of shape (n, D)
        Features of the second sample; the first ``min(m, n)`` rows of each
        are paired.
    eps : float, default=1e-10
        Floor on the variance estimate.

    Returns
    -------
    criterion : float
        ``MMD2_u / sqrt(max(V, eps))``; larger means more test power.

    See Also
    --------
    MMDTest.score : This criterion on a pooled, labelled held-out sample.

    Notes
    -----
    With ``d_i = z(x_i) - z(y_i)``, ``h_ij = d_i^T d_j`` and ``s = sum_i d_i``::

        MMD2_u = (||s||^2 - sum_i ||d_i||^2) / (n (n - 1))
        V = 4 / n^3 sum_i (d_i^T s)^2 - 4 / n^4 (s^T s)^2

    ``V`` estimates the variance of ``sqrt(n) MMD2_u`` under the alternative.

    References
    ----------
    .. [1] A. Gretton et al. Optimal kernel choice for large-scale two-sample
       tests. NIPS 2012.
    .. [2] D. J. Sutherland et al. Generative models and model criticism via
       optimized maximum mean discrepancy. ICLR 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.mmd import power_criterion
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(200, 2)), rng.normal(1.0, size=(200, 2))
    >>> power_criterion(X, Y) > power_criterion(X, rng.normal(size=(200, 2)))
    True
    """
    X, Y = _check_two(X, Y)
    n = min(X.shape[0], Y.shape[0])
    d = np.asarray(X[:n], dtype=np.float64) - np.asarray(Y[:n], dtype=np.float64)
    row_sums = d @ d.sum(axis=0)
    return _power_from_h(row_sums, float(np.einsum("ij,ij->", d, d)), n, eps)


def _power_criterion_exact(X, Y, kfun, eps=1e-10):
    """:func:`power_criterion` for an exact kernel (quadratic time, blockwise)."""
    n = min(X.shape[0], Y.shape[0])
    X, Y = X[:n], Y[:n]
    row_sums = np.empty(n)
    diag = 0.0
    for rows in gen_batches(n, max(1, _BLOCK_ENTRIES // (2 * n))):
        H = kfun(X[rows], X) + kfun(Y[rows], Y) - kfun(X[rows], Y) - kfun(Y[rows], X)
        row_sums[rows] = H.sum(axis=1)
        diag += float(np.trace(H[:, rows]))
    return _power_from_h(row_sums, diag, n, eps)


def witness(Z, X, Y):
    """Unnormalized witness function ``f(z) = z^T (mean(X) - mean(Y))``.

    Parameters
    ----------
    Z : array-like of shape (n_points, D)
        Features of the points where the witness is evaluated.
    X : array-like of shape (m, D)
        Features of the first sample.
    Y : array-like of shape (n, D)
        Features of the second sample.

    Returns
    -------
    values : ndarray of shape (n_points,)
        Positive where the first sample has more mass than the second.

    See Also
    --------
    MMDTest.witness : The same from raw data through a fitted test.

    Examples
    --------
    >>> from skmmd.mmd import witness
    >>> witness([[1.0], [-1.0]], [[2.0]], [[0.0]])
    array([ 2., -2.])
    """
    X, Y = _check_two(X, Y, min_samples=1)
    mean_diff = np.asarray(X.mean(axis=0)).ravel() - np.asarray(Y.mean(axis=0)).ravel()
    Z = check_array(Z, accept_sparse="csr", dtype=[np.float64, np.float32])
    return np.asarray(Z @ mean_diff).ravel()


# ---------------------------------------------------------------------------
# Nystroem MMD and the three-sample problem (Cherfaoui, Kadri, Anthoine &
# Ralaivola 2022, file 003 of ../shared/papers)
# ---------------------------------------------------------------------------

ThreeSampleResult = namedtuple(
    "ThreeSampleResult", ["closer", "distance_zx", "distance_zy"]
)
ThreeSampleResult.__doc__ = """Decision of :func:`three_sample_test` (a named tuple).

Parameters
----------
closer : {"X", "Y"}
    The sample Z is attributed to: ``"X"`` if ``D(Z, X) < D(Z, Y)``, else ``"Y"``.
distance_zx : float
    ``D(Z, X)``.
distance_zy : float
    ``D(Z, Y)``.

Examples
--------
>>> from skmmd.mmd import ThreeSampleResult
>>> ThreeSampleResult("X", 0.1, 0.5).closer
'X'
"""


def _samples_and_mode(samples, sampler):
    """Validate the samples; True when they are vector data (2-D arrays)."""
    vector = not callable(sampler.kernel) or all(_is_vector_data(S) for S in samples)
    if not vector:
        samples = [list(S) for S in samples]
    else:
        samples = [
            check_array(S, accept_sparse="csr", dtype=[np.float64, np.float32])
            for S in samples
        ]
        widths = {S.shape[1] for S in samples}
        if len(widths) > 1:
            raise ValueError(
                "All samples must have the same number of features; got "
                f"{[S.shape[1] for S in samples]}."
            )
    if min(_n_points(S) for S in samples) < 1:
        raise ValueError("Every sample must contain at least one point.")
    return samples, vector


def _n_points(S):
    return S.shape[0] if hasattr(S, "shape") else len(S)


def _pool(samples, vector):
    if not vector:
        return [item for S in samples for item in S]
    if any(sp.issparse(S) for S in samples):
        return sp.vstack(samples, format="csr")
    return np.concatenate(samples)


def _point_ids(pooled, vector):
    """An integer per point, equal for equal points (duplicates merge in the
    discrete measure, which changes ``||v||^2``)."""
    if vector:
        if sp.issparse(pooled):
            pooled = pooled.tocsr()
            pooled.sum_duplicates()
            keys = [
                (pooled.indices[a:b].tobytes(), pooled.data[a:b].tobytes())
                for a, b in zip(pooled.indptr[:-1], pooled.indptr[1:])
            ]
        else:
            return np.unique(pooled, axis=0, return_inverse=True)[1].ravel()
    else:
        keys = [_object_key(item) for item in pooled]
    ids = {}
    return np.array([ids.setdefault(key, len(ids)) for key in keys])


def _object_key(item):
    if isinstance(item, np.ndarray):
        return (item.shape, item.dtype.str, item.tobytes())
    try:
        hash(item)
    except TypeError:
        return ("id", id(item))
    return item


def _regularized_mmd2(ZA, ZB, ia, ib, reg):
    """``||mean ZA - mean ZB||^2 + reg ||p_A - p_B||^2``; ``ia``, ``ib`` are
    the point ids of the two samples."""
    diff = ZA.mean(axis=0, dtype=np.float64) - ZB.mean(axis=0, dtype=np.float64)
    value = float(diff @ diff)
    if reg > 0:
        size = int(max(ia.max(), ib.max())) + 1
        v = (
            np.bincount(ia, minlength=size) / ia.size
            - np.bincount(ib, minlength=size) / ib.size
        )
        value += reg * float(v @ v)
    return value


def _nystroem_distances(samples, pairs, sampler, reg):
    """Fit one sampler on the pooled samples; regularized MMD^2 per pair."""
    sampler = NystroemSampler() if sampler is None else clone(sampler)
    samples, vector = _samples_and_mode(samples, sampler)
    pooled = _pool(samples, vector)
    Z = sampler.fit_transform(pooled)
    ids = _point_ids(pooled, vector) if reg > 0 else None
    bounds = np.cumsum([0] + [_n_points(S) for S in samples])
    parts = [slice(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
    if ids is None:
        ids = np.zeros(bounds[-1], dtype=np.intp)
    return [
        _regularized_mmd2(Z[parts[i]], Z[parts[j]], ids[parts[i]], ids[parts[j]], reg)
        for i, j in pairs
    ]


_NYSTROEM_PARAMS = {
    "sampler": [None, HasMethods(["fit_transform"])],
    "reg": [Interval(Real, 0, None, closed="left")],
}


@validate_params(
    {"X": ["array-like", "sparse matrix"], "Y": ["array-like", "sparse matrix"]}
    | _NYSTROEM_PARAMS,
    prefer_skip_nested_validation=True,
)
def nystroem_mmd2(X, Y, *, sampler=None, reg=0.0):
    """Regularized Nystroem MMD^2 between two samples (Cherfaoui et al. 2022).

    Fits the Nystroem sampler on the pooled sample (landmarks drawn from it,
    never from one sample alone) and returns the squared MMD of the empirical
    distributions under the kernel ``k_nys(x, y) + reg * [x == y]``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features) or sequence
        First sample; with a callable kernel, any sequence of objects.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features) or sequence
        Second sample, of the same kind.
    sampler : NystroemSampler, default=None
        Unfitted sampler, cloned then fitted on the pooled sample; None means
        ``NystroemSampler()``. Set its ``random_state`` for reproducibility.
    reg : float, default=0.0
        Regularization ``lambda >= 0``: the kernel is ``k_nys + lambda delta``,
        which makes the MMD a metric on discrete distributions (Lemma 5 of
        [1]).

    Returns
    -------
    mmd2 : float
        ``||mean z(X) - mean z(Y)||^2 + lambda ||v||^2`` (non-negative).

    See Also
    --------
    three_sample_test : Attribute a third sample to X or to Y.
    NystroemSampler : The feature map z.

    Notes
    -----
    With ``F`` the distinct points of the pooled sample and ``v_x = p_x -
    q_x`` the difference of the two empirical masses at ``x``,
    ``MMD^2 = v K_FS K_SS^+ K_FS^T v^T + lambda ||v||^2``, computed in
    ``O(n s)`` from the features (Lemma 6 of [1]). With distinct points
    ``||v||^2 = 1/m + 1/n``; a point present in both samples reduces it.
    Equal points are detected exactly: rows of an array, or items of a
    sequence (arrays by value, hashable objects by equality, others by
    identity).

    References
    ----------
    .. [1] F. Cherfaoui, H. Kadri, S. Anthoine and L. Ralaivola. A discrete
       RKHS standpoint for Nystroem MMD. HAL hal-03651849, 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import NystroemSampler
    >>> from skmmd.mmd import nystroem_mmd2
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(200, 2)), rng.normal(1.0, size=(200, 2))
    >>> sampler = NystroemSampler(n_components=50, random_state=0)
    >>> far = nystroem_mmd2(X, Y, sampler=sampler)
    >>> near = nystroem_mmd2(X, rng.normal(size=(200, 2)), sampler=sampler)
    >>> bool(far > 10 * near)
    True
    """
    return _nystroem_distances([X, Y], [(0, 1)], sampler, reg)[0]


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "Y": ["array-like", "sparse matrix"],
        "Z": ["array-like", "sparse matrix"],
        "distance": [StrOptions({"nystroem"}), callable],
    }
    | _NYSTROEM_PARAMS,
    prefer_skip_nested_validation=True,
)
def three_sample_test(X, Y, Z, *, distance="nystroem", sampler=None, reg=0.0):
    """Decide whether Z comes from the distribution of X or of Y.

    The rule of section 5 of [1]: Z is attributed to X if ``D(Z, X) <
    D(Z, Y)``, otherwise to Y. No threshold and no calibration are needed.

    Parameters
    ----------
    X, Y : {array-like, sparse matrix} of shape (n_samples, n_features) or sequence
        Samples from the two candidate distributions.
    Z : {array-like, sparse matrix} of shape (n_samples_Z, n_features) or sequence
        The sample to attribute.
    distance : "nystroem" or callable, default="nystroem"
        ``"nystroem"``: the regularized Nystroem MMD^2 of :func:`nystroem_mmd2`,
        with one sampler fitted on the pooled ``X, Y, Z`` (so both distances
        use the same feature map). A callable ``distance(A, B) -> float`` is
        used as is (``sampler`` and ``reg`` are then ignored).
    sampler : NystroemSampler, default=None
        Unfitted sampler for ``distance="nystroem"``; None means
        ``NystroemSampler()``.
    reg : float, default=0.0
        Regularization ``lambda`` of the Nystroem MMD.

    Returns
    -------
    result : ThreeSampleResult
        ``closer`` ("X" or "Y"), ``distance_zx`` and ``distance_zy``.

    See Also
    --------
    nystroem_mmd2 : The default distance.

    References
    ----------
    .. [1] F. Cherfaoui, H. Kadri, S. Anthoine and L. Ralaivola. A discrete
       RKHS standpoint for Nystroem MMD. HAL hal-03651849, 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import NystroemSampler
    >>> from skmmd.mmd import three_sample_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(0.0, 1.0, size=(300, 1))
    >>> Y = rng.normal(0.0, 2.0, size=(300, 1))
    >>> Z = rng.normal(0.0, 1.0, size=(300, 1))
    >>> sampler = NystroemSampler(n_components=20, random_state=0)
    >>> three_sample_test(X, Y, Z, sampler=sampler).closer
    'X'
    """
    if callable(distance):
        d_zx, d_zy = float(distance(Z, X)), float(distance(Z, Y))
    else:
        d_zx, d_zy = _nystroem_distances([X, Y, Z], [(2, 0), (2, 1)], sampler, reg)
    return ThreeSampleResult("X" if d_zx < d_zy else "Y", d_zx, d_zy)
