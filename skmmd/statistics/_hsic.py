"""HSIC, the MMD between a joint distribution and the product of its marginals,
from explicit features (Zhang, Filippi, Gretton & Sejdinovic 2018).

With features ``a_i`` of x and ``b_i`` of y for ``G`` observations (points, or
the unit sums of the independence test), ``K = a a^T`` and ``L = b b^T``, a
pairing ``pi`` of the y observations with the x ones has

- biased HSIC ``(1/G^2) sum_ij Kc_ij Lc_pi(i)pi(j)`` with centered Grams;
- unbiased HSIC (Song et al. 2012) from the zero-diagonal Grams ``K~, L~``:
  ``[tr(K~ L~) + 1'K~1 1'L~1 / ((G-1)(G-2)) - 2/(G-2) 1'K~L~1] / (G(G-3))``.

Each needs one quadratic sum ``sum_ij K_ij L_pi(i)pi(j)`` (``G^2`` per pairing,
compiled) and sums of ``G`` terms; ``G x G`` Grams are formed once, so the cost
never grows with the number of rows behind an observation.
"""

import numpy as np
from sklearn.utils import check_array

from .._utils._compat import StrOptions, validate_params
from .._utils._jit import njit, prange

# Gram matrices of at most this many observations (two 128 MB float64 arrays).
MAX_OBSERVATIONS = 4096


# Pairings per tile, sharing each pass over a row of the x Grams (kept in
# cache).
_TILE_PAIRINGS = 8


