"""HSICTest: a test of independence of two variables at linear cost."""

from copy import deepcopy

import numpy as np
from sklearn.utils import check_array

from .._inference import _calibration
from .._inference._base import (
    SHARED_CONSTRAINTS,
    loop_options,
    set_calibrated,
    stopping_rule,
)
from .._inference._corrections import CORRECTIONS
from .._utils import _budgets
from .._utils._compat import HasMethods, StrOptions
from ..kernel_approximation import RandomFourierSampler
from ..kernels import gaussian_kernel, median_bandwidth
from ..statistics._hsic import (
    MAX_OBSERVATIONS,
    HSICParts,
    centered_gram,
    feature_gram,
)
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


class HSICTest(_BaseHSICTest):
    """Kernel test of independence (HSIC) with explicit feature maps.

    Tests ``H0: X and y are independent`` from paired rows ``(x_i, y_i)``.
    The statistic is HSIC, the MMD between the joint distribution and the
    product of the marginals, of the feature maps ``phi(x)`` and ``psi(y)``
    (Zhang, Filippi, Gretton & Sejdinovic 2018): the squared norm of their
    cross-covariance. Rows are mapped chunk by chunk and summed into
    resampling units (the pipeline of :class:`MMDTest`); the null
    distribution pairs the y units with the x units by random permutations
    in the same calibration loop. Cost ``O(n D)`` for the features plus
    ``O(B G^2)`` for ``B`` permutations of ``G`` units, whatever ``n``.

    ``None`` for a transformer is the exact Gaussian kernel with the median
    bandwidth of that variable (the classical quadratic-time HSIC test of
    Gretton et al. 2008, the ground truth of small problems): every pair is
    an observation, so at most 4096 pairs, in memory, with :meth:`fit`.

    Parameters
    ----------
    x_transformer : "auto", None or object with ``fit`` and ``transform``, \
            default="auto"
        Feature map of X. ``"auto"``: :class:`RandomFourierSampler`
        (Gaussian kernel at the median distance of ``2**20`` random pairs of
        rows, see :func:`~skmmd.kernels.median_bandwidth`) for arrays,
        :class:`TabularSampler`
        for DataFrames; ``None``: the exact Gaussian kernel (numeric X).
    y_transformer : "auto", None or object with ``fit`` and ``transform``, \
            default="auto"
        Feature map of y, likewise.
    statistic : {"biased", "unbiased"}, default="biased"
        The HSIC estimator (both give valid tests), of the HSIC of the rows
        at any resampling unit. ``"unbiased"``: Song et al.'s estimator over
        the units, unbiased for the rows' HSIC whatever the unit.
        ``"biased"``: the squared norm of the units' empirical
        cross-covariance, above the rows' HSIC on average by about
        ``tr(C_xx) tr(C_yy) / G`` for ``G`` units.
    n_resamples : int or "auto", default=999
        Number of random pairings ``B``.
        ``"auto"``: drawn in batches, stopped as soon as the decision at
        ``alpha`` is known, at most 999 (a sequential Monte Carlo test, see
        :ref:`sequential`); the number drawn is ``n_resamples_used_``.
    alpha : float, default=0.05
        Level of the test.
    resample_unit : "auto" or int, default="auto"
        Rows per resampling unit. ``"auto"``: 1 (every row an observation)
        while ``B x n^2`` stays within about 10^9, else the smallest power
        of two that brings it there (at most 4096 units). With units of
        ``u > 1`` rows the observations are each variable's unit sums of
        features divided by ``sqrt(u)`` (rows grouped at random, seeded), and
        the rows of an incomplete last unit are left out.
    block_size : None, "auto" or int, default=None
        For pairs in time order (two sensors, a series and its driver):
        units of consecutive pairs, and a null that shifts y's units against
        x's circularly by at least this many rows instead of permuting them,
        so each variable keeps its own dependence between neighbouring rows
        and the p-value holds. ``"auto"`` chooses the length from each
        variable's features; ``None``: exchangeable pairs
        (:ref:`time_ordered`).
    batch : int, default=None
        Pairings per batch (``None``: bounded to about 2^23 entries).
    random_state : int, RandomState instance or None, default=None
        Seeds the feature maps, the units and the pairings.
    n_jobs : int, default=None
        Threads computing batches of pairings.
    verbose : int, default=0
        Progress messages.
    correction : {"fwer", "fdr", "fdr_by", "none"}, default="fwer"
        How :meth:`explain` adjusts the columns' p-values: family-wise error
        (step-down maxT), false discovery rate (Benjamini-Hochberg, or
        -Yekutieli), or not at all (see :ref:`explain`).
    decision : {"combined", "table"}, default="combined"
        What ``p_value_`` and ``reject_`` decide once the column report of
        :func:`~skmmd.hsic_test` with ``explain_columns`` (or the command
        line's ``--explain``) is attached, as :class:`MMDTest`'s.
        ``"combined"``: the table's statistic and its most dependent column
        together (a union bound of the two tests, the columns tested in a
        second pass), at level ``alpha``; a column flagged in the report
        always goes with a rejection, and none is flagged without one
        (:ref:`decision`). ``"table"``: the table's statistic alone.

    Attributes
    ----------
    statistic_ : float
        HSIC of the observed pairs (an estimate of the HSIC of the rows, the
        same quantity at every ``n`` and resampling unit).
    p_value_ : float
        ``(1 + #{T_b >= T}) / (B + 1)``.
        With ``n_resamples="auto"``, the sequential p-value: at least the
        fixed test's (the same decision) when all 999 were drawn, above
        ``alpha`` and coarser when the test stopped to accept, at most
        ``alpha`` when it stopped to reject; valid (see :ref:`sequential`).
    null_distribution_ : ndarray of shape (n_resamples,)
        HSIC of each random pairing (on the same scale).
    n_resamples_used_ : int
        Resamples drawn: ``n_resamples``, or with ``"auto"`` where the test
        stopped (the rows of ``null_distribution_``).
    reject_ : bool
        ``p_value_ <= alpha``.
    threshold_ : float or None
        The null's upper ``alpha`` quantile (reject when the statistic exceeds
        it). :func:`~skmmd.hsic_test` with ``explain_columns=True`` and
        ``decision="combined"`` makes the verdict the table's and its
        columns' together: then ``p_value_`` is that decision's, the table's
        own are ``table_p_value_`` and ``table_threshold_``, and
        ``threshold_`` is None (no threshold of ``statistic_`` alone makes
        the verdict).
    result_ : HSICTestResult
        The same values, with the unbiased HSIC and its standard error
        (``hsic``, ``standard_error``): the jackknife over the observations
        (with ``block_size``, units of consecutive pairs, its variance times
        the long-run variance of its leave-one-out values over their
        variance), plus, for random Fourier features, the spread over the draw of the
        frequencies (:func:`~skmmd.statistics._hsic.draw_variances`), so that the
        interval is for the HSIC of the kernel, not of one draw of its
        features.
    x_transformer_, y_transformer_ : object or None
        The fitted feature maps (None for an exact kernel).
    x_bandwidth_, y_bandwidth_ : float or None
        The median bandwidths of exact kernels (None for feature maps).
    resample_unit_ : int
        Rows per unit.
    block_size_ : int or None
        With ``block_size``: the least shift of y against x, in rows.
    n_samples_ : int
        Number of pairs.
    n_features_in_ : int
        Number of columns of X.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the columns of X, when it has string column names.

    See Also
    --------
    hsic_test : The test in one call.
    MMDTest : The two-sample test on the same pipeline.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import HSICTest
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 1))
    >>> y = x**2 + 0.5 * rng.normal(size=(500, 1))  # uncorrelated, dependent
    >>> test = HSICTest(random_state=0).fit(x, y)
    >>> test.p_value_
    0.001
    >>> bool(abs(np.corrcoef(x[:, 0], y[:, 0])[0, 1]) < 0.2)  # little correlation
    True
    """

    _parameter_constraints: dict = {
        "x_transformer": [
            StrOptions({"auto"}),
            None,
            HasMethods(["fit", "transform"]),
        ],
        "y_transformer": [
            StrOptions({"auto"}),
            None,
            HasMethods(["fit", "transform"]),
        ],
        "correction": [StrOptions(set(CORRECTIONS))],
        "decision": [StrOptions({"combined", "table"})],
        **SHARED_CONSTRAINTS,
    }

    def __init__(
        self,
        x_transformer="auto",
        y_transformer="auto",
        *,
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
        self.x_transformer = x_transformer
        self.y_transformer = y_transformer
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

    def _start(self, engine, pairs, seed, rng, fit_rows=None):
        """Fit the maps on ``fit_rows`` (a pair; None: copies of the given,
        fitted maps) and start the stream."""
        if fit_rows is None:
            self.x_transformer_ = deepcopy(self.x_transformer)
            self.y_transformer_ = deepcopy(self.y_transformer)
        else:
            fit_x, fit_y = fit_rows
            x_map = self._auto_map(self.x_transformer, fit_x, rng.randint(2**31))
            y_map = self._auto_map(self.y_transformer, fit_y, rng.randint(2**31))
            self.x_transformer_ = x_map.fit(fit_x)
            self.y_transformer_ = y_map.fit(fit_y)
        self.x_bandwidth_ = self.y_bandwidth_ = None
        unit = 1 if self.resample_unit == "auto" else self.resample_unit
        self._stream = _pair_stream(
            engine,
            pairs,
            [self.x_transformer_],
            [self.y_transformer_],
            unit,
            seed,
            ordered=self.block_size is not None,
        )

    def _exact(self):
        return self.x_transformer is None or self.y_transformer is None

    def _prefit(self):
        return _fitted(self.x_transformer) and _fitted(self.y_transformer)

    def _auto_map(self, transformer, V, random_state):
        """:meth:`_map`, a Gaussian map of numbers at the median distance of
        many random pairs of rows (a fixed subsample's median would carry an
        error that does not shrink with ``n`` and that the result's interval
        cannot see)."""
        fitted = self._map(transformer, V, random_state)
        if isinstance(transformer, str) and isinstance(fitted, RandomFourierSampler):
            fitted.set_params(
                bandwidth=median_bandwidth(
                    V, random_state=random_state, n_pairs=_budgets.HSIC_MEDIAN_PAIRS
                )
            )
        return fitted

    def _fit_exact(self, pairs, seed, rng):
        """The quadratic test: Grams of every pair, an exact Gaussian kernel
        for a variable without a feature map."""
        n = len(pairs[0])
        if self.block_size is not None:
            raise ValueError(
                f"block_size={self.block_size!r} shifts blocks of the unit sums of "
                "feature maps; the exact test (x_transformer=None or "
                "y_transformer=None) has none: give feature maps (the default "
                "'auto')."
            )
        if n > MAX_OBSERVATIONS:
            raise ValueError(
                f"The exact test (x_transformer=None or y_transformer=None) forms "
                f"n x n Gram matrices and takes at most {MAX_OBSERVATIONS} pairs; "
                f"got n_samples = {n}. Give feature maps (the default 'auto') "
                "for more."
            )
        if self.resample_unit not in ("auto", 1):
            raise ValueError(
                "The exact test (x_transformer=None or y_transformer=None) has "
                "every pair as an observation: resample_unit must be 'auto' or "
                f"1; got {self.resample_unit!r}."
            )
        grams = []
        for V, name in zip(pairs, ("x", "y")):
            transformer = getattr(self, f"{name}_transformer")
            if transformer is None:
                V = check_array(V, dtype=np.float64, input_name=name.upper())
                bandwidth = median_bandwidth(V, random_state=rng)
                fitted, K = None, centered_gram(gaussian_kernel(V, bandwidth=bandwidth))
            else:
                bandwidth = None
                fitted = self._map(transformer, V, rng.randint(2**31)).fit(V)
                K = feature_gram(fitted.transform(V))
            setattr(self, f"{name}_transformer_", fitted)
            setattr(self, f"{name}_bandwidth_", bandwidth)
            grams.append(K)
        self._stream = None
        self.n_train_ = 0
        self.block_size_ = None
        self._set_results(HSICParts(*grams, self.statistic == "unbiased"), n, 1, seed)
        return self

    def _calibrate(self):
        self._stale = False
        stream = self._stream
        sums = stream.sums()
        unit = stream.state.unit
        # The observations: scaled unit sums of each variable's features,
        # pairs kept together; incomplete units are left out.
        a, b = observations(sums, unit)
        if a.shape[0] < _budgets.MIN_UNITS:
            raise ValueError(
                f"HSICTest needs at least {_budgets.MIN_UNITS} complete units of "
                f"resample_unit={unit} pairs; got {a.shape[0]} from "
                f"{stream.n_rows[0]} pairs so far."
            )
        for V, name in ((a, "X"), (b, "y")):
            if np.all(np.abs(V - V[:1]) <= 1e-12 * np.abs(V).max()):
                raise _constant(name)
        grams = feature_gram(a), feature_gram(b)
        parts = HSICParts(*grams, self.statistic == "unbiased")
        shift, self.block_size_ = block_shift(self, (a, b), unit)
        self._set_results(parts, stream.n_rows[0], unit, stream.seed, ([a], [b]), shift)

    def _set_results(self, parts, n_samples, unit, seed, features=None, shift=None):
        """The fitted results of the observations' ``parts`` (and ``features``,
        the observations of each map, for the effect size's error)."""
        if self.verbose:
            print(
                f"HSICTest: n={n_samples}, {parts.G} units of {unit}, "
                f"{self.n_resamples} pairings"
            )
        rule = stopping_rule(self)
        observed, null, tolerance = resampled_hsic(
            parts, shift=shift, **loop_options(self, seed, rule)
        )
        p_value = float(_calibration.p_value(observed, null, tolerance))
        set_calibrated(self, observed, null, p_value, rule)
        self.resample_unit_ = unit
        self.n_samples_ = n_samples
        if features is None:  # exact kernels
            hsic_u, se = parts.jackknife(serial_correction(self))
        else:
            maps = [self.x_transformer_], [self.y_transformer_]
            hsic_u, se = effect_sizes(parts, *features, *maps, serial_correction(self))
        self.result_ = HSICTestResult(
            statistic=self.statistic_,
            pvalue=self.p_value_,
            null_distribution=null,
            alpha=self.alpha,
            hsic=hsic_u,
            standard_error=se,
            n_pairs=self.n_samples_,
        )

    def _report_maps(self):
        """``(x map given, fitted y map)`` of the column report: the test's
        own (the y map None for an exact kernel)."""
        return self.x_transformer, self.y_transformer_
