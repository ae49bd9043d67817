"""The kernel Stein discrepancy of a sample to a model known by its score
``s = grad log p``: from Stein features of random Fourier features in linear
time (:func:`stein_features`; their mean's squared norm is the statistic of
:class:`~skmmd.statistics._mean_norm.MultiplierParts`), or from the exact Stein
kernel of the Gaussian kernel in quadratic time (:func:`gaussian_stein_gram`,
:class:`GramParts`), the reference for small samples.

For a kernel ``k`` the Stein kernel ``u_p(x, y) = s(x)'s(y) k(x, y) + s(x)'
grad_y k(x, y) + s(y)' grad_x k(x, y) + tr grad_x grad_y k(x, y)`` has mean 0
under ``x ~ p`` (Stein's identity: no normalizing constant, no sample from
``p``), and ``KSD^2 = E_{x, y ~ q} u_p(x, y)`` vanishes only at ``q = p`` for a
characteristic ``k`` (Liu, Lee & Jordan 2016; Chwialkowski, Strathmann &
Gretton 2016). With ``k(x, y) = sum_j phi_j(x) phi_j(y)`` (random features),
``u_p(x, y) = sum_j xi_j(x)' xi_j(y)`` for the Stein features ``xi_j(x) =
s(x) phi_j(x) + grad phi_j(x)`` in ``R^d``, so the V-statistic of ``u_p`` is
``||(1/n) sum_i xi(x_i)||^2``: linear in ``n`` (Huggins & Mackey 2018).
"""

import numpy as np

from .._utils._jit import njit


@njit(cache=True, fastmath={"contract"})
def _add_unit_sums(Z, S, A, W, groups, U, q, cs):
    """Add each row's Stein features (from its features ``Z = L^{-1/2} [cos,
    sin]``, score ``S`` and gradient weight ``A``) to its group's ``U[g]``
    (2, d, L), their squared scores to ``q[g]``; ``cs[g]`` collects the
    group's sums of ``A[i] Z[i]`` for the terms in ``W``, added once per
    group. Serial (each entry gets its rows in
    order, whatever the threads); the innermost loop runs over the ``L``
    frequencies, contiguous in ``Z`` and ``U``."""
    n, d = S.shape
    L = W.shape[1]
    for i in range(n):
        g = groups[i]
        a = A[i]
        for j in range(L):
            cs[g, 0, j] += a * Z[i, j]
            cs[g, 1, j] += a * Z[i, L + j]
        for k in range(d):
            s = S[i, k]
            q[g] += s * s
            for j in range(L):
                U[g, 0, k, j] += s * Z[i, j]
                U[g, 1, k, j] += s * Z[i, L + j]
    for g in range(U.shape[0]):
        for k in range(d):
            for j in range(L):
                U[g, 0, k, j] -= cs[g, 1, j] * W[k, j]
                U[g, 1, k, j] += cs[g, 0, j] * W[k, j]