@njit(parallel=True, cache=True, fastmath={"reassoc", "contract"})
def _paired_quadratic(K, L, pairings):  # pragma: no cover - compiled
    """``sum_ij K[a, i, j] L[c, p(i), p(j)]`` for every row ``p`` of
    ``pairings`` and every pair ``(a, c)`` of a stack of ``n_x`` x Grams
    ``K`` (n_x, G, G) and ``n_y`` y Grams ``L`` (n_y, G, G), all symmetric
    (the lower triangle, twice, plus the diagonal). A tile of pairings
    shares each row of ``K``; each gathered row of ``L`` serves every x
    kernel as a contiguous dot product."""
    B, G = pairings.shape
    nx, ny = K.shape[0], L.shape[0]
    out = np.zeros((B, nx, ny))
    for tile in prange((B + _TILE_PAIRINGS - 1) // _TILE_PAIRINGS):
        gathered = np.empty(G)
        for i in range(G):
            for b in range(tile * _TILE_PAIRINGS, min(B, (tile + 1) * _TILE_PAIRINGS)):
                p = pairings[b]
                pi = p[i]
                for c in range(ny):
                    row = L[c, pi]
                    for j in range(i):
                        gathered[j] = row[p[j]]
                    diagonal = row[pi]
                    for a in range(nx):
                        Ki = K[a, i]
                        acc = 0.0
                        for j in range(i):
                            acc += Ki[j] * gathered[j]
                        out[b, a, c] += 2.0 * acc + Ki[i] * diagonal
    return out


def feature_gram(a):
    """The Gram ``a a^T`` of features centered over the observations (HSIC
    does not change when a constant is added to a feature map, and centered
    features keep the rounding small)."""
    a = np.asarray(a, dtype=np.float64)
    a = a - a.mean(axis=0)
    return a @ a.T


def centered_gram(K):
    """``H K H`` with ``H = I - 11'/G``: the Gram of the centered features of
    any kernel (the centering :func:`feature_gram` does in feature space)."""
    K = np.asarray(K, dtype=np.float64)
    rows = K.mean(axis=1)
    return K - rows[:, None] - K.mean(axis=0)[None, :] + rows.mean()


def _stack(grams):
    """One Gram (G, G) or a sequence of them as a (k, G, G) stack."""
    if isinstance(grams, np.ndarray) and grams.ndim == 2:
        return np.ascontiguousarray(grams, dtype=np.float64)[None]
    return np.ascontiguousarray(np.stack(list(grams)), dtype=np.float64)


class HSICParts:
    """The Grams of ``G`` observations and the terms of both estimators that
    depend on the pairing only through O(G) sums.

    One x kernel and one y kernel, or several of each (an aggregated test's
    bandwidth grid, or each column group of x against y in ``explain``):
    every pair of an x and a y kernel is computed on the same pairings, in one
    pass over the Grams.

    Parameters
    ----------
    K : ndarray of shape (G, G) or sequence of them
        Centered Gram(s) of x (:func:`feature_gram` of features or unit sums
        of features, or :func:`centered_gram` of an exact kernel matrix).
    L : ndarray of shape (G, G) or sequence of them
        Centered Gram(s) of y, their rows paired with those of ``K``.
    unbiased : bool
        Which estimator.

    Statistics come as one value per pairing for one Gram each (two arrays),
    else as one column per pair of kernels, x major: column ``a * n_y + c``
    pairs x kernel ``a`` with y kernel ``c``.
    """

    def __init__(self, K, L, unbiased):
        self.single = all(isinstance(M, np.ndarray) and M.ndim == 2 for M in (K, L))
        self.K, self.L = _stack(K), _stack(L)
        self.G = G = self.K.shape[1]
        self.unbiased = unbiased
        # Rounding scales of every pair of kernels (for ties).
        self.scale = np.outer(
            np.abs(self.K).sum(axis=(1, 2)), np.abs(self.L).max(axis=(1, 2))
        ).ravel()
        if unbiased:
            # Diagonals and row sums of the zero-diagonal Grams, (k, G) each.
            self.dk = np.diagonal(self.K, axis1=1, axis2=2).copy()
            self.dl = np.diagonal(self.L, axis1=1, axis2=2).copy()
            self.rk = self.K.sum(axis=2) - self.dk
            self.rl = self.L.sum(axis=2) - self.dl
            self.const = np.outer(self.rk.sum(axis=1), self.rl.sum(axis=1)).ravel() / (
                (G - 1) * (G - 2)
            )

    @property
    def n_kernels(self):
        """Number of pairs of kernels ``n_x * n_y``."""
        return self.K.shape[0] * self.L.shape[0]

    def _shaped(self, values):
        return values[..., 0] if self.single else values

    def _pairs(self, u, v, pairings):
        """``sum_i u[a, i] v[c, p(i)]`` for every pairing, (B, n_x n_y)."""
        return np.einsum("ag,cbg->bac", u, v[:, pairings]).reshape(
            pairings.shape[0], -1
        )

    def statistics(self, pairings):
        """HSIC of each pairing (rows of ``pairings``, int64 of shape (B, G)).

        Returns the statistics and their rounding scales (for ties), of shape
        (B,) for one pair of Grams, else (B, n_x n_y).
        """
        G, B = self.G, pairings.shape[0]
        quadratic = _paired_quadratic(self.K, self.L, pairings).reshape(B, -1)
        scale = np.broadcast_to(self.scale, quadratic.shape)
        if not self.unbiased:
            return self._shaped(quadratic / G**2), self._shaped(scale / G**2)
        diagonal = self._pairs(self.dk, self.dl, pairings)
        cross = self._pairs(self.rk, self.rl, pairings)
        stat = quadratic - diagonal + self.const - 2.0 * cross / (G - 2)
        return self._shaped(stat / (G * (G - 3))), self._shaped(scale / (G * (G - 3)))

    def jackknife(self, long_run=None):
        """The unbiased HSIC of the observed pairing and its delete-one
        jackknife standard error (``O(G^2)`` per pair of kernels; needs
        ``G >= 5``): floats, or arrays of ``n_x n_y`` for several kernels.

        ``long_run``: for observations in time order, a function of the
        leave-one-out values (units down the rows, a column per pair of
        kernels) giving the factor of their variance that their dependence
        adds (see :func:`_jackknife_variance`); None: exchangeable
        observations."""
        G, K, L = self.G, self.K, self.L
        dk = np.diagonal(K, axis1=1, axis2=2)
        dl = np.diagonal(L, axis1=1, axis2=2)
        # Row sums of the zero-diagonal Grams, (k, G), and, for every pair
        # (a, c), sum_j Kt_a[i, j] Lt_c[i, j] and the products Kt_a rl_c,
        # Lt_c rk_a: (n_x, n_y, G) each.
        rk, rl = K.sum(axis=2) - dk, L.sum(axis=2) - dl
        cross = np.array([[np.einsum("ij,ij->i", Ka, Lc) for Lc in L] for Ka in K])
        cross -= dk[:, None] * dl[None]
        Krl = np.matmul(K, rl.T).transpose(0, 2, 1) - dk[:, None] * rl[None]
        Lrk = np.matmul(L, rk.T).transpose(2, 0, 1) - dl[None] * rk[:, None]
        rk_, rl_ = rk[:, None], rl[None]
        inner = rk @ rl.T  # (n_x, n_y)
        g = G - 1  # observations left
        trace = cross.sum(axis=2, keepdims=True) - 2.0 * cross
        sk = rk.sum(axis=1)[:, None, None] - 2.0 * rk_
        sl = rl.sum(axis=1)[None, :, None] - 2.0 * rl_
        rows = inner[:, :, None] - rk_ * rl_ - Lrk - Krl + cross
        loo = (trace + sk * sl / ((g - 1) * (g - 2)) - 2.0 * rows / (g - 2)) / (
            g * (g - 3)
        )
        full = (
            cross.sum(axis=2)
            + np.outer(rk.sum(axis=1), rl.sum(axis=1)) / ((G - 1) * (G - 2))
            - 2.0 * inner / (G - 2)
        ) / (G * (G - 3))
        n_x, n_y = loo.shape[:2]
        variance = _jackknife_variance(loo.reshape(n_x * n_y, G).T, long_run)
        se = np.sqrt(variance).reshape(n_x, n_y)
        if self.single:
            return float(full[0, 0]), float(se[0, 0])
        return full.ravel(), se.ravel()

    def observed(self):
        """The statistic of the observed pairing and its rounding scale:
        floats, or arrays of ``n_x n_y`` for several kernels."""
        stat, scale = self.statistics(np.arange(self.G)[None, :])
        if self.single:
            return float(stat[0]), float(scale[0])
        return stat[0], scale[0]


class ColumnHSICParts:
    """HSIC of every column of a block of x features against one y map, from
    the features themselves (no ``G x G`` Gram per column): the
    :class:`HSICParts` statistics of ``K_j = a_j a_j^T`` and ``L = b b^T`` for
    each column ``j``, on the same pairings.

    For centered features, ``sum_ij K_ij L_p(i)p(j) = ||a_j^T b_p||_F^2``
    (``b_p`` the y rows paired by ``p``), the zero-diagonal Grams' row sums
    are minus their diagonals, and a batch of pairings is one matrix product
    of all columns' features with the paired y features side by side. y's
    features are first rotated onto the eigenvectors of ``b^T b`` with a
    nonzero eigenvalue (``L`` unchanged, fewer columns).

    Parameters
    ----------
    a : ndarray of shape (G, n_blocks * w)
        Observations of the columns' features, block ``j`` column ``j``'s.
    n_blocks : int
        Columns (blocks of equal width ``w``).
    b : ndarray of shape (G, D_y)
        Observations of y's features, rows paired with ``a``'s.
    unbiased : bool
        Which estimator.
    """

    single = False

    def __init__(self, a, n_blocks, b, unbiased):
        a = np.asarray(a, dtype=np.float64)
        self.a = a - a.mean(axis=0)
        b = np.asarray(b, dtype=np.float64)
        b = b - b.mean(axis=0)
        values, vectors = np.linalg.eigh(b.T @ b)
        kept = values > values.max(initial=0.0) * 1e3 * np.finfo(np.float64).eps
        self.b = np.ascontiguousarray(b @ vectors[:, kept])
        self.G = G = a.shape[0]
        self.n_blocks, self.unbiased = n_blocks, unbiased
        blocks = self.a.reshape(G, n_blocks, -1)
        self.dk = np.einsum("gjw,gjw->gj", blocks, blocks)  # (G, n_blocks)
        self.dl = np.einsum("gr,gr->g", self.b, self.b)
        self.scale = np.sqrt(self.dk).sum(axis=0) ** 2 * self.dl.max(initial=0.0)
        self.const = self.dk.sum(axis=0) * self.dl.sum() / ((G - 1) * (G - 2))
        # Pairings per matrix product: its output within about 2**23 entries.
        self.batch = max(1, 2**23 // max(self.a.shape[1] * self.b.shape[1], 1))

    @property
    def n_kernels(self):
        return self.n_blocks

    def statistics(self, pairings):
        """HSIC of every column for each pairing, and their rounding scales:
        arrays of shape (B, n_blocks)."""
        G, B, r = self.G, pairings.shape[0], self.b.shape[1]
        paired = self.b[pairings].transpose(1, 0, 2).reshape(G, B * r)
        cross = (self.a.T @ paired).reshape(self.n_blocks, -1, B, r)
        quadratic = np.einsum("jwbr,jwbr->bj", cross, cross)
        scale = np.broadcast_to(self.scale, quadratic.shape)
        if not self.unbiased:
            return quadratic / G**2, scale / G**2
        diagonal = self.dl[pairings] @ self.dk
        stat = quadratic - diagonal + self.const - 2.0 * diagonal / (G - 2)
        return stat / (G * (G - 3)), scale / (G * (G - 3))

    def observed(self):
        """The statistics of the observed pairing and their scales."""
        stat, scale = self.statistics(np.arange(self.G)[None, :])
        return stat[0], scale[0]

    def effect_sizes(self, y_features, y_draws=None, long_run=None):
        """Every column's unbiased HSIC and its standard error, as
        :class:`HSICParts` ``.jackknife()`` plus :func:`draw_variances` give
        them for one column, from the features in ``O(G W r)``: no Gram.

        ``y_features`` are y's observations as the map gives them and
        ``y_draws`` the draw behind each of their columns (None: no spread
        over the draw); the columns' own features are not independent draws.
        ``long_run`` as in :meth:`HSICParts.jackknife`.
        """
        G, g, k = self.G, self.G - 1, self.n_blocks
        a = self.a.reshape(G, k, -1)
        b, dk, dl = self.b, self.dk, self.dl[:, None]
        # sum_j K_ij L_ij = a_i^T (a^T b) b_i, and the products of the
        # zero-diagonal Grams with the other side's row sums (rk = -dk).
        ab = np.einsum("gjw,gr->jwr", a, b)
        cross = np.einsum("gjw,gjw->gj", a, np.einsum("gr,jwr->gjw", b, ab)) - dk * dl
        Krl = -np.einsum("gjw,jw->gj", a, np.einsum("gjw,g->jw", a, self.dl)) + dk * dl
        Lrk = -(b @ (b.T @ dk)) + dk * dl
        rk, rl = -dk, -dl
        inner = (dk * dl).sum(axis=0)
        trace = cross.sum(axis=0) - 2.0 * cross
        sk = rk.sum(axis=0) - 2.0 * rk
        sl = rl.sum(axis=0) - 2.0 * rl
        rows = inner - rk * rl - Lrk - Krl + cross
        loo = (trace + sk * sl / ((g - 1) * (g - 2)) - 2.0 * rows / (g - 2)) / (
            g * (g - 3)
        )
        full = (
            cross.sum(axis=0)
            + rk.sum(axis=0) * rl.sum() / ((G - 1) * (G - 2))
            - 2.0 * inner / (G - 2)
        ) / (G * (G - 3))
        variance = _jackknife_variance(loo, long_run)
        if y_draws is not None:
            variance = variance + self._draw_variance(y_features, y_draws)
        return full, np.sqrt(variance)

    def _draw_variance(self, y_features, draws):
        """:func:`draw_variances`' spread over the draw of y's features, for
        every column at once."""
        G, k = self.G, self.n_blocks
        y = np.asarray(y_features, dtype=np.float64)
        y = y - y.mean(axis=0)
        squared = ((y.T @ self.a) ** 2).reshape(y.shape[1], k, -1).sum(axis=2)
        q = (y * y).T @ self.dk
        n = np.einsum("ij,ij->j", y, y)[:, None]
        h = squared - q + n * self.dk.sum(axis=0) / ((G - 1) * (G - 2))
        h = (h - 2.0 * q / (G - 2)) / (G * (G - 3))
        per_draw = np.zeros((draws.max() + 1, k))
        np.add.at(per_draw, draws, h)
        if per_draw.shape[0] < 2:
            return 0.0
        return per_draw.shape[0] * per_draw.var(axis=0, ddof=1)


def _jackknife_variance(loo, long_run=None):
    """The delete-one jackknife variance ``(G - 1)/G sum_g (loo_g - mean)^2``
    of each column of the leave-one-out values ``loo`` (G, p), times
    ``long_run(loo)`` when given: the factor by which the long-run variance
    of observations in time order exceeds their variance (the jackknife's
    sum treats them as exchangeable)."""
    G = loo.shape[0]
    variance = (G - 1) / G * ((loo - loo.mean(axis=0)) ** 2).sum(axis=0)
    return variance if long_run is None else variance * long_run(loo)


def draw_variances(xs, ys, x_draws, y_draws):
    """Variance of the unbiased HSIC of every pair of feature maps over the
    random draw of the maps' features, given the observations.

    The unbiased HSIC is a sum of one term per column of x's features (and
    one per column of y's), ``h_c = [||b^T a_c||^2 - q_c + n_c T_L / ((G-1)
    (G-2)) - 2 q_c / (G-2)] / (G (G-3))`` with centered ``a_c``, ``q_c =
    sum_i a_ic^2 ||b_i||^2``, ``n_c = ||a_c||^2`` and ``T_L = sum_i
    ||b_i||^2``. Where a map's columns come from independent draws (random
    Fourier frequencies), the statistic is a sum of ``M`` independent
    per-draw terms, whose variance ``M s^2`` (``s^2`` their sample variance)
    is the spread a new draw of the features would give. ``O(G D_x D_y)``.

    Parameters
    ----------
    xs, ys : list of ndarray of shape (G, D)
        Features of the x and y observations, one array per map, rows paired.
    x_draws, y_draws : list of (ndarray of shape (D,) or None)
        The draw behind each column of each map; None for a map whose
        columns are not independent draws (it adds no variance).

    Returns
    -------
    ndarray of shape (len(xs) * len(ys),)
        One variance per pair of maps, x major.
    """
    G = xs[0].shape[0]
    xs = [a - a.mean(axis=0) for a in xs]
    ys = [b - b.mean(axis=0) for b in ys]
    norms_x = [np.einsum("ij,ij->i", a, a) for a in xs]
    norms_y = [np.einsum("ij,ij->i", b, b) for b in ys]

    def spread(a, norms_other, squared_cross, draws):
        if draws is None:
            return 0.0
        q = (a * a).T @ norms_other
        n = np.einsum("ij,ij->j", a, a)
        h = squared_cross - q + n * norms_other.sum() / ((G - 1) * (G - 2))
        h = (h - 2.0 * q / (G - 2)) / (G * (G - 3))
        per_draw = np.bincount(draws, weights=h)
        return per_draw.size * per_draw.var(ddof=1) if per_draw.size > 1 else 0.0

    out = []
    for a, na, da in zip(xs, norms_x, x_draws):
        for b, nb, db in zip(ys, norms_y, y_draws):
            C = (b.T @ a) ** 2  # (D_y, D_x)
            out.append(
                spread(a, nb, C.sum(axis=0), da) + spread(b, na, C.sum(axis=1), db)
            )
    return np.array(out)


@validate_params(
    {
        "X": ["array-like"],
        "Y": ["array-like"],
        "statistic": [StrOptions({"biased", "unbiased"})],
    },
    prefer_skip_nested_validation=True,
)
def hsic_features(X, Y, *, statistic="biased"):
    """HSIC of paired features: the squared norm of their cross-covariance.

    The biased estimator is ``||C||_F^2`` with ``C = (1/n) sum_i (x_i -
    mean x)(y_i - mean y)^T``, i.e. ``(1/n^2) tr(K H L H)`` with the Gram
    matrices of the linear kernel on these features; the unbiased estimator
    is Song et al.'s (2012). Both are computed from the ``n x n`` Grams, as
    :class:`~skmmd.HSICTest` computes them for its resampling units, so at
    most 4096 rows.

    Parameters
    ----------
    X : array-like of shape (n, D_x)
        Features of the first variable (e.g. ``sampler.transform(x)``).
    Y : array-like of shape (n, D_y)
        Features of the second variable, row ``i`` paired with row ``i`` of X.
    statistic : {"biased", "unbiased"}, default="biased"
        The estimator.

    Returns
    -------
    hsic : float
        The estimate (the unbiased one may be slightly negative).

    See Also
    --------
    skmmd.HSICTest : The permutation test of independence built on it.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.statistics import hsic_features
    >>> x = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> round(hsic_features(x, 2 * x), 6)  # (2 var(x))^2 = (2 * 1.25)^2
    6.25
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = check_array(Y, dtype=np.float64, input_name="Y")
    n = X.shape[0]
    if Y.shape[0] != n:
        raise ValueError(
            f"X and Y must have the same number of rows (paired); got {n} and "
            f"{Y.shape[0]}."
        )
    low = 4 if statistic == "unbiased" else 1
    if not low <= n <= MAX_OBSERVATIONS:
        raise ValueError(
            f"The {statistic} HSIC of features takes {low} to {MAX_OBSERVATIONS} "
            f"rows; got {n}."
        )
    parts = HSICParts(feature_gram(X), feature_gram(Y), statistic == "unbiased")
    return parts.observed()[0]
