"""Rows in time order: blocks of consecutive rows as the resampling units of
every test, the block length of ``block_size="auto"``, the correction of the
block null for the dependence between neighbouring blocks, and the check
that warns when rows look ordered (``specs/serial_dependence.md``).

With ``block_size`` the pipeline sums the features of consecutive rows into
units (the stream's ``ordered`` units) instead of random groups, and every
family resamples blocks of those units: the two-sample tests permute blocks
between the samples, the independence tests shift y's units against x's by
at least a block, the goodness-of-fit tests draw one multiplier per block.
Everything the rule needs is read from the unit sums in time order: their
autocovariances (traced over the features, and along the units' leading
principal directions) give the long-run variance and the bias of a block
variance by the flat-top lag window of Politis & White (2004).
"""

import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .._utils import _budgets, _streams
from .._utils._compat import Interval, StrOptions

# The parameter every test has.
BLOCK_SIZE_CONSTRAINT = [
    None,
    StrOptions({"auto"}),
    Interval(Integral, 1, None, closed="left"),
]


def flat_top(t):
    """Politis & Romano's trapezoid lag window: 1 up to ``|t| = 1/2``, then
    down to 0 at ``|t| = 1``. Lags in the flat part are kept whole, so the
    long-run variance it estimates has a bias of smaller order than any
    block variance's."""
    t = np.abs(t)
    return np.where(t <= 0.5, 1.0, np.clip(2.0 * (1.0 - t), 0.0, 1.0))


