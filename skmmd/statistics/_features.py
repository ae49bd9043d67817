"""MMD statistics of explicit features in linear time: the estimator from
per-sample sums, the power criterion used for kernel selection and the
witness function."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_array, gen_batches

from .._utils import _budgets
from .._utils._compat import Interval, StrOptions, validate_params

_STATISTICS = StrOptions({"unbiased", "biased"})


def mmd2_from_parts(P_xx, P_yy, P_xy, D_x, D_y, D_xy, n_xx, n_yy, n_xy, unbiased):
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


def _feature_sums(Z, transform=None, chunk_size=None):
    """Streaming ``sum_i z_i`` and ``sum_i ||z_i||^2`` in float64.

    With ``transform``, ``Z`` holds raw rows mapped one row block at a time, so
    the full feature matrix is never stored.
    """
    s, q = 0.0, 0.0
    n = Z.shape[0]
    if chunk_size is None:
        width = Z.shape[1] if transform is None else 1024
        chunk_size = max(1, _budgets.MAP_CHUNK_ENTRIES // max(width, 1))
    for rows in gen_batches(n, chunk_size):
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
        "chunk_size": [None, Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def mmd2_features(X, Y, *, statistic="unbiased", transform=None, chunk_size=None):
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
    chunk_size : int, default=None
        Rows per chunk (a memory size).

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
    >>> from skmmd.statistics import mmd2_features
    >>> X = np.array([[0.0], [1.0]])
    >>> Y = np.array([[2.0], [3.0]])
    >>> float(mmd2_features(X, Y, statistic="biased"))
    4.0
    """
    unbiased = statistic == "unbiased"
    X, Y = _check_two(X, Y, min_samples=2 if unbiased else 1)
    m, n = X.shape[0], Y.shape[0]
    s_x, q_x = _feature_sums(X, transform, chunk_size)
    s_y, q_y = _feature_sums(Y, transform, chunk_size)
    pairs = (m * (m - 1), n * (n - 1), m * n) if unbiased else (m * m, n * n, m * n)
    stat, _ = mmd2_from_parts(
        s_x @ s_x, s_y @ s_y, s_x @ s_y, q_x, q_y, 0.0, *pairs, unbiased
    )
    return float(stat)


def _power_parts(total, row_sums_sq, h_diag_sum, n):
    """``MMD2_u`` and ``V`` from the sums of the paired ``h`` matrix: its
    total, the sum of its squared row sums and its trace."""
    mmd2 = (total - h_diag_sum) / (n * (n - 1))
    var = 4.0 / n**3 * row_sums_sq - 4.0 / n**4 * total**2
    return mmd2, var


def _power_from_h(h_row_sums, h_diag_sum, n, eps):
    """``MMD2_u / sqrt(V)`` from the row sums of the paired ``h`` matrix."""
    mmd2, var = _power_parts(h_row_sums.sum(), np.sum(h_row_sums**2), h_diag_sum, n)
    return float(mmd2 / np.sqrt(max(var, eps)))


def power_gradient(s, q, row_sums_sq, n, eps=1e-10):
    """The power criterion of features and its gradient, from three sums.

    For paired feature differences ``d_i`` (see :func:`power_criterion`), with
    ``s = sum_i d_i``, ``q = sum_i ||d_i||^2``, ``r_i = d_i^T s`` (the row sums
    of ``h``) and ``row_sums_sq = sum_i r_i^2``, the criterion is
    ``J = MMD2_u / sqrt(max(V, eps))`` and its gradient with respect to
    ``d_i`` is ``a s + b d_i + c (r_i s + u)`` with ``u = sum_k r_k d_k``.
    A learner computes the sums in passes over row blocks, so that neither
    the ``n x n`` matrix ``h`` nor all ``d_i`` at once are stored.

    Returns
    -------
    criterion : float
    coefficients : tuple of float
        ``(a, b, c)``.
    """
    total = float(s @ s)
    mmd2, var = _power_parts(total, row_sums_sq, q, n)
    sigma = np.sqrt(max(var, eps))
    b = -2.0 / (n * (n - 1) * sigma)
    a, c = -b, 0.0
    if var > eps:  # below the floor the variance is a constant
        # dJ/dV = -J / (2 V); dV/dd_i = 8/n^3 (r_i s + u) - 16 total/n^4 s.
        dj_dv = -mmd2 / (2.0 * sigma**3)
        a -= dj_dv * 16.0 * total / n**4
        c = dj_dv * 8.0 / n**3
    return float(mmd2 / sigma), (a, b, c)


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
    >>> from skmmd.statistics import power_criterion
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
    >>> from skmmd.statistics import witness
    >>> witness([[1.0], [-1.0]], [[2.0]], [[0.0]])
    array([ 2., -2.])
    """
    X, Y = _check_two(X, Y, min_samples=1)
    mean_diff = np.asarray(X.mean(axis=0)).ravel() - np.asarray(Y.mean(axis=0)).ravel()
    Z = check_array(Z, accept_sparse="csr", dtype=[np.float64, np.float32])
    return np.asarray(Z @ mean_diff).ravel()
