"""AggregatedHSICTest: one test of independence over a grid of kernels for x
and for y, every pair on the same pairings."""

from copy import deepcopy
from numbers import Integral

import numpy as np
from sklearn.base import clone

from .._inference import _aggregation, _grids
from .._inference._base import SHARED_CONSTRAINTS, set_calibrated, stopping_rule
from .._inference._calibration import n_max
from .._inference._corrections import CORRECTIONS
from .._inference._variables import numeric_table
from .._tables._labels import is_dataframe
from .._utils import _budgets
from .._utils._compat import Interval, StrOptions
from ..statistics._hsic import HSICParts, feature_gram
from ._base import _BaseHSICTest, _constant, _fitted
from ._observations import (
    _pair_stream,
    block_shift,
    effect_sizes,
    observations,
    serial_correction,
)
from ._resampled import resampled_hsic
from ._results import HSICTestResult

# The Grams of all kernels together hold at most _budgets.GRAM_ENTRIES:
# ``resample_unit="auto"`` makes fewer, larger units when they would not fit.
# Units never made coarser than this many for the grid's pairing cost alone
# (HSICTest's own count at B = 999): small data keep every pair.
_FINE_UNITS = 1024


class AggregatedHSICTest(_BaseHSICTest):
    """Kernel test of independence aggregating a grid of kernels, linear in n.

    The median bandwidth can be blind to dependence at another scale (an
    oscillating ``y = sin(w x)``: each variable's median distance spans
    several periods). This test maps x with a grid of Gaussian bandwidths
    and y with another, computes the HSIC of every pair of an x kernel and a
    y kernel on the same random pairings of the y units with the x units (one
    pass over their Grams per pairing, in the calibration loop of
    :class:`HSICTest`), and combines them into one statistic whose
    permutation p-value is valid in finite samples: HSICAgg's smallest
    per-kernel p-value with its permutation-calibrated correction (Schrab et
    al. 2022), or MMD-FUSE's smooth maximum (Biggs et al. 2023), the rules of
    :class:`AggregatedMMDTest`. Rows are mapped and summed into resampling
    units as in :class:`HSICTest`: ``O(n D)`` for the features of all
    kernels plus ``O(B G^2 (n_x + n_y))`` for ``B`` pairings of ``G`` units
    and ``n_x x n_y`` pairs of kernels, whatever ``n``.

    Parameters
    ----------
    x_transformers : "auto" or list of objects with ``fit`` and \
            ``transform``, default="auto"
        Feature maps of X, one per kernel; each is cloned and fit on X (or
        used as given when every map of both lists is fitted).
        ``"auto"``: :class:`RandomFourierSampler` maps of the Gaussian kernel
        at ``n_bandwidths`` bandwidths from :func:`skmmd.kernels.bandwidth_grid`
        on X (numeric X).
    y_transformers : "auto" or list of objects with ``fit`` and \
            ``transform``, default="auto"
        Feature maps of y, likewise.
    method : {"hsicagg", "fuse"}, default="hsicagg"
        ``"hsicagg"``: the smallest per-kernel permutation p-value, calibrated
        on the same pairings (each pair of kernels tested at its own quantile,
        the level corrected for their number, as in HSICAgg). ``"fuse"``:
        log-mean-exp of the pairs' statistics standardized over the pairings
        (a smooth maximum, as in MMD-FUSE).
    weights : {"auto", "uniform", "centred", "decreasing", "increasing"} or \
            array-like of shape (n_kernels,), default="auto"
        Prior weight of each pair of kernels, as in
        :class:`AggregatedMMDTest`: with ``"hsicagg"`` a pair of weight ``w``
        (scaled to mean 1) is tested at ``w`` times the common level; with
        ``"fuse"`` it weighs its term. A shape applies MMDAgg's weights to
        each variable's grid (``"auto"`` maps only; a pair's weight is the
        product of its two kernels'): ``"centred"`` favours the middle of the
        grids (near the median distance), ``"decreasing"`` small bandwidths.
        ``"auto"``: ``"centred"`` for ``"auto"`` maps (where the median was
        right it keeps the single test's power: ``bench_independence.py``),
        else ``"uniform"``; :class:`AggregatedMMDTest` keeps MMDAgg's
        ``"uniform"`` default, whose grid spans one kernel's bandwidths, not
        the product of two. An array gives one positive weight per pair, in
        the order of ``kernels_``. Any fixed weights keep the p-value valid.
    n_bandwidths : int, default=5
        Bandwidths per variable with ``"auto"`` (``n_bandwidths^2`` pairs of
        kernels). Half :class:`AggregatedMMDTest`'s 10: the grid here is the
        product of two variables' grids, so 5 give 25 pairs, about as many
        kernels as its 2 x 10.
    n_components : int, default=256
        Features per kernel with ``"auto"``. Half :class:`AggregatedMMDTest`'s
        512: each pair of kernels has two maps, one of x and one of y.
    statistic : {"biased", "unbiased"}, default="biased"
        The HSIC estimator of every pair of kernels, as in :class:`HSICTest`
        (of the HSIC of the rows at any resampling unit).
    n_resamples : int or "auto", default=999
        Number of random pairings ``B``, shared by every pair of kernels.
        ``"auto"``: drawn in batches, stopped as soon as the decision at
        ``alpha`` is known, at most 999 (a sequential Monte Carlo test, see
        :ref:`sequential`); the number drawn is ``n_resamples_used_``.
    alpha : float, default=0.05
        Level of the test, in (0, 1).
    resample_unit : "auto" or int, default="auto"
        Rows per resampling unit, as in :class:`HSICTest` (``"auto"`` also
        keeps the Grams of all kernels within about 512 MB).
    block_size : None, "auto" or int, default=None
        Pairs in time order: shift y against x circularly by at least this
        many rows, the same shifts for every pair of kernels (``"auto"``: the
        longest any map's features ask for; :ref:`time_ordered`).
        ``None``: exchangeable pairs.
    batch : int, default=None
        Pairings per batch (``None``: bounded to about 2^23 entries); the
        results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Controls the bandwidth-grid subsample, the random features, the units
        and the pairings. Pass an int for reproducible output across multiple
        function calls.
    n_jobs : int, default=None
        Threads computing batches of pairings; the results do not depend on
        it.
    verbose : int, default=0
        Progress messages when positive.
    correction : {"fwer", "fdr", "fdr_by", "none"}, default="fwer"
        How :meth:`explain` adjusts the columns' p-values, as in
        :class:`HSICTest` (see :ref:`explain`).
    decision : {"combined", "table"}, default="combined"
        What ``p_value_`` and ``reject_`` decide once the column report of
        :func:`~skmmd.hsic_test` with ``explain_columns`` is attached, as in
        :class:`HSICTest`: the table and its columns together
        (``"combined"``, a union bound; :ref:`decision`), or the aggregated
        statistic alone (``"table"``).

    Attributes
    ----------
    statistic_ : float
        The aggregated statistic (larger is more evidence): ``-log`` of the
        smallest per-kernel p-value (``"hsicagg"``), or the fused statistic.
    p_value_ : float
        ``#{b : S_b >= S} / (B + 1)`` over the aggregated statistic of the
        observed pairing and the ``B`` random ones.
        With ``n_resamples="auto"``, the sequential p-value: at least the
        fixed test's (the same decision) when all 999 were drawn, above
        ``alpha`` and coarser when the test stopped to accept, at most
        ``alpha`` when it stopped to reject; valid (see :ref:`sequential`).
    null_distribution_ : ndarray of shape (n_resamples,)
        The aggregated statistic on each random pairing.
    n_resamples_used_ : int
        Resamples drawn: ``n_resamples``, or with ``"auto"`` where the test
        stopped (the rows of ``null_distribution_``).
    reject_ : bool
        ``p_value_ <= alpha``.
    threshold_ : float or None
        The upper ``alpha`` quantile of ``null_distribution_``; None under
        the combined decision of :func:`~skmmd.hsic_test` with
        ``explain_columns=True`` (as for :class:`HSICTest`: the table's own
        are then ``table_p_value_`` and ``table_threshold_``).
    statistics_ : ndarray of shape (n_kernels,)
        Each pair of kernels' HSIC of the observed pairs (x kernel major:
        entry ``a * n_y + c`` pairs x kernel ``a`` with y kernel ``c``).
    p_values_ : ndarray of shape (n_kernels,)
        Each pair's own permutation p-value (not corrected for multiplicity:
        only ``p_value_`` tests H0 over all pairs).
    null_distributions_ : ndarray of shape (n_resamples, n_kernels)
        Each pair's HSIC on the shared pairings.
    result_ : HSICTestResult
        ``statistic_``, ``p_value_`` and ``null_distribution_``, with every
        pair's unbiased HSIC and its standard error (arrays of
        ``n_kernels``), as in :class:`HSICTest`.
    x_transformers_, y_transformers_ : list of fitted transformers
        The fitted maps of each variable.
    kernels_ : list of str
        A description of each pair, e.g. ``"x: gaussian(bandwidth=0.3), y:
        gaussian(bandwidth=1.2)"``.
    weights_ : ndarray of shape (n_kernels,)
        The pairs' weights, summing to 1.
    x_bandwidths_, y_bandwidths_ : ndarray or None
        The grids of ``"auto"`` maps (None for given maps).
    resample_unit_ : int
        Rows per unit.
    block_size_ : int or None
        With ``block_size``: the least shift of y against x, in rows.
    n_samples_ : int
        Number of pairs.
    n_train_ : int
        Pairs the maps were fit on and that are not tested (``partial_fit``'s
        first chunk for unfitted maps; 0 after ``fit``).
    n_features_in_ : int
        Number of columns of X.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the columns of X, when it has string column names.

    See Also
    --------
    HSICTest : One kernel per variable.
    AggregatedMMDTest : The two-sample test aggregating kernels.
    hsic_test : ``hsic_test(x, y, aggregate=True)`` fits this test.

    Notes
    -----
    With ``T`` the ``(B + 1) x K`` matrix of the ``K`` pairs' HSIC on the
    observed pairing and the ``B`` random ones, each aggregation is a
    function of ``T`` symmetric in its rows; under H0 the rows are
    exchangeable, so the rank of the observed aggregated statistic is
    uniform and the p-value is valid in finite samples. HSICAgg calibrates
    its level correction on a second set of permutations; ranking within one
    set gives the same guarantee. Unlike HSICAgg's quadratic statistics,
    each HSIC is that of random features summed into at most a few thousand
    units, so the cost is linear in ``n``.

    References
    ----------
    .. [1] A. Schrab, I. Kim, B. Guedj and A. Gretton. Efficient aggregated
       kernel tests using incomplete U-statistics. NeurIPS 2022.
    .. [2] F. Biggs, A. Schrab and A. Gretton. MMD-FUSE: learning and combining
       kernels for two-sample testing without data splitting. NeurIPS 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import AggregatedHSICTest
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-2, 2, size=(400, 1))
    >>> y = np.sin(8 * x) + 0.5 * rng.normal(size=(400, 1))  # fast oscillation
    >>> test = AggregatedHSICTest(n_resamples=199, random_state=0).fit(x, y)
    >>> bool(test.reject_), len(test.statistics_)
    (True, 25)
    """

    _parameter_constraints: dict = {
        "x_transformers": [StrOptions({"auto"}), list],
        "y_transformers": [StrOptions({"auto"}), list],
        "method": [StrOptions({"hsicagg", "fuse"})],
        "weights": [
            StrOptions({"auto", *_aggregation.WEIGHT_SHAPES}),
            "array-like",
        ],
        "n_bandwidths": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "correction": [StrOptions(set(CORRECTIONS))],
        "decision": [StrOptions({"combined", "table"})],
        **SHARED_CONSTRAINTS,
    }

    def __init__(
        self,
        x_transformers="auto",
        y_transformers="auto",
        *,
        method="hsicagg",
        weights="auto",
        n_bandwidths=5,
        n_components=256,
        statistic="biased",
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        block_size=None,
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        correction="fwer",
        decision="combined",
    ):
        self.x_transformers = x_transformers
        self.y_transformers = y_transformers
        self.method = method
        self.weights = weights
        self.n_bandwidths = n_bandwidths
        self.n_components = n_components
        self.statistic = statistic
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.block_size = block_size
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.correction = correction
        self.decision = decision

    _RESULTS = (
        *_BaseHSICTest._RESULTS,
        "statistics_",
        "p_values_",
        "null_distributions_",
    )

    def _maps(self, name):
        """The maps of variable ``name`` given as a list, validated."""
        maps = getattr(self, f"{name}_transformers")
        if isinstance(maps, str):
            return maps
        if not maps or not all(
            hasattr(t, "fit") and hasattr(t, "transform") for t in maps
        ):
            raise ValueError(
                f"{name}_transformers must be 'auto' or a non-empty list of "
                f"objects with fit and transform; got {maps!r}."
            )
        return maps

    def _map_of(self, name):
        maps = self._maps(name)
        # "auto" is checked when its grid is drawn (numbers only).
        return maps if isinstance(maps, str) else maps[0]

    def _prefit(self):
        lists = [self._maps(name) for name in ("x", "y")]
        return all(
            not isinstance(maps, str) and all(map(_fitted, maps)) for maps in lists
        )

    def _resolve_weights(self, n_x, n_y):
        """The pairs' weights, validated and scaled to sum 1."""
        grids = all(isinstance(self._maps(v), str) for v in ("x", "y"))
        weights = self.weights
        if isinstance(weights, str) and weights == "auto":
            weights = "centred" if grids else "uniform"
        return _aggregation.resolved_weights(
            weights,
            n_x * n_y,
            self.n_bandwidths,
            (lambda grid: np.outer(grid, grid).ravel()) if grids else None,
            "pair of kernels",
            "with lists of maps give one weight per pair.",
        )

    def _grid(self, V, name, rng):
        """``"auto"``: Gaussian random Fourier maps over a bandwidth grid of V."""
        if is_dataframe(V):
            if not numeric_table(V):
                raise TypeError(
                    f"{name.upper() if name == 'x' else name} has non-numeric "
                    f"columns and {name}_transformers='auto' maps numbers with "
                    "Gaussian kernels: encode them, or give lists of maps."
                )
            V = V.to_numpy(dtype=np.float64)
        maps, bandwidths = _grids.bandwidth_maps(
            V, self.n_bandwidths, self.n_components, rng
        )
        names = [f"{name}: gaussian(bandwidth={b:.4g})" for b in bandwidths]
        return maps, names, bandwidths

    def _start(self, engine, pairs, seed, rng, fit_rows=None):
        """Fit every map on ``fit_rows`` (None: copies of the given, fitted
        maps) and start the stream."""
        fitted, names = {}, {}
        for name, V in zip(("x", "y"), fit_rows or (None, None)):
            maps = self._maps(name)
            bandwidths = None
            if isinstance(maps, str):
                maps, names[name], bandwidths = self._grid(V, name, rng)
            else:
                names[name] = [f"{name}: {t!r}" for t in maps]
            setattr(self, f"{name}_bandwidths_", bandwidths)
            if fit_rows is None:
                fitted[name] = [deepcopy(t) for t in maps]
            else:
                fitted[name] = [clone(t).fit(V) for t in maps]
        self.x_transformers_, self.y_transformers_ = fitted["x"], fitted["y"]
        self.kernels_ = [f"{a}, {c}" for a in names["x"] for c in names["y"]]
        self.weights_ = self._resolve_weights(len(names["x"]), len(names["y"]))
        unit = 1 if self.resample_unit == "auto" else self.resample_unit
        self._stream = _pair_stream(
            engine,
            pairs,
            fitted["x"],
            fitted["y"],
            unit,
            seed,
            ordered=self.block_size is not None,
        )

    def _unit(self, n_rows):
        """``"auto"``: as :class:`HSICTest`, then, above ``_FINE_UNITS`` units,
        coarser until the pairings of the grid, each costing about
        ``(n_x + n_y) / 2`` pairings of one pair of kernels, fit the pairing
        budget (nondecreasing in ``n_rows``, as a stream needs)."""
        unit = super()._unit(n_rows)
        if self.resample_unit != "auto":
            return unit
        maps = len(self.x_transformers_) + len(self.y_transformers_)
        cost = n_max(self.n_resamples) * maps / 2

        def fits(unit):
            units = n_rows // unit
            return units <= _FINE_UNITS or cost * units**2 <= _budgets.PAIRING_ENTRIES

        return _budgets.smallest_unit(fits, start=unit)

    def _report_maps(self):
        """``(x maps given, fitted y map)`` of the column report: the middle
        of the y grid, the map the order check reads."""
        y_maps = self.y_transformers_
        return self.x_transformers, y_maps[len(y_maps) // 2]

    def _check_maps(self):
        # The middle of each grid (the median heuristic's bandwidth).
        n_x, n_y = len(self.x_transformers_), len(self.y_transformers_)
        return n_x // 2, n_x + n_y // 2

    def _max_units(self):
        n_grams = len(self.x_transformers_) + len(self.y_transformers_)
        return int(np.sqrt(_budgets.GRAM_ENTRIES / n_grams))

    def _calibrate(self):
        self._stale = False
        stream = self._stream
        unit = stream.state.unit
        obs = observations(stream.sums(), unit)
        n_x = len(self.x_transformers_)
        if obs[0].shape[0] < _budgets.MIN_UNITS:
            raise ValueError(
                f"AggregatedHSICTest needs at least {_budgets.MIN_UNITS} complete "
                f"units of resample_unit={unit} pairs; got {obs[0].shape[0]} from "
                f"{stream.n_rows[0]} pairs so far."
            )
        for name, V in (("X", np.hstack(obs[:n_x])), ("y", np.hstack(obs[n_x:]))):
            if np.all(np.abs(V - V[:1]) <= 1e-12 * np.abs(V).max()):
                raise _constant(name)
        grams = [feature_gram(V) for V in obs]
        parts = HSICParts(grams[:n_x], grams[n_x:], self.statistic == "unbiased")
        if self.verbose:
            print(
                f"AggregatedHSICTest: n={stream.n_rows[0]}, {parts.G} units of "
                f"{unit}, {parts.n_kernels} pairs of kernels, "
                f"{self.n_resamples} pairings"
            )
        # An aggregated statistic depends on every resample drawn (see
        # AggregatedRule).
        rule = stopping_rule(self, aggregated=True)
        shift, self.block_size_ = block_shift(self, obs, unit)
        observed, null, _ = resampled_hsic(
            parts,
            n_resamples=self.n_resamples,
            batch=self.batch,
            seed=stream.seed,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
            stopping=rule,
            p_of=_aggregation.p_value_of(self.method, self.weights_),
            shift=shift,
        )
        statistic, null, p_value = _aggregation.aggregated_results(self, observed, null)
        set_calibrated(self, statistic, null, p_value, rule)
        self.resample_unit_ = unit
        self.n_samples_ = stream.n_rows[0]
        hsic, se = effect_sizes(
            parts,
            obs[:n_x],
            obs[n_x:],
            self.x_transformers_,
            self.y_transformers_,
            serial_correction(self),
        )
        self.result_ = HSICTestResult(
            statistic=self.statistic_,
            pvalue=self.p_value_,
            null_distribution=self.null_distribution_,
            alpha=self.alpha,
            hsic=hsic,
            standard_error=se,
            n_pairs=self.n_samples_,
        )