def autocovariances(series, edges=None):
    """Autocovariances ``gamma(0), ..., gamma(K // 2)`` of series in time
    order, each centered by its own mean and pooled (a two-sample test's X
    and Y never meet at a lag), traced over each group of columns.

    ``series``: arrays (K_s, p), the shortest of ``K`` rows; ``edges``: the
    first column of each group (None: all columns one group). Returns
    (K // 2 + 1, n_groups): each group's sums of lagged products over all
    series, divided by the number of terms at lag 0 (the biased estimator,
    positive definite), computed by FFT in ``O(K log K p)``.
    """
    series = [s for s in series if s.shape[0]]
    max_lag = max(1, min(s.shape[0] for s in series) // 2)
    edges = np.array([0]) if edges is None else np.asarray(edges)
    out, count = np.zeros((max_lag + 1, edges.size)), 0
    for values in series:
        K = values.shape[0]
        centered = values - values.mean(axis=0)
        size = 1 << int(2 * K - 1).bit_length()
        spectrum = np.fft.rfft(centered, n=size, axis=0)
        power = np.add.reduceat(spectrum.real**2 + spectrum.imag**2, edges, axis=1)
        lagged = np.fft.irfft(power, n=size, axis=0)
        out += lagged[: max_lag + 1]
        count += K
    return out / count


def correlated_lags(rho, n_terms):
    """Politis & White's (2004) ``m``: the smallest lag after which ``K_N =
    max(5, sqrt(log10 N))`` autocorrelations in a row are all within ``2
    sqrt(log10 N / N)`` of 0 (0 when the first ones already are), for each
    column of ``rho`` (lags 1.. in rows)."""
    n_terms = max(n_terms, 10)
    K_N = max(5, int(np.sqrt(np.log10(n_terms))))
    small = np.abs(rho) < 2.0 * np.sqrt(np.log10(n_terms) / n_terms)
    lags = rho.shape[0]
    m = np.full(rho.shape[1], lags, dtype=np.int64)
    for j in range(rho.shape[1]):
        run = 0
        for k in range(lags):
            run = run + 1 if small[k, j] else 0
            if run == K_N:
                m[j] = k + 1 - K_N
                break
    return m


class Dependence:
    """The dependence of series of unit sums in time order, per column group
    (:func:`autocovariances`): each group's lag window of ``2 m`` lags
    (flat-top, ``m`` by :func:`correlated_lags`), its long-run variance
    ``lrv = sum_k w(k / M) gamma(k)`` and ``bias = sum_k w(k / M) |k|
    gamma(k)``: blocks of ``L`` units estimate about ``lrv - bias / L``
    (Politis & White 2004)."""

    def __init__(self, series, edges=None):
        self.n_units = min(s.shape[0] for s in series if s.shape[0])
        self.gamma = autocovariances(series, edges)
        gamma0 = np.maximum(self.gamma[0], np.finfo(float).tiny)
        n_terms = sum(s.shape[0] for s in series)
        self.m = correlated_lags(self.gamma[1:] / gamma0, n_terms)
        self.window = np.minimum(2 * self.m, self.gamma.shape[0] - 1)
        self.lrv, self.bias = self._window_sums(self.window)

    def _window_sums(self, window):
        """``(lrv, bias)`` with flat-top windows of ``window`` lags."""
        lags = np.arange(1, self.gamma.shape[0])[:, None]
        weights = flat_top(lags / np.maximum(window, 1)) * (lags <= window)
        terms = 2.0 * weights * self.gamma[1:]
        lrv = self.gamma[0] + terms.sum(axis=0)
        # A long-run variance is positive: a window's negative estimate
        # (a strongly alternating series) falls back on the variance.
        lrv = np.where(lrv > 0, lrv, self.gamma[0])
        return lrv, np.maximum((terms * lags).sum(axis=0), 0.0)

    def block_variance(self, units, window=None):
        """What blocks of ``units`` units estimate, per group: ``sum_{|k| <
        L} (1 - |k| / L) gamma(k)``, over the lags within ``window`` (per
        group; None: all)."""
        lags = np.arange(1, min(units, self.gamma.shape[0]))[:, None]
        terms = 2.0 * (1.0 - lags / units) * self.gamma[lags.ravel()]
        if window is not None:
            terms = terms * (lags <= window)
        return self.gamma[0] + terms.sum(axis=0)

    def units_for(self, bias):
        """Units per block, per group: enough that the block variance is
        within a relative ``bias`` of the long-run variance, and at least
        the length of least squared error of the circular block bootstrap's
        variance (Patton, Politis & White 2009: ``(2 G^2 / D)^(1/3)
        N^(1/3)``, ``D = 4 g^2 / 3``)."""
        relative = self.bias / np.maximum(self.lrv, np.finfo(float).tiny)
        least_error = (1.5 * relative**2 * self.n_units) ** (1.0 / 3.0)
        return np.maximum(np.ceil(np.maximum(relative / bias, least_error)), 1)

    def scale(self, units):
        """Per group, the factor of a null of blocks of ``units`` units
        that restores the long-run variance: ``lrv / block variance``, both
        from the autocovariances within the group's lag window (beyond it
        they are noise, and the block's shortfall is the weight it gives
        the lags within), never below 1, so the correction only widens the
        null; 1 for a group with no correlated lag."""
        block = self.block_variance(units, self.window)
        block = np.maximum(block, np.finfo(float).tiny)
        return np.where(self.m > 0, np.maximum(self.lrv / block, 1.0), 1.0)


def long_run_factor(values):
    """Per column of ``values`` (units in time order down the rows): the
    long-run variance over the variance, never below 1; 1 for a column with
    no correlated lag. A standard error computed as if the units were
    exchangeable grows by its square root (:class:`Dependence`'s window)."""
    dependence = Dependence([values], edges=np.arange(values.shape[1]))
    gamma0 = np.maximum(dependence.gamma[0], np.finfo(float).tiny)
    factor = np.maximum(dependence.lrv / gamma0, 1.0)
    return np.where(dependence.m > 0, factor, 1.0)


def leading_directions(blocks, k, iterations=4):
    """The ``k`` leading right singular vectors (columns) of the rows of
    ``blocks`` stacked, by a randomized range finder with power iterations
    (Halko, Martinsson & Tropp 2011) from a fixed start, so that the same
    sums give the same directions; ``O(K D k)`` where a full SVD of the unit
    sums costs ``O(K D min(K, D))``."""
    width = blocks[0].shape[1]
    rows = sum(b.shape[0] for b in blocks)
    k = min(k, rows, width)
    if k == 0:
        return np.zeros((width, 0))
    rng = np.random.default_rng(0)
    Q = sum(b.T @ rng.normal(size=(b.shape[0], min(k + 5, width))) for b in blocks)
    Q = np.linalg.qr(Q)[0]
    for _ in range(iterations):
        Q = np.linalg.qr(sum(b.T @ (b @ Q) for b in blocks))[0]
    small = np.vstack([b @ Q for b in blocks])
    _, _, vt = np.linalg.svd(small, full_matrices=False)
    return Q @ vt[:k].T


def map_dependence(series):
    """The :class:`Dependence` of one feature map's unit sums (a list of
    (K_s, D) series): traced over the features and along the
    ``_budgets.BLOCK_DIRECTIONS`` leading principal directions of the
    units (centered in each series), one group each, so that a few
    directions of strong dependence are not drowned in the trace. Wide
    features are read through a fixed Gaussian projection to
    ``_budgets.ORDER_CHECK_WIDTH`` columns (:func:`projection`), which keeps
    the traced autocovariances in expectation (and the leading directions'
    share of them) at a fraction of the cost."""
    series = [s for s in series if s.shape[0]]
    R = projection(series[0].shape[1])
    if R is not None:
        series = [s @ R for s in series]
    centered = [s - s.mean(axis=0) for s in series]
    axes = leading_directions(centered, _budgets.BLOCK_DIRECTIONS)
    width = series[0].shape[1]
    edges = np.concatenate([[0], width + np.arange(axes.shape[1])])
    return Dependence([np.hstack([s, s @ axes]) for s in series], edges)


def projection(width):
    """A fixed Gaussian projection of ``width`` features to
    ``_budgets.ORDER_CHECK_WIDTH`` columns (scaled so that it keeps traces
    in expectation), or None for features no wider."""
    if width <= _budgets.ORDER_CHECK_WIDTH:
        return None
    rng = np.random.default_rng(0)
    R = rng.normal(size=(width, _budgets.ORDER_CHECK_WIDTH))
    return R / np.sqrt(_budgets.ORDER_CHECK_WIDTH)


def column_dependence(series, widths):
    """The :class:`Dependence` of each column group of a report's map, of
    ``widths`` features each, side by side."""
    return Dependence(series, np.cumsum([0, *widths[:-1]]))


class BlockChoice:
    """Units per block and the null's corrections of one test.

    Parameters
    ----------
    dependences : list of Dependence
        Of each feature map of the test (:func:`map_dependence`), or of a
        report's columns (:func:`column_dependence`): the blocks serve them
        all.
    block_size : "auto" or int
        Rows per block, or ``"auto"``: the most units any group's rule
        (:meth:`Dependence.units_for` at ``_budgets.BLOCK_BIAS``) asks for,
        at most a ``1 / _budgets.MIN_BLOCKS`` share of the shortest series.
    unit : int
        Rows per unit.
    least : int, default=1
        The fewest units per block: those the test's resampling budget
        allows (longer blocks are as valid, and cost less).

    Attributes
    ----------
    units, rows : int
        Units and rows per block.
    scales : list of ndarray
        Each dependence's corrections of its groups' nulls (at least 1).
    capped : bool
        Whether ``"auto"`` wanted longer blocks than the fewest blocks
        allow (then the null is coarse and leans on its correction).
    """

    def __init__(self, dependences, block_size, unit, least=1):
        shortest = min(d.n_units for d in dependences)
        most = max(1, shortest // _budgets.MIN_BLOCKS)
        if block_size == "auto":
            wanted = max(
                int(d.units_for(_budgets.BLOCK_BIAS).max()) for d in dependences
            )
            self.capped = wanted > most
            self.units = max(min(wanted, most), least)
        else:
            self.capped = False
            self.units = max(1, -(-int(block_size) // unit), least)
        self.rows = self.units * unit
        self.scales = [d.scale(self.units) for d in dependences]

    def coarsen(self, sums):
        """``(blocks, scales)``: each map's unit sums merged into blocks
        (:meth:`FeatureSums.coarsened`) and the correction of its null, the
        largest over its groups."""
        blocks = [s.coarsened(self.units) for s in sums]
        return blocks, [float(s.max()) for s in self.scales]


def choose(block_size, series, unit, least=1):
    """The :class:`BlockChoice` of a test whose feature maps have the unit
    sums ``series`` (for each map, a list of each sample's unit sums in time
    order), made of units of ``unit`` rows, at least ``least`` units per
    block; warns when ``"auto"`` is capped by the fewest blocks."""
    dependences = [map_dependence(s) for s in series]
    choice = BlockChoice(dependences, block_size, unit, least)
    if choice.capped:
        warnings.warn(
            f"block_size='auto': the rows depend on each other over longer "
            f"stretches than blocks of {choice.rows} rows, the longest that "
            f"leave {_budgets.MIN_BLOCKS} blocks in each sample; the null is "
            "coarse and its correction for the dependence large, so the p-value "
            "is approximate. More rows (or thinned rows) give a sharper test.",
            UserWarning,
            stacklevel=4,
        )
    return choice


def shift_pairings(rng, n_resamples, n_units, shift):
    """Pairings of the y units with the x units by circular shifts: ``n_resamples``
    offsets drawn uniformly from ``shift .. n_units - shift``, each pairing x
    unit ``i`` with y unit ``(i + offset) mod n_units``.

    A shift keeps each variable's own dependence between neighbouring rows
    (a block permutation would break it at every seam) and, by at least
    ``shift`` units, moves y's rows away from the x rows they depend on
    under the alternative (Chwialkowski & Gretton 2014).
    """
    if n_units - 2 * shift < 0:
        raise ValueError(
            f"block_size leaves no shift of y against x: blocks of {shift} units "
            f"and {n_units} units in all; give a smaller block_size (at most "
            f"{n_units // 2} units)."
        )
    offsets = rng.integers(shift, n_units - shift + 1, size=n_resamples)
    return (np.arange(n_units)[None, :] + offsets[:, None]) % n_units


class SerialDependenceWarning(UserWarning):
    """Warning that rows tested as exchangeable look serially dependent.

    A test with ``block_size=None`` checks the features of the first rows of
    each sample, in their order: when neighbouring rows are correlated
    enough to make its null too narrow (its p-value too small), it warns
    with the estimated factor and names ``block_size="auto"`` (see
    :ref:`time_ordered`).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from scipy import signal
    >>> import skmmd
    >>> rng = np.random.default_rng(0)
    >>> rows = signal.lfilter([1.0], [1.0, -0.8], rng.normal(size=(1000, 2)), axis=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = skmmd.MMDTest(n_resamples=19).fit(rows[:500], rows[500:])
    >>> any(issubclass(w.category, skmmd.SerialDependenceWarning) for w in caught)
    True
    """


def check_features(Z, seed):
    """Features of a check as a dense float64 array of at most
    ``_budgets.ORDER_CHECK_WIDTH`` columns: a seeded Gaussian projection of
    wider (or sparse) ones (:func:`check_projection`), whose traced
    autocovariances it keeps in expectation."""
    width = Z.shape[1]
    if width <= _budgets.ORDER_CHECK_WIDTH and not sp.issparse(Z):
        return np.asarray(Z, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(Z @ check_projection(width, seed), dtype=np.float64)


def check_projection(width, seed):
    """The ``(width, _budgets.ORDER_CHECK_WIDTH)`` seeded Gaussian projection
    (scaled by ``1 / sqrt(ORDER_CHECK_WIDTH)``) of a check's wider features."""
    rng = _streams.generator(seed, _streams.ORDER_CHECK)
    R = rng.normal(size=(width, _budgets.ORDER_CHECK_WIDTH))
    return R / np.sqrt(R.shape[1])


def check_columns(draws, seed):
    """The columns a check reads of a map whose columns come from
    independent draws (``draws``: each column's draw, a sampler's
    ``column_draws()``): every column of a seeded sample of
    ``_budgets.ORDER_CHECK_DRAWS`` draws, fewer where their columns would
    be more than ``_budgets.ORDER_CHECK_WIDTH`` (at least one draw). Their
    features are those of the same map with fewer draws, whose traced
    autocovariances estimate the whole map's up to a factor, which the
    inflation's ratio does not see."""
    draws = np.asarray(draws)
    labels = np.unique(draws)
    fit = _budgets.ORDER_CHECK_WIDTH * labels.size // max(draws.size, 1)
    k = max(1, min(_budgets.ORDER_CHECK_DRAWS, fit))
    rng = _streams.generator(seed, _streams.ORDER_CHECK)
    chosen = rng.choice(labels, size=min(k, labels.size), replace=False)
    return np.flatnonzero(np.isin(draws, chosen))


def inflation(samples, seed, paired=False):
    """How much wider the null of a statistic of these rows' features is
    than the one exchangeable rows give: the traced long-run variance of
    each sample's features (its first rows, in order) over their variance.
    ``paired``: the two variables of an independence test, whose
    cross-covariance's spread grows by ``1 + 2 sum_k w_k rho_x(k) rho_y(k)``
    for each pair of a direction of x's features and one of y's (traced, or
    leading: the null's tail is the leading directions'), the largest of
    them. 1 when no lag is correlated beyond chance."""
    features = [check_features(Z, seed) for Z in samples]
    if not paired:
        dependence = Dependence(features)
        return float(dependence.lrv[0] / dependence.gamma[0, 0])
    x, y = (map_dependence([Z]) for Z in features)
    largest = 1.0
    for a in np.flatnonzero(x.m > 0):
        for b in np.flatnonzero(y.m > 0):
            window = int(max(x.window[a], y.window[b]))
            lags = np.arange(1, window + 1)
            rho_x = x.gamma[lags, a] / x.gamma[0, a]
            rho_y = y.gamma[lags, b] / y.gamma[0, b]
            factor = 1.0 + 2.0 * np.sum(flat_top(lags / window) * rho_x * rho_y)
            largest = max(largest, float(factor))
    return largest


def check_order(samples, seed, paired=False):
    """Warn (:class:`SerialDependenceWarning`) when the :func:`inflation` of
    a test's null by the order of its rows is at least
    ``_budgets.ORDER_INFLATION``; the inflation, or None for too few rows."""
    if min(Z.shape[0] for Z in samples) < _budgets.ORDER_CHECK_MIN:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        factor = inflation(samples, seed, paired)
    if not np.isfinite(factor):  # the pipeline names the rows at fault
        return None
    if factor >= _budgets.ORDER_INFLATION:
        warnings.warn(
            "The rows look serially dependent (in time order): the features of "
            f"neighbouring rows are correlated, which makes this test's null "
            f"about {factor:.1f} times too narrow and its p-value too small. If "
            "the rows come in time order (a stream, a sensor, an MCMC chain), "
            "pass block_size='auto' (--block-size auto on the command line) to "
            "resample blocks of consecutive rows. If "
            "they were only sorted or grouped (by class, by a column, as "
            "GaussianMixture.sample returns them), this test's result does not "
            "depend on their order: shuffle them to silence this warning.",
            SerialDependenceWarning,
            stacklevel=4,
        )
    return factor
