"""Kernel two-sample tests as scikit-learn estimators."""

import functools
from copy import copy, deepcopy
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import (
    ClassifierTags,
    check_random_state,
    gen_batches,
    get_tags,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from . import (
    _aggregation,
    _array_api,
    _calibration,
    _dask,
    _explain,
    _inputs,
    _results,
    _streaming,
)
from ._compat import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    _fit_context,
)
from .kernel_approximation import RandomFourierSampler
from .kernels import bandwidth_grid, median_bandwidth
from .mmd import _BLOCK_ENTRIES, _kernel_params, _power_criterion_exact, power_criterion

__all__ = ["AggregatedMMDTest", "MMDTest"]

_FLOAT_DTYPES = [np.float64, np.float32]
# Above this many pooled points the transformers are fit on a seeded uniform
# subsample of this size (what their data-dependent parts need: a median
# bandwidth, landmarks), the same rows in memory and on Dask.
_FIT_ROWS = 100_000


def _stack(X, Y):
    """The pooled sample: X's rows first, then Y's."""
    return _inputs.stack(X, Y)


def _with_numpy(fit=False, always=False):
    """Run a test's method with NumPy on array-API inputs in host memory (the
    NumPy engine, see :mod:`skmmd._array_api`), or with ``always`` on host
    copies of device arrays too.

    ``fit``: the test itself is fit on NumPy views; the maps it then exposes
    (``transformer_``, ``transformers_``) are copies with their arrays in the
    inputs' namespace (its stream keeps the NumPy ones). Otherwise the method
    of a fitted test runs on a copy whose maps hold NumPy arrays, and an array
    result goes back to the inputs' namespace.
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X, *args, **kwargs):
            y = args[0] if args else kwargs.get("y")
            xp, device = _array_api.namespace(X, y)
            if xp is None or not (always or _array_api.on_host(X, y)):
                return method(self, X, *args, **kwargs)
            X = _array_api.as_numpy(X, "X")
            args = [_array_api.as_numpy(a, "y") for a in args]
            kwargs = {k: _array_api.as_numpy(v, k) for k, v in kwargs.items()}
            if fit:
                out = method(self, X, *args, **kwargs)
                _array_api.convert_maps(self, _array_api.to_namespace(xp, device))
                return out
            check_is_fitted(self)
            if self.__dict__.get("_stale"):  # calibrate once, on the test itself
                self._calibrate()
            test = _array_api.convert_maps(copy(self), _array_api.fitted_as_numpy)
            out = method(test, X, *args, **kwargs)
            if isinstance(out, np.ndarray):
                return _array_api.from_numpy(out, xp, device)
            return out

        return wrapper

    return decorate


def _prefit(transformers):
    """Copies of the transformers if all are fitted already, else None (maps
    fitted on host array-API arrays: their NumPy views, see
    ``_with_numpy``)."""
    try:
        for transformer in transformers:
            check_is_fitted(transformer)
    except NotFittedError:
        return None
    return [_array_api.host_fitted(deepcopy(t)) for t in transformers]


class _BaseMMDTest(BaseEstimator):
    """What the two-sample tests share: the two input conventions, the
    resampling unit, the calibration parameters and the tags (not public)."""

    _shared_constraints: dict = {
        "statistic": [StrOptions({"unbiased", "biased"})],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "resample_unit": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "batch": [None, Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def _two_samples(self, X, Y, reset, min_rows=2):
        """Validated ``(X, Y, classes)``: see :func:`skmmd._inputs.two_samples`."""
        return _inputs.two_samples(
            self, X, Y, reset=reset, min_rows=min_rows, **self._input_options()
        )

    def _input_options(self):
        """Inputs pass through to transformers (not to the exact kernel); NaN
        is let through when every transformer accepts it."""
        transformers = self._input_transformers()
        return {
            "pass_through": transformers is not None,
            "allow_nan": transformers is not None
            and all(get_tags(t).input_tags.allow_nan for t in transformers),
        }

    @_with_numpy(always=True)
    def explain(self, X, y=None, *, columns=None):
        """Which columns moved: a test per column, adjusted for testing them all.

        Each column (or group of columns) gets its own kernel: the test's
        sampler fit on that column alone when the test has a sampler of this
        package (e.g. :class:`TabularSampler`, :class:`RandomFourierSampler`),
        else a :class:`TabularSampler`. All columns' statistics are computed on
        the same permutations (as :class:`AggregatedMMDTest` does with
        kernels), and their p-values are adjusted by Westfall and Young's
        single-step min-p rule, so that rejecting every column with
        ``adjusted_p_value <= alpha`` wrongly flags some unchanged column with
        probability at most ``alpha``. Cost ``O(N D)`` for ``D`` features over
        all columns.

        Parameters
        ----------
        X : DataFrame or array-like of shape (m, n_features) or (N, n_features)
            The first sample, or the pooled sample when ``y`` is labels, with
            the columns seen in ``fit``.
        y : DataFrame or array-like of shape (n, n_features) or (N,)
            The second sample, or labels of the two samples.
        columns : None, list or dict, default=None
            ``None``: every column alone. A list of columns and lists of
            columns (groups tested together), or a dict ``{label: columns}``.

        Returns
        -------
        report : pandas.DataFrame
            One row per column (group), most evidence first: ``column``,
            ``statistic`` (its MMD^2), ``p_value`` (its own permutation
            p-value), ``adjusted_p_value`` (family-wise), ``z`` (the statistic
            standardized over the permutations, which breaks ties), and
            ``mmd2_low``, ``mmd2_high`` (95 % confidence interval of its MMD^2).
        """
        check_is_fitted(self)
        X, Y, _ = self._two_samples(X, y, reset=False)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.int32).max)
        return _explain.column_report(self, X, Y, columns, rng, seed)

    def _resolve_unit(self, m, n, n_features_out):
        if self.resample_unit != "auto":
            if self.resample_unit > min(m, n):
                raise ValueError(
                    f"resample_unit={self.resample_unit} exceeds the smaller sample "
                    f"size {min(m, n)}."
                )
            return self.resample_unit
        return _streaming.auto_unit(
            m, n, n_features_out, self.n_resamples, self._n_products
        )

    _n_products = 1  # matrix products per resample (two for the bootstrap)

    # Attributes computed from the unit sums; after partial_fit they are
    # computed when first read (the calibration costs O(B G D), the update
    # O(chunk D)), so a stream of many chunks calibrates once.
    _RESULTS = (
        "statistic_",
        "p_value_",
        "null_distribution_",
        "reject_",
        "threshold_",
        "witness_weights_",
        "statistics_",
        "p_values_",
        "result_",
        "resample_unit_",
        "n_samples_x_",
        "n_samples_y_",
    )

    def __getattr__(self, name):
        if name in _BaseMMDTest._RESULTS and self.__dict__.get("_stale"):
            self._calibrate()
            return self.__dict__[name]
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    def _fit_rows(self, X, Y, seed):
        """Rows the transformers are fit on: the pooled sample, or above
        ``_FIT_ROWS`` points a seeded uniform subsample of it (the same rows
        whatever the engine). A uniform subsample drawn without the labels
        keeps the units exchangeable, so the test stays exact."""
        m, n = _streaming.n_rows(X), _streaming.n_rows(Y)
        if m + n <= _FIT_ROWS:
            if _dask.is_dask(X):
                return _dask.take_pooled(X, Y, np.arange(m + n))
            return _stack(X, Y)
        idx = np.sort(
            np.random.default_rng([seed, 2]).choice(m + n, _FIT_ROWS, replace=False)
        )
        if _dask.is_dask(X):
            return _dask.take_pooled(X, Y, idx)
        return _stack(
            _streaming.take_rows(X, idx[idx < m]),
            _streaming.take_rows(Y, idx[idx >= m] - m),
        )

    def _start_stream(self, transformers, X, seed):
        widths = [_streaming.transformer_width(t, X) for t in transformers]
        unit = 1 if self.resample_unit == "auto" else self.resample_unit
        self._stream = _streaming.Stream(transformers, widths, unit, seed)
        return widths

    def _fit_stream(self, X, Y, transformers, seed):
        """Unit sums of the whole samples (in memory or dask), then the results."""
        m, n = _streaming.n_rows(X), _streaming.n_rows(Y)
        widths = self._start_stream(transformers, X, seed)
        unit = self._resolve_unit(m, n, sum(widths))
        if _dask.is_dask(X):
            _dask.add_to_stream(self._stream, X, Y, unit)
        else:
            self._stream.add((X, Y), unit)
        self.n_held_out_ = 0
        self._calibrate()
        return self

    @available_if(lambda self: self._streams())
    @_fit_context(prefer_skip_nested_validation=False)
    @_with_numpy(fit=True)
    def partial_fit(self, X, y=None, classes=None):
        """Add a chunk of each sample to the test (out-of-core or streamed data).

        The first call starts the stream. With a transformer that is not
        fitted yet, it is fit on the first call's rows (both samples pooled,
        labels unseen), and those rows are held out of the statistic
        (``n_held_out_``): a map that depends on the rows it tests would make
        them special and the units not exchangeable. A fitted transformer is
        used as given and every row counts. Later calls add their rows; the
        results (``statistic_``, ``p_value_``, ...) are computed from all rows
        so far when first read. For the same seed, a transformer that does not
        depend on the data (e.g. a fixed bandwidth) and the same rows in the
        same order, the results equal those of :meth:`fit`, whatever the chunk
        sizes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m_chunk, n_features)
            Rows of the first sample (or pooled rows when ``y`` is labels);
            a chunk may have no rows of one sample.
        y : {array-like, sparse matrix} of shape (n_chunk, n_features) or \
                array-like of shape (N_chunk,)
            Rows of the second sample, or labels of the rows of ``X``.
        classes : array-like of shape (2,), default=None
            The two labels, for the label convention (scikit-learn's
            ``partial_fit`` signature); checked against those of the chunk.

        Returns
        -------
        self : object
            The test, updated.
        """
        first = getattr(self, "_stream", None) is None
        expected = None if classes is None else np.sort(np.asarray(classes))
        try:
            X, Y, classes = self._two_samples(X, y, reset=first, min_rows=0)
        except ValueError as error:
            if first:
                raise
            rows = self._stream.n_rows
            raise ValueError(
                f"partial_fit chunk after rows 0-{rows[0] - 1} of X and 0-"
                f"{rows[1] - 1} of Y (nothing was added): {error}"
            ) from error
        if expected is not None and classes is not None:
            if not np.all(np.isin(classes, expected)) or expected.size != 2:
                raise ValueError(
                    f"classes={expected.tolist()} must be the two labels of y; "
                    f"got labels {classes.tolist()}."
                )
        if first:
            self.classes_ = np.array([0, 1]) if classes is None else classes
            rng = check_random_state(self.random_state)
            seed = rng.randint(np.iinfo(np.int32).max)
            prefit = self._prefit_transformers()
            held_out = prefit is None
            transformers = self._fit_transformers(_stack(X, Y), rng, prefit)
            self._start_stream(transformers, X, seed)
            self.n_held_out_ = X.shape[0] + Y.shape[0] if held_out else 0
            self._mark_stale()
            if held_out:
                return self
        elif classes is not None and not np.array_equal(classes, self.classes_):
            raise ValueError(
                f"The labels of partial_fit must be the classes of the first call, "
                f"{self.classes_.tolist()}; got {classes.tolist()}."
            )
        stream = self._stream
        m, n = stream.n_rows[0] + X.shape[0], stream.n_rows[1] + Y.shape[0]
        unit = stream.state.unit
        if self.resample_unit == "auto":
            unit = max(unit, self._resolve_unit(m, n, sum(stream.widths)))
        stream.add((X, Y), unit)
        self._mark_stale()
        return self

    def _mark_stale(self):
        for name in _BaseMMDTest._RESULTS:
            self.__dict__.pop(name, None)
        self._stale = True

    def _calibrate(self):
        """Results from the unit sums (subclasses set their attributes)."""
        self._stale = False
        stream = self._stream
        m, n = stream.n_rows
        if min(m, n) < 2:
            raise ValueError(
                "Each sample needs at least 2 points in the statistic; got "
                f"{m} in X and {n} in Y so far."
            )
        sums = stream.sums()
        if min(sums[0].n_units) < 1:
            raise ValueError(
                f"resample_unit={stream.state.unit} leaves a sample with no complete "
                f"unit to resample ({m} points in X, {n} in Y)."
            )
        self.n_samples_x_, self.n_samples_y_ = m, n
        self.resample_unit_ = stream.state.unit
        self._set_results(sums, m, n, stream.seed)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # Missing values pass through to transformers that accept them.
        tags.input_tags.allow_nan = self._input_options()["allow_nan"]
        # The labels of fit(pooled, labels) are binary class labels.
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


class MMDTest(_BaseMMDTest):
    """Kernel two-sample test: maximum mean discrepancy with a calibrated p-value.

    ``MMDTest(transformer).fit(X, Y)`` tests ``H0: P = Q`` from samples
    ``X ~ P`` and ``Y ~ Q``. With a feature map (any transformer, e.g.
    :class:`~skmmd.RandomFourierSampler`) the statistic and every resample cost
    ``O(N D)``; with ``transformer=None`` the kernel is exact and the cost is
    quadratic in ``N = m + n``.

    It is also a binary classifier in scikit-learn's sense, so that
    ``GridSearchCV`` on ``fit(pooled, labels)`` splits with ``StratifiedKFold``
    (every fold holds both samples, as ``score`` needs). ``predict`` is the
    witness (mean-embedding) classifier: a point goes to the sample with the
    larger mean kernel value ``mean_i k(x, x_i)`` against ``mean_j k(x, y_j)``,
    i.e. to ``classes_[0]`` (sample X) where the witness is positive (a Parzen
    window classifier with equal priors). ``score`` stays the power criterion,
    not the accuracy.

    Parameters
    ----------
    transformer : object with ``fit`` and ``transform``, default=None
        Feature map ``z``; the test uses the kernel ``z(x)^T z(y)``. It is
        cloned and fit on the pooled sample without the labels, which keeps
        the permutation test exact. ``None`` is the exact kernel test with
        ``kernel``, ``bandwidth`` and ``nu``.
    kernel : {"gaussian", "laplacian", "matern"} or callable, default="gaussian"
        Kernel of the exact test (``transformer=None``); a callable
        ``kernel(A, B)`` returns the kernel matrix between two row blocks.
        Ignored with a transformer.
    bandwidth : "median" or float, default="median"
        Bandwidth of the exact test's kernel; ``"median"`` is the median
        pairwise distance of (1000 points of) the pooled sample.
    nu : {0.5, 1.5, 2.5}, default=1.5
        Smoothness of the Matern kernel.
    statistic : {"unbiased", "biased"}, default="unbiased"
        ``MMD2_u`` (U-statistic) or ``MMD2_b`` (V-statistic).
    calibration : {"permutation", "bootstrap"}, default="permutation"
        Null distribution: random permutations of the pooled sample (exact
        level in finite samples), or Efron's two-sample bootstrap from the
        pooled sample. A resample's statistic excludes the pairs of two draws
        of one pooled point (biased: the V-statistic of distinct points), else
        the bootstrap is conservative in high dimension.
    n_resamples : int, default=999
        Number of permutations or bootstrap resamples ``B``.
    alpha : float, default=0.05
        Level of the test, in (0, 1): ``reject_`` is ``p_value_ <= alpha``.
    resample_unit : "auto" or int, default="auto"
        Feature path only: points of each sample that are resampled together
        as one unit, assigned to units at random (``m % unit`` points of X and
        ``n % unit`` of Y stay in their sample). ``1`` is the classical test
        that resamples single points, at cost ``O(B N D)``. Any unit size gives
        a test of exact level: the random grouping does not depend on the data
        or their order, so the units are exchangeable under the null. The power
        is the same as long as there are thousands of units. ``"auto"`` uses 1
        unless ``B N D`` exceeds about ``3 10^10`` multiply-adds (or the unit
        sums would exceed 256 MB), then the smallest size that fits, keeping at
        least 100 units per sample.
    batch : int, default=None
        Resamples per matrix product (memory ``O(batch x units)``); ``None``
        keeps a batch to about ``2**23`` entries. The results do not depend on
        it.
    random_state : int, RandomState instance or None, default=None
        Controls the resamples (and the subsample of the exact test's median
        heuristic). Pass an int for reproducible output across multiple function
        calls. The transformer's own ``random_state`` controls its features.
    n_jobs : int, default=None
        Threads computing batches of resamples in parallel. The resamples are
        drawn in one thread in a fixed order, so the results do not depend on
        it. ``None`` means 1 unless in a :obj:`joblib.parallel_backend` context.
    verbose : int, default=0
        Progress messages of the calibration when positive.

    Attributes
    ----------
    statistic_ : float
        Observed MMD^2.
    p_value_ : float
        ``(1 + #{b : T_b >= T}) / (B + 1)``, in ``[1 / (B + 1), 1]``.
    null_distribution_ : ndarray of shape (n_resamples,)
        The resampled statistics ``T_b``.
    threshold_ : float
        ``statistic_`` above it means rejection: the
        ``floor(alpha (B + 1))``-th largest value of the null distribution
        (``inf`` if ``alpha (B + 1) < 1``, when no p-value can reach alpha).
    reject_ : bool
        Whether H0 is rejected at level ``alpha``.
    transformer_ : object or None
        The fitted clone of ``transformer``.
    bandwidth_ : float or None
        Bandwidth of the exact test's kernel (None with a transformer).
    resample_unit_ : int
        The unit size used (1 for the exact test).
    witness_weights_ : ndarray of shape (n_features_out,) or None
        ``s_x / m - s_y / n``, the mean feature difference (feature path).
    n_samples_x_ : int
        Size ``m`` of the first sample.
    n_samples_y_ : int
        Size ``n`` of the second sample.
    classes_ : ndarray of shape (2,)
        The two labels of ``fit(pooled, labels)`` (sorted; the first marks
        sample X), or ``[0, 1]`` for ``fit(X, Y)``: the labels of ``predict``.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    skmmd.mmd.mmd2_features : The statistic from features.
    skmmd.mmd.power_criterion : The criterion returned by ``score``.
    MMDTest.witness : The witness function behind ``decision_function``.
    scipy.stats.permutation_test : Generic permutation tests.

    Notes
    -----
    With pooled features ``Z`` and a ``B x N`` matrix ``A`` of resample counts,
    every resampled sum ``S_x = A Z`` is one matrix product, and the statistic of
    each resample follows from ``||S_x||^2``, ``S_x^T S_y`` and ``A ||z_i||^2``
    (see :func:`skmmd.mmd.mmd2_features`). The exact test does the same with the
    Gram matrix: ``a^T K a`` from ``A K``. The p-value counts the null values
    ``>= T`` up to a relative tolerance of ``100 eps`` of the magnitude of the
    terms of ``T`` (as scipy's ``permutation_test`` does relative to ``T``), so
    that resamples equal to ``T`` up to rounding count as ties. It is valid in
    finite samples for the permutation test [2]_.

    References
    ----------
    .. [1] A. Gretton, K. M. Borgwardt, M. J. Rasch, B. Schoelkopf and A. Smola.
       A kernel two-sample test. JMLR, 13:723-773, 2012.
    .. [2] B. Phipson and G. K. Smyth. Permutation p-values should never be
       zero. Stat. Appl. Genet. Mol. Biol., 9(1), 2010.
    .. [3] J. Zhao and D. Meng. FastMMD: ensemble of circular discrepancy for
       efficient two-sample test. Neural Computation, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import MMDTest, RandomFourierSampler
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> Y = rng.normal(size=(300, 2)) + [0.5, 0.0]
    >>> test = MMDTest(RandomFourierSampler(random_state=0), random_state=0)
    >>> test.fit(X, Y).p_value_
    0.001
    >>> bool(test.reject_)
    True

    The witness classifier: X is denser on the left (class 0), Y on the right.

    >>> test.predict([[-1.0, 0.0], [2.0, 0.0]])
    array([0, 1])
    """

    _parameter_constraints: dict = {
        "transformer": [None, HasMethods(["fit", "transform"])],
        "kernel": [StrOptions({"gaussian", "laplacian", "matern"}), callable],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "nu": [Options(Real, {0.5, 1.5, 2.5})],
        "calibration": [StrOptions({"permutation", "bootstrap"})],
        **_BaseMMDTest._shared_constraints,
    }

    def __init__(
        self,
        transformer=None,
        *,
        kernel="gaussian",
        bandwidth="median",
        nu=1.5,
        statistic="unbiased",
        calibration="permutation",
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.transformer = transformer
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.nu = nu
        self.statistic = statistic
        self.calibration = calibration
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _kernel_function(self):
        return _kernel_params(self.kernel, self.bandwidth_, self.nu)

    def _kernel_rows(self, P):
        kfun = self._kernel_function()
        for rows in gen_batches(P.shape[0], max(1, _BLOCK_ENTRIES // P.shape[0])):
            K = np.asarray(kfun(P[rows], P), dtype=np.float64)
            if not np.all(np.isfinite(K)):
                raise ValueError(
                    f"The kernel returned non-finite values (NaN or infinity) for "
                    f"rows {rows.start}-{rows.stop - 1} of the pooled sample; a "
                    f"kernel must give finite similarities (kernel={self.kernel!r})."
                )
            yield rows, K

    @_fit_context(prefer_skip_nested_validation=False)
    @_with_numpy(fit=True)
    def fit(self, X, y=None):
        """Compute the statistic, its null distribution and the p-value.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m, n_features) or (N, n_features)
            The first sample, or the pooled sample when ``y`` is 1-D labels.
        y : {array-like, sparse matrix} of shape (n, n_features) or (N,)
            The second sample Y, or labels of exactly two classes for the rows of
            ``X`` (the smaller label marks the first sample). ``fit(pooled,
            labels)`` gives results identical to ``fit(pooled[labels == a],
            pooled[labels == b])``: the samples are the rows of each class in
            their order in ``X``. A dense ``y`` of shape ``(N, 1)`` with the
            rows of ``X`` is a column vector of labels when ``X`` has more than
            one feature (as a second sample its number of features would not
            match): it is raveled with a ``DataConversionWarning``. With one
            feature, a 2-D ``y`` is always the second sample.

        Returns
        -------
        self : object
            Fitted test.
        """
        if _dask.is_dask(X):
            if self.transformer is None:
                raise TypeError(
                    "The exact test (transformer=None) is quadratic and takes "
                    "in-memory arrays; give a transformer to test dask arrays."
                )
            X, Y = _dask.two_samples(self, X, y)
            classes = None
        else:
            X, Y, classes = self._two_samples(X, y, reset=True)
        self.classes_ = np.array([0, 1]) if classes is None else classes
        m, n = _streaming.n_rows(X), _streaming.n_rows(Y)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.int32).max)
        self._stream = None
        if self.transformer is not None:
            self.bandwidth_ = None
            self.transformer_ = clone(self.transformer).fit(self._fit_rows(X, Y, seed))
            return self._fit_stream(X, Y, [self.transformer_], seed)
        xp, _ = _array_api.namespace(X)
        if xp is not None:  # the quadratic exact test computes with NumPy
            X, Y = _array_api.to_numpy(X, xp), _array_api.to_numpy(Y, xp)
        pooled = _stack(X, Y)
        self.transformer_ = None
        self.bandwidth_ = (
            median_bandwidth(
                pooled,
                random_state=rng,
                metric="manhattan" if self.kernel == "laplacian" else "euclidean",
            )
            if isinstance(self.bandwidth, str)
            else float(self.bandwidth)
        )
        self.resample_unit_ = 1
        self._samples = (X, Y)
        self.n_samples_x_, self.n_samples_y_ = m, n
        self._set_results(
            [_calibration._KernelSums(pooled, self._kernel_rows)], m, n, seed
        )
        self.witness_weights_ = None
        return self

    def _input_transformers(self):
        return None if self.transformer is None else [self.transformer]

    def _streams(self):
        # The exact test is quadratic: it needs every point at once.
        return self.transformer is not None

    def _prefit_transformers(self):
        return _prefit([self.transformer])

    def _fit_transformers(self, pooled, rng, prefit=None):
        """The fitted maps (``prefit``: fitted copies to use as they are)."""
        self.transformer_ = prefit[0] if prefit else clone(self.transformer).fit(pooled)
        self.bandwidth_ = None
        return [self.transformer_]

    def _set_results(self, sums, m, n, seed):
        if self.verbose:
            print(
                f"MMDTest: m={m}, n={n}, {self.calibration} with "
                f"{self.n_resamples} resamples, unit={self.resample_unit_}"
            )
        observed, null, tolerance = _calibration.resampled_statistics(
            sums[0],
            m,
            n,
            statistic=self.statistic,
            method=self.calibration,
            n_resamples=self.n_resamples,
            batch=self.batch,
            seed=seed,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
        )
        if isinstance(sums[0], _calibration._FeatureSums):
            self.witness_weights_ = sums[0].mean_difference(m, n)
        self.statistic_ = observed
        self.null_distribution_ = null
        self.p_value_ = float(_calibration.p_value(observed, null, tolerance))
        self.reject_ = bool(self.p_value_ <= self.alpha)
        k = int(np.floor(self.alpha * (self.n_resamples + 1) + 1e-9))
        self.threshold_ = float(np.sort(null)[::-1][k - 1]) if k >= 1 else np.inf
        self.result_ = _results.result(self, [sums[0]], m, n)

    @_with_numpy()
    def score(self, X, y=None):
        """Power criterion ``MMD2_u / sqrt(V)`` on held-out data (larger is better).

        With ``GridSearchCV(MMDTest(sampler), {"transformer__bandwidth": [...]})``
        and a pooled sample with labels of the two samples, the bandwidth is fit
        on training folds and scored on held-out folds (MMDTest is a classifier,
        so an integer or default ``cv`` is stratified: every fold holds both
        samples). Test on data not used in the selection: a p-value computed on
        the selection data is invalid.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m, n_features) or (N, n_features)
            First sample, or pooled sample when ``y`` holds labels.
        y : {array-like, sparse matrix} of shape (n, n_features) or (N,)
            Second sample, or labels of two classes.

        Returns
        -------
        criterion : float
            See :func:`skmmd.mmd.power_criterion`.
        """
        check_is_fitted(self)
        X, Y, _ = self._two_samples(X, y, reset=False)
        if self.transformer_ is None:
            return _power_criterion_exact(X, Y, self._kernel_function())
        Z_x, Z_y = self.transformer_.transform(X), self.transformer_.transform(Y)
        xp, _ = _array_api.namespace(Z_x)
        if xp is not None:  # the criterion is a few sums, on the host
            Z_x, Z_y = _array_api.to_numpy(Z_x, xp), _array_api.to_numpy(Z_y, xp)
        return power_criterion(Z_x, Z_y)

    @_with_numpy()
    def witness(self, X):
        """Witness function: where the first sample has more mass than the second.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_points, n_features)
            Points where the witness is evaluated.

        Returns
        -------
        values : ndarray of shape (n_points,)
            ``mean_i k(x, x_i) - mean_j k(x, y_j)`` (with the approximate kernel
            ``z(x)^T z(y)`` when there is a transformer): positive where X is
            denser than Y.
        """
        check_is_fitted(self)
        X = _inputs.points(self, X, **self._input_options())
        xp, device = _array_api.namespace(X)
        if xp is not None and self.transformer_ is not None:  # on X's device
            Z = _array_api.float64(self.transformer_.transform(X), xp, device)
            return Z @ _array_api.from_numpy(self.witness_weights_, xp, device)
        if self.transformer_ is not None:
            return np.asarray(
                self.transformer_.transform(X) @ self.witness_weights_
            ).ravel()
        kfun = self._kernel_function()
        S_x, S_y = self._samples
        out = np.empty(X.shape[0])
        block = max(1, _BLOCK_ENTRIES // (S_x.shape[0] + S_y.shape[0]))
        for rows in gen_batches(X.shape[0], block):
            out[rows] = kfun(X[rows], S_x).mean(axis=1) - kfun(X[rows], S_y).mean(
                axis=1
            )
        return out

    @_with_numpy(always=True)
    def witness_points(self, X, y=None, *, n_points=5):
        """The rows of each sample where the witness function is most extreme.

        Parameters
        ----------
        X : DataFrame or array-like of shape (m, n_features) or (N, n_features)
            The first sample, or the pooled sample when ``y`` is labels.
        y : DataFrame or array-like of shape (n, n_features) or (N,)
            The second sample, or labels of the two samples.
        n_points : int, default=5
            Rows per sample.

        Returns
        -------
        points : pandas.DataFrame
            ``sample`` ("X" or "Y"), ``row`` (position in its sample),
            ``witness``, then the row's columns: the rows of X where the
            witness is largest (X much denser there than Y), then those of Y
            where it is smallest.
        """
        check_is_fitted(self)
        X, Y, _ = self._two_samples(X, y, reset=False)
        return _explain.witness_points(self, X, Y, n_points)

    def decision_function(self, X):
        """Compute ``-witness(X)``: positive where the second sample is denser.

        The mean-embedding classifier's score, with scikit-learn's binary
        convention that positive values mean ``classes_[1]`` (sample Y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_points, n_features)
            Points to score.

        Returns
        -------
        scores : ndarray of shape (n_points,)
            ``mean_j k(x, y_j) - mean_i k(x, x_i)``, that is ``-witness(X)``.
        """
        return -self.witness(X)

    def predict(self, X):
        """Label of the sample with the larger mean kernel value at each point.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_points, n_features)
            Points to classify.

        Returns
        -------
        labels : ndarray of shape (n_points,)
            ``classes_[1]`` where ``decision_function`` is positive (Y denser
            than X), else ``classes_[0]``.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        xp, device = _array_api.namespace(scores)
        if xp is not None:  # device scores: the labels on their device
            classes = _array_api.from_numpy(self.classes_, xp, device)
            return xp.take(classes, xp.astype(scores > 0, xp.int64))
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A binary classifier (predict, decision_function), so that cv splits of
        # fit(pooled, labels) are stratified; score is still the power criterion.
        tags.estimator_type = "classifier"
        tags.input_tags.sparse = (
            True
            if self.transformer is None
            else get_tags(self.transformer).input_tags.sparse
        )
        return tags