def add_stein_unit_sums(Z, score, frequencies, groups, sums, squares, weights=None):
    """Add the Stein features of rows, summed per group, into ``sums`` (G, 2 L
    d) and their squared norms into ``squares`` (G,), without storing them.

    ``Z``: the rows' features ``L^{-1/2} [cos(X W), sin(X W)]`` (n, 2 L);
    ``score`` (n, d); ``frequencies`` ``W`` (d, L); ``groups`` (n,) in ``[0,
    G)``. The cosine block of a group is ``sum_i s_i cos(w'x_i) - w sum_i
    sin(w'x_i)`` (scaled), the sine block likewise, and ``||xi_i||^2 =
    ||s_i||^2 + sum_j ||w_j||^2 / L`` (the cross terms cancel): ``O(n L d)``.
    ``weights`` (n,): each row's gradient term weighted, ``xi_i = s_i
    phi(x_i) + a_i grad phi(x_i)`` (a kernel on a transform of the rows: the
    chain rule's factor), its squared norm ``||s_i||^2 + a_i^2 sum_j
    ||w_j||^2 / L``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._stein import add_stein_unit_sums, stein_features
    >>> X, W = np.array([[0.5], [1.0]]), np.array([[1.0, 2.0]])
    >>> Z = np.hstack([np.cos(X @ W), np.sin(X @ W)]) / np.sqrt(2)
    >>> sums, squares = np.zeros((1, 4)), np.zeros(1)
    >>> _ = add_stein_unit_sums(Z, -X, W, np.array([0, 0]), sums, squares)
    >>> bool(np.allclose(sums, stein_features(X, -X, W).sum(axis=0)))
    True
    """
    S = np.ascontiguousarray(score, dtype=np.float64)
    W = np.ascontiguousarray(frequencies, dtype=np.float64)
    d, L = W.shape
    G = sums.shape[0]
    U = sums.reshape(G, 2, d, L)  # a view: sums is C-contiguous
    cs = np.zeros((G, 2, L))
    groups = np.ascontiguousarray(groups, dtype=np.int64)
    Z = np.ascontiguousarray(Z, np.float64)
    if weights is None:  # (1.0 * z is z: the same sums as without weights)
        A, counts = np.ones(S.shape[0]), np.bincount(groups, minlength=G)
    else:
        A = np.ascontiguousarray(weights, dtype=np.float64)
        counts = np.bincount(groups, weights=A * A, minlength=G)
    _add_unit_sums(Z, S, A, W, groups, U, squares, cs)
    squares += counts * (float((W * W).sum()) / L)
    return sums, squares


def checked_score(function, X, name):
    """``function(X)``, the score ``grad log p`` of a model at the rows ``X``
    (n, d), as a float64 array of X's shape; a ``ValueError`` naming the
    model (``name``) and the rows where it is not finite, or its failure.
    The one check of a model's score, for the goodness-of-fit tests and for
    the kernel learned for them."""
    X = np.asarray(X, dtype=np.float64)
    try:
        S = np.asarray(function(X), dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"The score of {name} failed on X: {error}") from error
    if S.shape != X.shape:
        raise ValueError(
            f"The score of {name} must return an array of X's shape (n, d) "
            f"= {X.shape}: grad log p at each row; got shape {S.shape}."
        )
    bad = ~np.isfinite(S).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(
            f"The score of {name} is NaN or infinite at {rows.size} of "
            f"{X.shape[0]} rows (positions {rows[:5].tolist()} of the batch; "
            f"first such row {X[rows[0]].tolist()}): rows outside the model's "
            "support, or a score that overflows there."
        )
    return S


def stein_features(X, score, frequencies):
    """Stein features of the features ``L^{-1/2} [cos(X W), sin(X W)]``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Rows.
    score : ndarray of shape (n, d)
        The model's score ``grad log p`` at each row.
    frequencies : ndarray of shape (d, L)
        The frequencies ``W`` of the features (columns: frequencies).

    Returns
    -------
    xi : ndarray of shape (n, 2 L d)
        Row ``i`` is ``s_i phi(x_i)' + grad phi(x_i)`` (``d x 2 L``) over
        the ``2 L`` features ``phi``, as two blocks (cosines, then sines) of
        ``d`` rows of ``L``: for ``phi = cos(w'x)``, ``s cos(w'x) - w
        sin(w'x)``; for ``sin(w'x)``, ``s sin(w'x) + w cos(w'x)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._stein import stein_features
    >>> X, score = np.array([[0.0]]), np.array([[1.0]])
    >>> stein_features(X, score, np.array([[1.0]]))  # [s cos - w sin, s sin + w cos]
    array([[1., 1.]])
    """
    X = np.asarray(X, dtype=np.float64)
    S = np.asarray(score, dtype=np.float64)
    W = np.asarray(frequencies, dtype=np.float64)
    n, d = X.shape
    L = W.shape[1]
    P = X @ W
    C, Sn = np.cos(P), np.sin(P)
    out = np.empty((n, 2, d, L))
    np.multiply(S[:, :, None], C[:, None, :], out=out[:, 0])
    out[:, 0] -= W[None] * Sn[:, None, :]
    np.multiply(S[:, :, None], Sn[:, None, :], out=out[:, 1])
    out[:, 1] += W[None] * C[:, None, :]
    out *= 1.0 / np.sqrt(L)
    return out.reshape(n, 2 * L * d)


