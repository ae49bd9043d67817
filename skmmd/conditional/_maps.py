"""The default feature maps of the conditional test: of x and of y, of z
(the regressors) and of the weights ``g(z)``; shared by
:class:`~skmmd.ConditionalHSICTest` and the causal-learn adapter."""

from numbers import Integral

import numpy as np
from scipy import sparse
from scipy.stats import gamma, norm
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._tables._labels import is_dataframe
from .._utils import _budgets, _streams
from .._utils._compat import Interval, fit_context
from ..kernel_approximation import NystroemSampler, RandomFourierSampler, TabularSampler
from ..kernels import median_bandwidth

# Features of x and of y of the default map (cos/sin pairs at the median
# bandwidth), and weights g(z) of the default weight map (the same, of Z
# standardized): the products have Dx * Dg * Dy = 216 entries per row.
_XY_FEATURES = 6
_Z_WEIGHTS = 6

# The screen of Z's columns (:func:`relevant_columns`): its level on m rows
# is _Z_SCREEN * min(1, _SCREEN_ROWS / m)^2; features of each column and of
# x and y, and of the rest jointly per bandwidth.
_Z_SCREEN = 0.1
_SCREEN_ROWS = 300
_JOINT_FEATURES = 60
_SCREEN_FEATURES = 20
_SEEDS = np.iinfo(np.int32).max


def n_z_features(n_rows, *, factor=10.0, low=48, cap=600):
    """The number of z-features for ``n_rows`` rows: ``factor * sqrt(n)``
    rounded to a multiple of 6, between ``low`` and ``cap``. Too few leave
    part of ``E[a(X) | Z]`` and ``E[b(Y) | Z]`` in both residuals (at ``n =
    1000``, 126 gave type-I errors up to 0.3, 300-600 at most 0.12); the
    cross-validated penalty guards against too many.

    Parameters
    ----------
    n_rows : int
        Rows of the test.
    factor : float, default=10.0
        Features per square root of a row.
    low, cap : int, default=48, 600
        Bounds; the cap bounds the cost ``n Dz^2 + 2 K Dz^3`` per test.

    Returns
    -------
    n_features : int
        A multiple of 6 (cos/sin pairs at two or three bandwidths).

    Examples
    --------
    >>> from skmmd.conditional._maps import n_z_features
    >>> n_z_features(1000), n_z_features(10**4), n_z_features(10**6)
    (318, 600, 600)
    """
    d = int(round(factor * np.sqrt(n_rows) / 6.0)) * 6
    return int(min(max(d, low), cap))


def z_scales(n_rows):
    """Multiples of the median bandwidth of each column of (standardized) z,
    and of all columns jointly, for the default z map: smaller ones as ``n``
    grows, as for any kernel regression: the regression error must fall
    faster than ``n^-1/4`` (benchmarks/conditional_level_probe.py measures the
    level of both sets of scales)."""
    if n_rows <= 2000:
        return (0.2, 0.5, 1.0), (0.25, 0.5, 1.0)
    return (0.1, 0.2, 0.5, 1.0), (0.15, 0.25, 0.5, 1.0)


