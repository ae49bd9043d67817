"""MMD statistics of an exact kernel, in row blocks: the quadratic-time
estimator and the linear-time and B-test baselines."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import gen_batches

from .._utils import _budgets
from .._utils._compat import Interval, StrOptions, validate_params
from ..kernels._pairwise import kernel_chunks, matern_profile
from ._features import (
    _STATISTICS,
    _check_two,
    _power_from_h,
    mmd2_from_parts,
)

_KERNELS = [StrOptions({"gaussian", "laplacian", "matern"}), callable]


def kernel_function(kernel, bandwidth, nu):
    """A callable ``k(A, B) -> matrix block`` for a kernel name or callable."""
    if callable(kernel):
        return lambda A, B: np.asarray(kernel(A, B), dtype=np.float64)

    def block(A, B):
        ((_, K),) = kernel_chunks(
            A, B, kernel=kernel, bandwidth=bandwidth, nu=nu, chunk_size=A.shape[0]
        )
        return K.astype(np.float64, copy=False)

    return block


def _kernel_sums(X, Y, kfun, chunk_size=None):
    """``sum k(X, Y)`` and, if ``Y is X``, the trace, from row blocks."""
    if chunk_size is None:
        chunk_size = max(1, _budgets.MAP_CHUNK_ENTRIES // max(Y.shape[0], 1))
    total, trace = 0.0, 0.0
    for rows in gen_batches(X.shape[0], chunk_size):
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
        "chunk_size": [None, Interval(Integral, 1, None, closed="left")],
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
    chunk_size=None,
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
    chunk_size : int, default=None
        Rows of the kernel matrix evaluated at a time (memory
        ``O(chunk_size x max(m, n))``).

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
    >>> from skmmd.statistics import mmd2_exact
    >>> float(mmd2_exact([[0.0], [1.0]], [[2.0], [3.0]], kernel=linear_kernel,
    ...                  statistic="biased"))
    4.0
    """
    unbiased = statistic == "unbiased"
    X, Y = _check_two(X, Y, min_samples=2 if unbiased else 1)
    m, n = X.shape[0], Y.shape[0]
    kfun = kernel_function(kernel, bandwidth, nu)
    P_xx, D_x = _kernel_sums(X, X, kfun, chunk_size)
    P_yy, D_y = _kernel_sums(Y, Y, kfun, chunk_size)
    P_xy, _ = _kernel_sums(X, Y, kfun, chunk_size)
    if not unbiased:
        D_x = D_y = 0.0
    pairs = (m * (m - 1), n * (n - 1), m * n) if unbiased else (m * m, n * n, m * n)
    stat, _ = mmd2_from_parts(P_xx, P_yy, P_xy, D_x, D_y, 0.0, *pairs, unbiased)
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
    return matern_profile(np.sqrt(sq) / bandwidth, nu)


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
    >>> from skmmd.statistics import mmd2_linear
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
    >>> from skmmd.statistics import mmd2_block
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


def power_criterion_exact(X, Y, kfun, eps=1e-10):
    """:func:`power_criterion` for an exact kernel (quadratic time, blockwise)."""
    n = min(X.shape[0], Y.shape[0])
    X, Y = X[:n], Y[:n]
    row_sums = np.empty(n)
    diag = 0.0
    for rows in gen_batches(n, max(1, _budgets.MAP_CHUNK_ENTRIES // (2 * n))):
        H = kfun(X[rows], X) + kfun(Y[rows], Y) - kfun(X[rows], Y) - kfun(Y[rows], X)
        row_sums[rows] = H.sum(axis=1)
        diag += float(np.trace(H[:, rows]))
    return _power_from_h(row_sums, diag, n, eps)