class AggregatedMMDTest(_BaseMMDTest):
    """MMD test aggregating many kernels in one valid test, linear in N.

    Every kernel's MMD^2 is computed from its random features on the same
    permutations; the statistics are combined into one statistic whose
    permutation p-value is valid in finite samples. With one median-heuristic
    bandwidth an MMD test can have almost no power when the samples differ at
    another scale; aggregating a grid of Gaussian and Laplacian bandwidths
    adapts to it without splitting the data (Schrab et al. 2023; Biggs et al.
    2023), at ``O(B N D)`` cost for ``D`` features in all.

    Parameters
    ----------
    transformers : "auto" or list of objects with ``fit`` and ``transform``, \
            default="auto"
        Feature maps, one per kernel; each is cloned and fit on the pooled
        sample without the labels. ``"auto"``: :class:`RandomFourierSampler`
        maps for every kernel in ``kernels`` at ``n_bandwidths`` bandwidths
        from :func:`skmmd.kernels.bandwidth_grid` on the pooled sample.
    method : {"mmdagg", "fuse"}, default="mmdagg"
        ``"mmdagg"``: the smallest per-kernel permutation p-value, calibrated on
        the same permutations (each kernel tested at its own quantile, with the
        level corrected for the number of kernels, as in MMDAgg).
        ``"fuse"``: log-mean-exp of the kernels' statistics standardized over
        the permutations (a smooth maximum, as in MMD-FUSE).
    kernels : list of {"gaussian", "laplacian", "matern"}, \
            default=("gaussian", "laplacian")
        Kernels of ``transformers="auto"``.
    n_bandwidths : int, default=10
        Bandwidths per kernel with ``transformers="auto"``.
    n_components : int, default=512
        Features per kernel with ``transformers="auto"``.
    weights : {"uniform", "increasing", "decreasing", "centred"} or \
            array-like of shape (n_kernels,), default="uniform"
        Prior weight of each kernel (as in MMDAgg): with ``"mmdagg"`` a kernel
        of weight ``w`` (scaled to mean 1) is tested at ``w`` times the common
        level; with ``"fuse"`` it weighs its term of the log-mean-exp. The
        names apply MMDAgg's shapes to each kernel's bandwidth grid
        (``transformers="auto"`` only): ``"decreasing"`` favours small
        bandwidths (``w_i ~ 1/i``), ``"increasing"`` large ones, ``"centred"``
        the middle. An array gives one positive weight per kernel, in the order
        of ``kernels_``. Any fixed weights keep the p-value valid.
    statistic : {"unbiased", "biased"}, default="unbiased"
        ``MMD2_u`` or ``MMD2_b`` for every kernel.
    n_resamples : int, default=999
        Number of permutations ``B``, shared by every kernel.
    alpha : float, default=0.05
        Level of the test, in (0, 1).
    resample_unit : "auto" or int, default="auto"
        Rows permuted together, as in :class:`MMDTest` (the cost counts the
        features of all kernels).
    batch : int, default=None
        Permutations per matrix product; the results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Controls the permutations and, with ``transformers="auto"``, the random
        features and the bandwidth-grid subsample. Pass an int for reproducible
        output across multiple function calls.
    n_jobs : int, default=None
        Threads computing batches of permutations; the results do not depend
        on it.
    verbose : int, default=0
        Progress messages when positive.

    Attributes
    ----------
    statistic_ : float
        The aggregated statistic (larger is more evidence): ``-log`` of the
        smallest per-kernel p-value (``"mmdagg"``), or the fused statistic.
    p_value_ : float
        ``(1 + #{b : S_b >= S}) / (B + 1)`` for the aggregated statistic.
    null_distribution_ : ndarray of shape (n_resamples,)
        The aggregated statistic on each permutation.
    reject_ : bool
        Whether H0 is rejected at level ``alpha``.
    statistics_ : ndarray of shape (n_kernels,)
        Each kernel's observed MMD^2.
    p_values_ : ndarray of shape (n_kernels,)
        Each kernel's own permutation p-value (not corrected for multiplicity:
        only ``p_value_`` is a valid test of H0 over all kernels).
    transformers_ : list of fitted transformers
        The fitted clones, one per kernel.
    kernels_ : list of str
        A description of each kernel, e.g. ``"gaussian(bandwidth=1.2)"``.
    weights_ : ndarray of shape (n_kernels,)
        The kernels' weights, summing to 1.
    resample_unit_ : int
        The unit size used.
    n_samples_x_ : int
        Size ``m`` of the first sample.
    n_samples_y_ : int
        Size ``n`` of the second sample.
    classes_ : ndarray of shape (2,) or None
        The two labels, when fit with labels; the first is sample X.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    MMDTest : One kernel.
    skmmd.kernels.bandwidth_grid : The default bandwidths.

    Notes
    -----
    With ``T`` the ``(B + 1) x K`` matrix of the kernels' statistics on the
    observed split and the B permutations, each aggregation is a function of
    ``T`` that treats its B + 1 rows symmetrically (ranks or standardization
    over all rows). Under H0 the rows are exchangeable, so the rank of the
    observed aggregated statistic is uniform and the p-value is valid in finite
    samples. Unlike MMDAgg's two sets of permutations and bisection, one set
    suffices.

    References
    ----------
    .. [1] A. Schrab, I. Kim, M. Albert, B. Laurent, B. Guedj and A. Gretton.
       MMD aggregated two-sample test. JMLR, 24(194):1-81, 2023.
    .. [2] F. Biggs, A. Schrab and A. Gretton. MMD-FUSE: learning and combining
       kernels for two-sample testing without data splitting. NeurIPS 2023.
    .. [3] P. H. Westfall and S. S. Young. Resampling-based multiple testing.
       Wiley, 1993.

    Examples
    --------
    >>> from skmmd import AggregatedMMDTest
    >>> from skmmd.datasets import make_mixture_of_gaussians
    >>> X, Y = make_mixture_of_gaussians(500, 500, sigma=2.0, random_state=0)
    >>> test = AggregatedMMDTest(random_state=0).fit(X, Y)
    >>> bool(test.reject_), len(test.statistics_)
    (True, 20)
    """

    _parameter_constraints: dict = {
        "transformers": [StrOptions({"auto"}), list],
        "method": [StrOptions(set(_aggregation.AGGREGATORS))],
        "kernels": [list, tuple],
        "n_bandwidths": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "weights": [StrOptions(set(_aggregation.WEIGHT_SHAPES)), "array-like"],
        **_BaseMMDTest._shared_constraints,
    }

    def __init__(
        self,
        transformers="auto",
        *,
        method="mmdagg",
        kernels=("gaussian", "laplacian"),
        n_bandwidths=10,
        n_components=512,
        weights="uniform",
        statistic="unbiased",
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.transformers = transformers
        self.method = method
        self.kernels = kernels
        self.n_bandwidths = n_bandwidths
        self.n_components = n_components
        self.weights = weights
        self.statistic = statistic
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _resolve_weights(self, n_kernels):
        """The kernels' weights, validated and scaled to sum 1."""
        if isinstance(self.weights, str):
            if self.weights == "uniform":
                return np.full(n_kernels, 1 / n_kernels)
            if not isinstance(self.transformers, str):
                raise ValueError(
                    f"weights={self.weights!r} applies to the bandwidth grids of "
                    "transformers='auto'; with a list of transformers give one "
                    "weight per transformer."
                )
            grid = _aggregation.grid_weights(self.weights, self.n_bandwidths)
            return np.tile(grid, len(self.kernels)) / len(self.kernels)
        weights = np.asarray(self.weights, dtype=np.float64)
        if weights.shape != (n_kernels,):
            raise ValueError(
                f"weights must have one entry per kernel ({n_kernels}); got shape "
                f"{weights.shape}."
            )
        if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise ValueError(
                f"weights must be finite and positive; got {weights.tolist()}."
            )
        return weights / weights.sum()

    def _auto_transformers(self, pooled, rng):
        """Random Fourier maps over each kernel's bandwidth grid (pooled data)."""
        unknown = set(self.kernels) - {"gaussian", "laplacian", "matern"}
        if unknown or not len(self.kernels):
            raise ValueError(
                "kernels must be a non-empty list of 'gaussian', 'laplacian', "
                f"'matern'; got {list(self.kernels)!r}."
            )
        transformers, names = [], []
        for kernel in self.kernels:
            metric = "manhattan" if kernel == "laplacian" else "euclidean"
            grid = bandwidth_grid(
                pooled, self.n_bandwidths, random_state=rng, metric=metric
            )
            for bandwidth in grid:
                transformers.append(
                    RandomFourierSampler(
                        kernel=kernel,
                        bandwidth=float(bandwidth),
                        n_components=self.n_components,
                        random_state=rng.randint(np.iinfo(np.int32).max),
                    )
                )
                names.append(f"{kernel}(bandwidth={bandwidth:.4g})")
        return transformers, names

    @_fit_context(prefer_skip_nested_validation=False)
    @_with_numpy(fit=True)
    def fit(self, X, y=None):
        """Compute every kernel's statistic and the aggregated p-value.

        All kernels are evaluated on the same permutations.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m, n_features) or (N, n_features)
            The first sample, or the pooled sample when ``y`` is 1-D labels.
        y : {array-like, sparse matrix} of shape (n, n_features) or \
                array-like of shape (N,)
            The second sample Y, or labels of exactly two classes for the rows
            of ``X``.

        Returns
        -------
        self : object
            Fitted test.
        """
        if _dask.is_dask(X):
            X, Y = _dask.two_samples(self, X, y)
            self.classes_ = None
        else:
            X, Y, self.classes_ = self._two_samples(X, y, reset=True)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.int32).max)
        self._stream = None
        transformers = self._fit_transformers(self._fit_rows(X, Y, seed), rng)
        return self._fit_stream(X, Y, transformers, seed)

    def _streams(self):
        return True

    def _input_transformers(self):
        return None if isinstance(self.transformers, str) else self.transformers

    def _prefit_transformers(self):
        if isinstance(self.transformers, str):
            return None
        return _prefit(self.transformers)

    def _fit_transformers(self, pooled, rng, prefit=None):
        """The fitted maps (``prefit``: fitted copies to use as they are)."""
        if isinstance(self.transformers, str):  # "auto"
            transformers, self.kernels_ = self._auto_transformers(pooled, rng)
        else:
            if not self.transformers:
                raise ValueError("transformers must be 'auto' or a non-empty list.")
            transformers = self.transformers
            self.kernels_ = [repr(t) for t in transformers]
        self.weights_ = self._resolve_weights(len(transformers))
        self.transformers_ = prefit or [clone(t).fit(pooled) for t in transformers]
        return self.transformers_

    def _set_results(self, sums, m, n, seed):
        if self.verbose:
            print(
                f"AggregatedMMDTest: m={m}, n={n}, {len(sums)} kernels, "
                f"{self.n_resamples} permutations, unit={self.resample_unit_}"
            )
        observed, null, _ = _calibration.resampled_statistics(
            sums,
            m,
            n,
            statistic=self.statistic,
            method="permutation",
            n_resamples=self.n_resamples,
            batch=self.batch,
            seed=seed,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
        )
        T = np.vstack([observed, null])
        self.statistics_ = observed
        self.p_values_ = _aggregation.per_kernel_p_values(T)[0]
        aggregated, self.p_value_ = _aggregation.aggregated_p_value(
            T, self.method, self.weights_
        )
        self.statistic_ = float(aggregated[0])
        self.null_distribution_ = aggregated[1:]
        self.reject_ = bool(self.p_value_ <= self.alpha)
        self.result_ = _results.result(self, sums, m, n)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = isinstance(self.transformers, str) or all(
            get_tags(t).input_tags.sparse for t in self.transformers
        )
        return tags