def gaussian_stein_gram(X, score, bandwidth, Y=None, score_y=None):
    """The Stein kernel matrix ``u_p(x_i, y_j)`` of the Gaussian kernel
    ``k = exp(-||x - y||^2 / (2 h^2))``.

    ``u_p = k (s_x's_y + (s_x - s_y)'(x - y) / h^2 + d / h^2 - ||x - y||^2 /
    h^4)``. ``Y`` (and its score ``score_y``) default to ``X``: an
    ``n x n`` matrix, for small samples only.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._stein import gaussian_stein_gram
    >>> X = np.array([[0.0], [1.0]])
    >>> H = gaussian_stein_gram(X, -X, 1.0)
    >>> float(H[0, 0]), float(H[1, 1])  # s_x^2 + d / h^2 on the diagonal
    (1.0, 2.0)
    """
    X = np.asarray(X, dtype=np.float64)
    S = np.asarray(score, dtype=np.float64)
    Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    T = S if score_y is None else np.asarray(score_y, dtype=np.float64)
    h2 = float(bandwidth) ** 2
    d = X.shape[1]
    sq = (X * X).sum(axis=1)[:, None] + (Y * Y).sum(axis=1)[None, :] - 2.0 * X @ Y.T
    sq = np.maximum(sq, 0.0)
    k = np.exp(-sq / (2.0 * h2))
    # (s_x - s_y)'(x - y) = s_x'x - s_x'y - s_y'x + s_y'y
    cross = (
        (S * X).sum(axis=1)[:, None] - S @ Y.T - X @ T.T + (T * Y).sum(axis=1)[None, :]
    )
    return k * (S @ T.T + cross / h2 + d / h2 - sq / (h2 * h2))


class GramParts:
    """The exact kernel Stein discrepancy of a Stein kernel matrix and its
    multiplier bootstrap: :class:`~skmmd.statistics._mean_norm.MultiplierParts`
    with every row a unit and ``||sum_g w_g U_g||^2`` read as ``w' H w``.

    Parameters
    ----------
    H : ndarray of shape (n, n)
        The Stein kernel matrix (:func:`gaussian_stein_gram`).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics._stein import GramParts
    >>> parts = GramParts(np.array([[1.0, 0.5], [0.5, 2.0]]))
    >>> parts.observed()[0]  # 1' H 1 / n
    2.0
    >>> parts.statistics(np.array([[1.0, -1.0]]))[0]  # w' H w / n
    array([1.])
    """

    def __init__(self, H):
        self.H = np.asarray(H, dtype=np.float64)
        self.G = self.n = self.H.shape[0]
        self.row_sums = self.H.sum(axis=1)
        self._abs = float(np.abs(self.H).sum())

    def observed(self):
        """``1' H 1 / n`` and its rounding scale."""
        return float(self.row_sums.sum()) / self.n, self._abs / self.n

    def statistics(self, W):
        """``w_b' H w_b / n`` for the rows of ``W``, and their rounding scales."""
        W = np.asarray(W, dtype=np.float64)
        stat = np.einsum("bi,bi->b", W @ self.H, W) / self.n
        scale = np.abs(W).max(axis=1, initial=0.0) ** 2 * self._abs / self.n
        return stat, scale

    def effect(self):
        """The U-statistic ``sum_{i != j} H_ij / (n (n - 1))`` and its
        delete-one jackknife standard error (NaN with fewer than 3 rows)."""
        n, total, own = self.n, float(self.row_sums.sum()), float(np.trace(self.H))
        effect = (total - own) / (n * (n - 1))
        if n < 3:
            return float(effect), float("nan")
        diag = np.diag(self.H)
        loo = (total - 2.0 * self.row_sums + diag - (own - diag)) / ((n - 1) * (n - 2))
        se = np.sqrt((1 - 1 / n) * np.sum((loo - loo.mean()) ** 2))
        return float(effect), float(se)