class SpectralQuantileMap(TransformerMixin, BaseEstimator):
    """Fourier features of one numeric column at fixed frequencies.

    ``z(x) = K^{-1/2} [cos(w_k x / h), sin(w_k x / h)]_{k=1..K}`` with ``K =
    n_components // 2``, ``h`` the median bandwidth of the column and ``w_k``
    the ``(k - 1/2) / K`` quantiles of the half-normal distribution (the
    Gaussian kernel's spectral measure folded: ``cos`` and ``sin`` at ``-w``
    span what they span at ``w``), a deterministic quadrature of the
    Gaussian kernel. The map is a function of the column alone: a test on it
    does not hinge on a draw of three frequencies, which can all be low and
    leave a U-shaped dependence to features that are nearly linear (the
    default map of one column of the conditional test and of each variable of
    a causal search).

    Parameters
    ----------
    n_components : int, default=6
        Output dimension (even: ``n_components // 2`` frequencies).

    Attributes
    ----------
    bandwidth_ : float
        The median bandwidth ``h`` (of a fixed subsample of 1000 rows beyond
        that, so the map depends on the data only).
    frequencies_ : ndarray of shape (n_components // 2,)
        ``w_k / h``.
    n_features_in_ : int
        1.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd.conditional._maps import SpectralQuantileMap
    >>> x = np.linspace(-2.0, 2.0, 101)[:, None]
    >>> SpectralQuantileMap(n_components=6).fit_transform(x).shape
    (101, 6)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(self, n_components=6):
        self.n_components = n_components

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X = np.asarray(X, dtype=np.float64)
        self.n_features_in_ = X.shape[1]
        K = self.n_components // 2
        quantiles = norm.ppf(0.5 + 0.5 * (np.arange(K) + 0.5) / K)
        self.bandwidth_ = median_bandwidth(X, random_state=0)
        self.frequencies_ = quantiles / self.bandwidth_
        return self

    def transform(self, X):
        check_is_fitted(self)
        phases = np.asarray(X, dtype=np.float64)[:, :1] * self.frequencies_
        return np.hstack([np.cos(phases), np.sin(phases)]) / np.sqrt(phases.shape[1])


def _default_map(V, n_features, random_state):
    """The default map of x or of y: one numeric column by
    :class:`SpectralQuantileMap`; several by random Fourier features at
    their median bandwidth; a table with text by a TabularSampler."""
    if is_dataframe(V):
        return TabularSampler(n_components=n_features, random_state=random_state).fit(V)
    if not sparse.issparse(V) and np.ndim(V) == 2 and np.shape(V)[1] == 1:
        return SpectralQuantileMap(n_components=n_features).fit(V)
    return RandomFourierSampler(n_components=n_features, random_state=random_state).fit(
        V
    )


def _fit_with_features(pipeline, V):
    """The pipeline fitted on ``V`` and the features of ``V``, from its
    ``fit_transform``: a ColumnTransformer computes them while it fits, and
    every step's ``fit_transform`` is its ``fit`` then ``transform``, so they
    equal ``pipeline.transform(V)`` bit for bit."""
    features = pipeline.fit_transform(V)
    return pipeline, np.asarray(features, dtype=np.float64)


def _default_weight_map(V, n_features, random_state):
    """The default weights of Z: Fourier features of Z standardized, at its
    median bandwidth: of one column at fixed frequencies
    (:class:`SpectralQuantileMap`: random ones can all be low, and the
    weights then miss a covariance whose sign changes with z), of several at
    random ones; a TabularSampler for tables with text. Returns the fitted
    map and the features of ``V`` (None for a table)."""
    if is_dataframe(V):
        fitted = TabularSampler(n_components=n_features, random_state=random_state)
        return fitted.fit(V), None
    if not sparse.issparse(V) and np.shape(V)[1] == 1:
        sampler = SpectralQuantileMap(n_components=n_features)
    else:
        sampler = RandomFourierSampler(
            n_components=n_features, random_state=random_state
        )
    return _fit_with_features(make_pipeline(StandardScaler(), sampler), V)


def _default_z_map(V, n_features, random_state):
    """The default map of Z (a table with text columns: one TabularSampler).

    Z standardized, then ``n_features`` Nystroem features of Gaussian kernels
    (landmarks drawn from the rows of Z: they cover where Z lies, which random
    Fourier features of several columns at small bandwidths do not; at n = 1000
    they halved the regression error of a function of the sum of three
    columns). One column: at its median bandwidth times each of
    :func:`z_scales`' first. Several: half of them on all columns jointly
    (their median bandwidth times the second), half on each column alone (its
    own median times the first: an additive part, for when few columns
    matter). The ridge weighs every block by cross-validation. Returns the
    fitted map and the features of ``V`` where it was fit on all of its rows
    (else None; None for a table).
    """
    if is_dataframe(V):
        fitted = TabularSampler(n_components=n_features, random_state=random_state)
        return fitted.fit(V), None
    rng = check_random_state(random_state)
    n_rows = V.shape[0]
    rows = fit_rows(n_rows, rng)
    V = V[rows]  # what the map learns needs no more rows
    scaler = StandardScaler().fit(V)
    Zs = scaler.transform(V)

    def scaled(name, width, columns, scales):
        bandwidth = median_bandwidth(Zs[:, columns], random_state=rng)
        landmarks = max(2, min(width // len(scales), len(Zs)))
        return [
            (
                f"{name}_{scale:g}",
                NystroemSampler(
                    n_components=landmarks,
                    bandwidth=scale * bandwidth,
                    random_state=_streams.draw_seed(rng),
                ),
                columns,
            )
            for scale in scales
        ]

    columns, joint = z_scales(n_rows)
    d = Zs.shape[1]
    if d == 1:
        blocks = scaled("z0", n_features, [0], columns)
    else:
        blocks = scaled("all", n_features // 2, list(range(d)), joint)
        for j in range(d):
            blocks += scaled(f"z{j}", n_features // 2 // d, [j], columns)
    fitted, features = _fit_with_features(
        make_pipeline(scaler, ColumnTransformer(blocks)), V
    )
    return fitted, features if len(rows) == n_rows else None


def xy_map(V, random_state):
    """The fitted default map of x or of y (``x_transformer="auto"``), for
    the estimator and a causal search alike: see :func:`_default_map`."""
    return _default_map(V, _XY_FEATURES, random_state)


def z_map(Z, n_features, n_rows, random_state, *, features=False):
    """The fitted default map of the conditioning variables Z
    (``z_transformer="auto"``): ``n_features`` features, ``"auto"`` for
    :func:`n_z_features` of ``n_rows`` (the rows of the data: a search
    sizes every conditioning set's map by all its rows). See
    :func:`_default_z_map`. ``features``: return ``(map, F)``, ``F`` the
    map's features of ``Z`` computed while fitting (None where the map was
    fit on a subsample of the rows or on a table)."""
    if n_features == "auto":
        n_features = n_z_features(n_rows)
    fitted = _default_z_map(Z, n_features, random_state)
    return fitted if features else fitted[0]


def weight_map(Z, random_state, *, features=False):
    """The fitted default weights g(z) (``z_weights="auto"``): see
    :func:`_default_weight_map`. ``features`` as in :func:`z_map`."""
    fitted = _default_weight_map(Z, _Z_WEIGHTS, random_state)
    return fitted if features else fitted[0]


def screens(z_screen, n_columns, text):
    """Whether the default z map conditions on the columns of Z that
    :func:`relevant_columns` keeps: when ``z_screen`` asks for it, Z has
    at least two columns and none is text (a table with text is mapped
    whole by one TabularSampler)."""
    return bool(z_screen) and n_columns >= 2 and not text


def fit_rows(n_rows, random_state):
    """The rows (sorted positions) the default z map and the screen are fit
    on: all, or a seeded ``_budgets.Z_FIT_ROWS`` of them."""
    if n_rows <= _budgets.Z_FIT_ROWS:
        return np.arange(n_rows)
    rng = check_random_state(random_state)
    return np.sort(rng.choice(n_rows, _budgets.Z_FIT_ROWS, replace=False))


def dependence_p(P, Q):
    """The p-value of ``m ||C||^2``, ``C`` the cross-covariance of the
    features ``P`` and ``Q`` of ``m`` paired rows (the biased HSIC of
    :func:`~skmmd.statistics.hsic_features` times ``m``), under independence: a
    gamma with the mean ``tr Cp tr Cq`` and variance ``2 ||Cp||^2 ||Cq||^2``
    of its weighted chi-square limit (``Cp``, ``Cq`` the covariances)."""
    m = len(P)
    P, Q = P - P.mean(axis=0), Q - Q.mean(axis=0)
    Cp, Cq = P.T @ P / m, Q.T @ Q / m
    mean = np.trace(Cp) * np.trace(Cq)
    var = 2 * np.sum(Cp**2) * np.sum(Cq**2)
    if not mean > 0:
        return 1.0
    observed = np.sum((P.T @ Q) ** 2) / m
    return float(gamma.sf(observed, mean**2 / var, scale=var / mean))


def _gaussian(V, n_features, bandwidth, rng):
    """Random Fourier features of ``V`` at ``bandwidth`` (None: the median
    bandwidth of ``_budgets.SCREEN_MEDIAN_ROWS`` of its rows)."""
    if bandwidth is None:
        bandwidth = median_bandwidth(
            V, max_samples=_budgets.SCREEN_MEDIAN_ROWS, random_state=rng
        )
    sampler = RandomFourierSampler(
        n_components=n_features, bandwidth=bandwidth, random_state=rng.randint(_SEEDS)
    )
    return sampler.fit(V).transform(V)


def relevant_columns(Z, x, y, targets, random_state):
    """The columns of ``Z`` (an array of the rows of :func:`fit_rows`) the
    test conditions on: those dependent on the rest of the problem ``(x, y,
    the other columns)`` (the most dependent one if none is). A column
    independent of all of it can be left out without changing the hypothesis
    (``p(x, y | z) = p(x, y | z without it)``), and leaving it out spares the
    joint block of the z map a dimension, which the level of a test of an
    interaction beside independent columns needs
    (benchmarks/bench_conditional.py).

    Each column's 20 Gaussian random Fourier features (at its median
    bandwidth; every median of the screen on 300 rows) are tested
    (:func:`dependence_p`) against ``targets`` (the test's features of x and
    of y), 20 such features of ``x`` and of ``y`` (numeric arrays; None for
    tables: the test's 6 may all have low frequencies) and 60 of ``x``,
    ``y`` and the other columns jointly, standardized, at each of 0.5 and 1
    times their median bandwidth (dependence through an interaction, which
    leaves no trace in any column alone). The level is 0.1 up to 300 rows
    and ``0.1 (300 / m)^2`` on ``m`` beyond (0.009 at 1000): an irrelevant
    column stays less often as the bias it brings grows with ``n``, while a
    column that matters gives p-values falling much faster than ``1 / m^2``
    (benchmarks/bench_conditional.py counts the columns kept on its nulls)."""
    rng = check_random_state(random_state)
    level = _Z_SCREEN * min(1.0, _SCREEN_ROWS / len(Z)) ** 2
    margins = [V for V in (x, y) if V is not None]
    rest = StandardScaler().fit_transform(np.hstack([*margins, Z]))
    margins = [_gaussian(V, _SCREEN_FEATURES, None, rng) for V in margins]
    p = np.empty(Z.shape[1])
    for j in range(Z.shape[1]):
        P = _gaussian(Z[:, [j]], _SCREEN_FEATURES, None, rng)
        W = np.delete(rest, rest.shape[1] - Z.shape[1] + j, axis=1)
        bandwidth = median_bandwidth(
            W, max_samples=_budgets.SCREEN_MEDIAN_ROWS, random_state=rng
        )
        joint = [
            _gaussian(W, _JOINT_FEATURES, scale * bandwidth, rng)
            for scale in (0.5, 1.0)
        ]
        p[j] = dependence_p(P, np.hstack([*targets, *margins, *joint]))
    kept = np.flatnonzero(p < level)
    return kept if kept.size else np.array([int(np.argmin(p))])
