"""KernelSteinTest: does a sample come from a model known by its score? The
kernel Stein discrepancy at linear cost, on the one pipeline and the one
calibration loop."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if

from .._testing import _engines
from .._testing._base import (
    SHARED_CONSTRAINTS,
    StreamedResults,
    fit_indices,
    set_calibrated,
    stopping_rule,
    unfitted_on_error,
)
from .._testing._calibration import n_max, p_value
from .._testing._multiplier import (
    bootstrap_units,
    multiplier_unit,
    resampled_multiplier,
)
from .._testing._streaming import Stream
from .._utils import _budgets
from .._utils._compat import (
    HasMethods,
    Interval,
    StrOptions,
    fit_context,
    validate_data,
)
from .._utils._tables import is_dataframe
from ..kernel_approximation import RandomFourierSampler
from ..kernels import median_bandwidth
from ..mmd._multiplier import MultiplierParts
from ..mmd._stein import (
    GramParts,
    add_stein_unit_sums,
    gaussian_stein_gram,
    stein_features,
)
from ._models import model_score
from ._results import KernelSteinTestResult

# Random pairs of rows behind the median bandwidth (its relative error about
# 1 / sqrt(2^16), far below what moves a test).
_MEDIAN_PAIRS = 2**16


class SteinMap:
    """The pipeline's map: rows -> their Stein features (:func:`~skmmd.mmd.\
_stein.stein_features`) under a fitted :class:`RandomFourierSampler` of
    cosines and sines and a model's score."""

    def __init__(self, sampler, score):
        if not (
            isinstance(sampler, RandomFourierSampler)
            and sampler.feature == "cos_sin"
            and sampler.n_components % 2 == 0
        ):
            raise TypeError(
                "transformer must be a RandomFourierSampler with feature='cos_sin' "
                "and an even n_components (the Stein features need the gradient "
                f"of every feature); got {sampler!r}."
            )
        self.sampler, self.score = sampler, score
        self.frequencies = sampler.random_weights_
        self._n_features_out = 2 * self.frequencies.size

    def transform(self, X):
        X = np.asarray(X, dtype=np.float64)
        return stein_features(X, self.score(X), self.frequencies)

    def _grouped_sums(self, X, groups, n_groups, out=None):
        """The Stein features of ``X`` summed per group, and their squared
        norms, without storing them (the pipeline's fused per-unit sums,
        :meth:`skmmd._testing._streaming.HostRows.grouped_sums`): rows in
        blocks whose features take at most ``_budgets.CHUNK_ENTRIES``
        entries, so memory is bounded whatever the chunk."""
        X = np.asarray(X, dtype=np.float64)
        if out is None:
            out = (np.zeros((n_groups, self._n_features_out)), np.zeros(n_groups))
        step = max(1, _budgets.CHUNK_ENTRIES // self.sampler.n_components)
        for lo in range(0, X.shape[0], step):
            x = X[lo : lo + step]
            add_stein_unit_sums(
                self.sampler.transform(x),
                self.score(x),
                self.frequencies,
                groups[lo : lo + step],
                *out,
            )
        return out


class KernelSteinTest(StreamedResults, BaseEstimator):
    """Kernel Stein goodness-of-fit test at linear cost.

    Tests ``H0: the rows of X are drawn from the model`` for a model known by
    its score ``s = grad log p`` only: no normalizing constant, no sample from
    the model. The statistic is the kernel Stein discrepancy (Liu, Lee &
    Jordan 2016; Chwialkowski, Strathmann & Gretton 2016) of the kernel of
    random Fourier features ``phi``: with the Stein features ``xi(x) = s(x)
    phi(x)' + grad phi(x)``, which have mean 0 under the model, ``T = n
    ||(1/n) sum_i xi(x_i)||^2`` (Huggins & Mackey 2018). Rows are mapped
    chunk by chunk and summed into resampling units by the pipeline of the
    other tests; the null multiplies each unit's sum by a random sign (a wild
    bootstrap) in the same calibration loop. Cost ``O(n D d)`` for ``D``
    features in dimension ``d``; memory bounded by a chunk and the unit sums.

    ``transformer=None`` is the exact Gaussian kernel with the same bandwidth:
    the quadratic-time kernel Stein discrepancy test, the reference for small
    samples (an ``n x n`` Stein kernel matrix, in memory).

    Parameters
    ----------
    model : object
        The model tested, as its score: a callable ``score(X) -> (n, d)``
        (``grad log p`` at each row; :func:`log_density_score` makes one from
        a log-density), a frozen continuous ``scipy.stats`` distribution (a
        univariate one is the law of every coordinate, independently;
        ``multivariate_normal``, ``multivariate_t``), or a fitted
        ``GaussianMixture``, ``BayesianGaussianMixture`` or ``KernelDensity``
        (Gaussian kernel). A model fitted on the rows it is tested on is
        biased towards them (the test then rarely rejects): fit it on other
        rows (see :ref:`goodness_of_fit`).
    transformer : "auto", None or RandomFourierSampler, default="auto"
        The features. ``"auto"``: a :class:`RandomFourierSampler` of the
        Gaussian kernel at ``bandwidth`` with ``n_frequencies`` frequencies.
        Another kernel's sampler (``kernel="laplacian"`` or ``"matern"``)
        with ``feature="cos_sin"`` works the same way. ``None``: the exact
        Gaussian kernel (quadratic).
    bandwidth : "median" or float, default="median"
        Bandwidth of the Gaussian kernel of ``"auto"`` and ``None``:
        ``"median"`` is the median distance of ``2**16`` random pairs of rows
        (:func:`~skmmd.kernels.median_bandwidth`).
    n_frequencies : int, default=128
        Frequencies of ``"auto"``, each giving a cosine and a sine feature;
        the Stein features number ``2 n_frequencies d``.
    n_resamples : int or "auto", default=999
        Bootstrap draws ``B``. ``"auto"``: drawn in batches, stopped as soon
        as the decision at ``alpha`` is known, at most 999 (see
        :ref:`sequential`).
    alpha : float, default=0.05
        Level of the test.
    resample_unit : "auto" or int, default="auto"
        Rows per resampling unit. ``"auto"``: 1 while the bootstrap's ``B x n
        x D d`` multiply-adds and the unit sums stay within budget, else the
        smallest power of two that brings them there.
    batch : int, default=None
        Draws per batch (``None``: bounded to about 2^23 entries).
    random_state : int, RandomState instance or None, default=None
        Seeds the features, the units and the signs.
    n_jobs : int, default=None
        Threads computing batches of draws.
    verbose : int, default=0
        Progress messages.

    Attributes
    ----------
    statistic_ : float
        ``T = n ||(1/n) sum_i xi(x_i)||^2``.
    p_value_ : float
        ``(1 + #{T_b >= T}) / (B + 1)`` (with ``n_resamples="auto"``, the
        sequential p-value).
    null_distribution_ : ndarray of shape (n_resamples,)
        The statistic of each bootstrap draw.
    n_resamples_used_ : int
        Draws made (fewer than 999 where ``"auto"`` stopped).
    reject_ : bool
        ``p_value_ <= alpha``.
    threshold_ : float
        The null's upper ``alpha`` quantile.
    result_ : KernelSteinTestResult
        The same values, with the unbiased ``ksd2`` and its standard error.
    bandwidth_ : float
        The bandwidth used (that of the given sampler, if one was given).
    transformer_ : RandomFourierSampler or None
        The fitted features (None for the exact test).
    resample_unit_ : int
        Rows per resampling unit (1 for the exact test).
    n_samples_ : int
        Rows tested.
    n_features_in_ : int
        Number of columns of X.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the columns of X, when it is a DataFrame with string names.

    See Also
    --------
    goodness_of_fit_test : The same test as a function.
    MMDTest : The two-sample test, against a sample drawn from the model.

    Notes
    -----
    The p-value is asymptotic: the bootstrap reproduces the Gaussian limit
    of the units' mean Stein feature, which has mean 0 under ``H0``. The
    level is measured in ``benchmarks/bench_goodness_of_fit.py`` (see
    :ref:`benchmarks`). :meth:`partial_fit` fits the features on its first
    chunk (with ``bandwidth="median"``, the bandwidth of that chunk) and
    tests every row, that chunk's too.

    References
    ----------
    .. [1] Q. Liu, J. Lee and M. Jordan. A kernelized Stein discrepancy for
       goodness-of-fit tests. ICML 2016.
    .. [2] K. Chwialkowski, H. Strathmann and A. Gretton. A kernel test of
       goodness of fit. ICML 2016.
    .. [3] J. Huggins and L. Mackey. Random feature Stein discrepancies.
       NeurIPS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skmmd import KernelSteinTest
    >>> rng = np.random.default_rng(0)
    >>> X = rng.laplace(scale=1 / np.sqrt(2), size=(2000, 1))  # variance 1
    >>> test = KernelSteinTest(stats.norm(), random_state=0).fit(X)
    >>> bool(test.reject_)
    True
    """

    _parameter_constraints: dict = {
        "model": "no_validation",
        "transformer": [None, StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_frequencies": [Interval(Integral, 1, None, closed="left")],
        **{
            name: SHARED_CONSTRAINTS[name]
            for name in (
                "n_resamples",
                "alpha",
                "resample_unit",
                "batch",
                "random_state",
                "n_jobs",
                "verbose",
            )
        },
    }

    _RESULTS = (
        "statistic_",
        "p_value_",
        "null_distribution_",
        "n_resamples_used_",
        "reject_",
        "threshold_",
        "result_",
        "resample_unit_",
        "n_samples_",
    )

    def __init__(
        self,
        model,
        *,
        transformer="auto",
        bandwidth="median",
        n_frequencies=128,
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.model = model
        self.transformer = transformer
        self.bandwidth = bandwidth
        self.n_frequencies = n_frequencies
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _rows(self, X, reset, min_rows):
        """Validated rows: a 2-D array of finite numbers (a dask array: its
        shape only), as many columns as the model has."""
        if _engines.engine_for(X).lazy:
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D (n, d); got {X.ndim} dimensions.")
            if reset:
                self.n_features_in_ = int(X.shape[1])
            elif X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} columns; the test was fit on "
                    f"{self.n_features_in_}."
                )
            rows = X
        else:
            if is_dataframe(X):
                numeric = X.select_dtypes("number").columns
                other = [c for c in X.columns if c not in set(numeric)]
                if other:
                    raise ValueError(
                        f"X's columns {other[:5]} are not numeric: the model's "
                        "score needs numbers."
                    )
            rows = validate_data(self, X, reset=reset, dtype=np.float64)
        n = int(rows.shape[0])
        if n < min_rows:
            raise ValueError(
                f"{type(self).__name__} needs at least {min_rows} rows; got "
                f"n_samples = {n}."
            )
        dim = self._score.dim
        if dim is not None and rows.shape[1] != dim:
            raise ValueError(
                f"X has {rows.shape[1]} columns and the model {self._score.name} "
                f"is of dimension {dim}."
            )
        return rows

    def _resolved_bandwidth(self, fit_rows, seed):
        if self.bandwidth != "median":
            return float(self.bandwidth)
        fit_rows = np.asarray(fit_rows, dtype=np.float64)
        return median_bandwidth(fit_rows, random_state=seed, n_pairs=_MEDIAN_PAIRS)

    def _start(self, engine, fit_rows, seed, rng):
        """Fit the features on ``fit_rows`` and open the stream."""
        if self.transformer == "auto":
            self.bandwidth_ = self._resolved_bandwidth(fit_rows, seed)
            sampler = RandomFourierSampler(
                bandwidth=self.bandwidth_,
                n_components=2 * self.n_frequencies,
                random_state=rng.randint(np.iinfo(np.int32).max),
            )
        else:
            sampler = clone(self.transformer)
        self.transformer_ = sampler.fit(np.asarray(fit_rows, dtype=np.float64))
        self.bandwidth_ = float(self.transformer_.bandwidth_)
        stein = SteinMap(self.transformer_, self._score)
        self._seed = seed
        self._stream = Stream([stein], [stein._n_features_out], 1, seed, engine.rows)

    def _unit(self, n_rows):
        if self.resample_unit != "auto":
            return self.resample_unit
        width = self._stream.widths[0]
        unit = multiplier_unit(n_rows, n_max(self.n_resamples), width)
        return max(self._stream.state.unit, unit)

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Compute the statistic, its bootstrap null and the p-value.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n, d)
            The rows tested, numeric (a dask array: reduced on the workers).
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted test.
        """
        self._score = model_score(self.model)
        engine = _engines.engine_for(X)
        if self.transformer is None and engine.lazy:
            raise TypeError(
                "The exact test (transformer=None) is quadratic and takes "
                "in-memory arrays; use the features ('auto') for dask arrays."
            )
        X = self._rows(X, True, _budgets.MIN_UNITS)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.int32).max)
        n = engine.n_rows(X)
        if self.transformer is None:
            return self._fit_exact(X, seed)
        self._start(engine, engine.rows_of(X, fit_indices(n, seed)), seed, rng)
        engine.add(self._stream, X, None, self._unit(n))
        self._calibrate()
        return self

    def _fit_exact(self, X, seed):
        if X.shape[0] ** 2 > _budgets.GRAM_ENTRIES:
            raise ValueError(
                f"The exact test (transformer=None) builds an n x n matrix; n = "
                f"{X.shape[0]} is above {int(np.sqrt(_budgets.GRAM_ENTRIES))}: use "
                "the features ('auto')."
            )
        self.transformer_, self._seed = None, seed
        self.bandwidth_ = self._resolved_bandwidth(X, seed)
        H = gaussian_stein_gram(X, self._score(X), self.bandwidth_)
        self._set_results(GramParts(H), 1)
        return self

    def _streams(self):
        # partial_fit streams features; the exact test takes all rows at once.
        return self.transformer is not None

    @available_if(_streams)
    @fit_context(prefer_skip_nested_validation=False)
    @unfitted_on_error
    def partial_fit(self, X, y=None):
        """Add a chunk of rows to the test (out-of-core or streamed data).

        The first chunk fits the features (see Notes) and every chunk's rows
        are tested. Results are computed from all rows so far when first
        read; with features that do not depend on the data (a float
        ``bandwidth``, or a fitted sampler) they equal those of :meth:`fit`
        on all rows, whatever the chunks.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_chunk, d)
            Rows.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The test, updated.
        """
        first = getattr(self, "_stream", None) is None
        if first:
            self._score = model_score(self.model)
        try:
            X = self._rows(X, first, 1)
        except ValueError as error:
            if first:
                raise
            raise ValueError(
                f"partial_fit chunk after {self._stream.n_rows[0]} rows (nothing "
                f"was added): {error}"
            ) from error
        engine = _engines.InMemory(_engines.HOST)
        if first:
            rng = check_random_state(self.random_state)
            seed = rng.randint(np.iinfo(np.int32).max)
            self._start(engine, X, seed, rng)
        stream = self._stream
        stream.add((X, None), self._unit(stream.n_rows[0] + X.shape[0]))
        self._mark_stale()
        return self

    def _calibrate(self):
        stream = self._stream
        n = stream.n_rows[0]
        unit = stream.state.unit
        (sums,) = stream.sums()
        U, sizes = bootstrap_units(sums, n, unit)
        self._set_results(MultiplierParts(U, sizes), unit)

    def _set_results(self, parts, unit):
        rule = stopping_rule(self)
        observed, null, tolerance = resampled_multiplier(
            parts,
            n_resamples=n_max(self.n_resamples),
            batch=self.batch,
            seed=self._seed,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
            stopping=rule,
        )
        p = float(p_value(observed, null, tolerance))
        set_calibrated(self, float(observed), null, p, rule)
        self.resample_unit_ = unit
        self.n_samples_ = int(parts.n)
        ksd2, se = parts.effect()
        self.result_ = KernelSteinTestResult(
            statistic=self.statistic_,
            pvalue=self.p_value_,
            null_distribution=self.null_distribution_,
            alpha=self.alpha,
            ksd2=ksd2,
            standard_error=se,
            n_samples=self.n_samples_,
        )
        self._stale = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
