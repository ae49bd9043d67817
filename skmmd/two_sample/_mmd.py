"""MMDTest: the kernel two-sample test with one kernel."""

from numbers import Real

import numpy as np
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.validation import check_is_fitted

from .._inference import _calibration, _engines, _inputs
from .._inference._base import loop_options, set_calibrated, stopping_rule
from .._inference._corrections import CORRECTIONS
from .._inference._explain import (
    needs_pandas,
    record_decision,
    report_columns,
    second_pass_decision,
)
from .._tables._labels import is_dataframe
from .._utils import _array_api
from .._utils._compat import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    fit_context,
)
from .._utils._streams import draw_seed
from .._utils._threads import concurrently
from ..kernels import median_bandwidth
from ..statistics._exact import kernel_function, power_criterion_exact
from ..statistics._features import power_criterion
from . import _explain, _resampled, _results
from ._base import _BaseMMDTest, _prefit, _with_numpy
from ._sums import KernelSums, kernel_rows
from ._witness import WitnessClassifierMixin


def _report_maps(test, X, fit_rows, rng, table_map):
    """The maps of ``test.explain_columns``, fit on the test's ``fit_rows``,
    that share the test's stream (none without it): ``MMDTest._column_maps``."""
    test._report_maps = None
    if test.explain_columns is False:
        return []
    seed = draw_seed(rng)
    test._report_maps = _explain.column_setup(
        test, table_map, X, fit_rows, test._columns(), seed
    )
    return test._report_maps.maps


class MMDTest(WitnessClassifierMixin, _BaseMMDTest):
    """Kernel two-sample test: maximum mean discrepancy with a calibrated p-value.

    ``MMDTest().fit(X, Y)`` tests ``H0: P = Q`` from samples ``X ~ P`` and
    ``Y ~ Q``. With a feature map (the default, or any transformer) the
    statistic and every resample cost ``O(N D)``; with ``transformer=None`` the
    kernel is exact and the cost is quadratic in ``N = m + n``.
    ``MMDTest()``, :func:`~skmmd.mmd_test` and ``python -m skmmd test`` give
    the same results for the same data, seed and options
    (:ref:`defaults`).

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
    transformer : "auto", None or object with ``fit`` and ``transform``, \
            default="auto"
        Feature map ``z``; the test uses the kernel ``z(x)^T z(y)``. It is
        cloned and fit on the pooled sample without the labels, which keeps
        the permutation test exact. ``"auto"``: a :class:`~skmmd.TabularSampler`
        for DataFrames (any column types, missing values), else a
        :class:`~skmmd.RandomFourierSampler` with ``kernel``, ``bandwidth``,
        ``nu`` and ``random_state``. ``None`` is the exact kernel test with
        ``kernel``, ``bandwidth`` and ``nu``.
    kernel : {"gaussian", "laplacian", "matern"} or callable, default="gaussian"
        Kernel of the exact test (``transformer=None``) and of the ``"auto"``
        map of arrays; a callable ``kernel(A, B)`` returns the kernel matrix
        between two row blocks (exact test only). Ignored with a transformer.
    bandwidth : "median" or float, default="median"
        Bandwidth of the kernel (exact test or ``"auto"`` map); ``"median"`` is
        the median pairwise distance of (1000 points of) the pooled sample.
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
    n_resamples : int or "auto", default=999
        Number of permutations or bootstrap resamples ``B``.
        ``"auto"``: drawn in batches, stopped as soon as the decision at
        ``alpha`` is known, at most 999 (a sequential Monte Carlo test, see
        :ref:`sequential`); the number drawn is ``n_resamples_used_``.
    alpha : float, default=0.05
        Level of the test, in (0, 1): ``reject_`` is ``p_value_ <= alpha``.
    resample_unit : "auto" or int, default="auto"
        Feature path only: points of each sample that are resampled together
        as one unit, assigned to units at random (``m % unit`` points of X and
        ``n % unit`` of Y stay in their sample). ``1`` is the classical test
        that resamples single points, at cost ``O(B N D)``. Any unit size gives
        a test of exact level: the random grouping does not depend on the data
        or their order, so the units are exchangeable under the null. The power
        is the same as long as there are hundreds of units (the benchmarks
        page). ``"auto"`` uses 1 up to 512 points in all, then the smallest
        size leaving at most 512 units (and ``B N D`` within about ``1.7
        10^10`` multiply-adds, the unit sums within 256 MB), keeping at least
        100 units per sample.
    block_size : None, "auto" or int, default=None
        For rows in time order (monitoring windows, sensor readings): the
        permutations move blocks of this many consecutive rows of a sample
        (rounded up to whole units of ``resample_unit_`` rows), so that the
        p-value holds when neighbouring rows depend on each other.
        ``"auto"`` chooses the length from the rows' features; ``None``
        treats rows as exchangeable (see :ref:`time_ordered`).
    batch : int, default=None
        Resamples per matrix product (memory ``O(batch x units)``); ``None``
        keeps a batch to about ``2**23`` entries. The results do not depend on
        it.
    random_state : int, RandomState instance or None, default=None
        Controls the resamples, the ``"auto"`` map's features (it gets this
        ``random_state``) and the subsample of the exact test's median
        heuristic. Pass an int for reproducible output across multiple function
        calls. A given transformer's own ``random_state`` controls its features.
    n_jobs : int, default=None
        Threads computing batches of resamples in parallel. The resamples are
        drawn in one thread in a fixed order, so the results do not depend on
        it. ``None`` means 1 unless in a :obj:`joblib.parallel_backend` context.
    verbose : int, default=0
        Progress messages of the calibration when positive.
    explain_columns : bool, list or dict, default=False
        Also test every column (``True``), or the column groups given (see
        :meth:`explain`): the report is ``column_report_``. With a feature
        map the columns' unit sums are summed in the same pass over the data
        as the test's, also with ``partial_fit`` and dask input (the unit
        sums of all columns held at once); the exact test
        (``transformer=None``) has no unit sums and tests the columns in a
        second pass over the rows in memory. The automatic
        ``resample_unit`` is the widest single kernel's (see :ref:`explain`).
    correction : {"fwer", "fdr", "fdr_by", "none"}, default="fwer"
        How :meth:`explain` adjusts the columns' p-values: family-wise error,
        false discovery rate (BH, or BY), or not at all (:ref:`explain`).
    decision : {"combined", "table"}, default="combined"
        What ``p_value_`` and ``reject_`` decide with ``explain_columns``.
        ``"combined"``: the table's statistic and its most changed column
        together (min-p over the two on the same permutations; a union bound
        where the columns need a second pass), at level ``alpha``; a column
        flagged in ``column_report_`` always goes with a rejection, and none
        is flagged without one (:ref:`decision`). ``"table"``: the table's
        statistic alone, as without ``explain_columns``.
    train_size : float, int or None, default=None
        Fit the map(s) with the labels on a stratified random part of the
        pooled sample (a fraction in (0, 1) or a number of rows, as in
        :func:`~sklearn.model_selection.train_test_split`) and test only the
        rest, so that a map learned for power, such as
        :class:`~skmmd.LearnedFourierSampler`, gives a valid p-value; the
        number of training rows is ``n_train_``. With ``partial_fit`` the
        first chunk is the training part. ``None``: maps are fit on the pooled
        sample without labels and every row is tested.

    Attributes
    ----------
    statistic_ : float
        Observed MMD^2.
    p_value_ : float
        ``(1 + #{b : T_b >= T}) / (B + 1)``, in ``[1 / (B + 1), 1]``.
        With ``n_resamples="auto"``, the sequential p-value: at least the
        fixed test's (the same decision) when all 999 were drawn, above
        ``alpha`` and coarser when the test stopped to accept, at most
        ``alpha`` when it stopped to reject; valid (see :ref:`sequential`).
        With ``explain_columns`` (and ``decision="combined"``), the
        decision's p-value over the table and its columns.
    table_p_value_ : float
        The p-value of the table's statistic alone (``p_value_`` without
        ``explain_columns`` or with ``decision="table"``).
    null_distribution_ : ndarray of shape (n_resamples,)
        The resampled statistics ``T_b``.
    n_resamples_used_ : int
        Resamples drawn: ``n_resamples``, or with ``"auto"`` where the test
        stopped (the rows of ``null_distribution_``).
    threshold_ : float or None
        ``statistic_`` above it means rejection: the
        ``floor(alpha (B + 1))``-th largest value of the null distribution
        (``inf`` if ``alpha (B + 1) < 1``, when no p-value can reach alpha).
        None with ``explain_columns`` and ``decision="combined"``: the
        verdict then combines the table with its columns, and no threshold
        of ``statistic_`` alone makes it.
    table_threshold_ : float
        The threshold of the table's statistic alone (``threshold_`` when the
        table's test decides).
    reject_ : bool
        Whether H0 is rejected at level ``alpha``.
    result_ : MMDTestResult
        The same values, with the effect size ``mmd2`` (an unbiased estimate
        of the kernel's MMD^2, the same quantity at any ``n`` and resampling
        unit) and its standard error and confidence interval.
    transformer_ : object or None
        The fitted clone of ``transformer``.
    bandwidth_ : float or None
        Bandwidth of the exact test's kernel (None with a transformer).
    resample_unit_ : int
        The unit size used (1 for the exact test).
    block_size_ : int or None
        With ``block_size``: rows per block.
    block_scale_ : float or None
        With ``block_size``: the factor of the resampled statistics that
        corrects the blocks' null for the dependence between neighbouring
        blocks (1 when none is found).
    column_report_ : pandas.DataFrame
        With ``explain_columns``: the report of :meth:`explain`, also
        ``result_.column_report``.
    witness_weights_ : ndarray of shape (n_features_out,) or None
        ``s_x / m - s_y / n``, the mean feature difference (feature path).
    n_samples_x_ : int
        Size ``m`` of the first sample.
    n_samples_y_ : int
        Size ``n`` of the second sample.
    classes_ : ndarray of shape (2,)
        The two labels of ``fit(pooled, labels)`` (sorted; the first marks
        sample X), or ``[0, 1]`` for ``fit(X, Y)``: the labels of ``predict``.
    n_samples_seen_ : ndarray of shape (2,)
        Rows of X and of Y that the feature map has summed (``fit`` and every
        ``partial_fit``); rows used only to fit the map are not counted.
        Absent for the exact test, which streams nothing.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    skmmd.statistics.mmd2_features : The statistic from features.
    skmmd.statistics.power_criterion : The criterion returned by ``score``.
    MMDTest.witness : The witness function behind ``decision_function``.
    scipy.stats.permutation_test : Generic permutation tests.

    Notes
    -----
    With pooled features ``Z`` and a ``B x N`` matrix ``A`` of resample counts,
    every resampled sum ``S_x = A Z`` is one matrix product, and the statistic of
    each resample follows from ``||S_x||^2``, ``S_x^T S_y`` and ``A ||z_i||^2``
    (see :func:`skmmd.statistics.mmd2_features`). The exact test does the same with the
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
    >>> test = MMDTest(random_state=0).fit(X, Y)
    >>> test.p_value_
    0.001
    >>> bool(test.reject_)
    True
    >>> test.transformer_
    RandomFourierSampler(random_state=0)

    The witness classifier: X is denser on the left (class 0), Y on the right.

    >>> test.predict([[-1.0, 0.0], [2.0, 0.0]])
    array([0, 1])
    """

    _parameter_constraints: dict = {
        "transformer": [None, StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "kernel": [StrOptions({"gaussian", "laplacian", "matern"}), callable],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "nu": [Options(Real, {0.5, 1.5, 2.5})],
        "calibration": [StrOptions({"permutation", "bootstrap"})],
        "explain_columns": ["boolean", list, dict],
        "correction": [StrOptions(set(CORRECTIONS))],
        "decision": [StrOptions({"combined", "table"})],
        **_BaseMMDTest._shared_constraints,
        **_BaseMMDTest._train_constraints,
    }

    def __init__(
        self,
        transformer="auto",
        *,
        kernel="gaussian",
        bandwidth="median",
        nu=1.5,
        statistic="unbiased",
        calibration="permutation",
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        block_size=None,
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        explain_columns=False,
        correction="fwer",
        decision="combined",
        train_size=None,
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
        self.block_size = block_size
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.explain_columns = explain_columns
        self.correction = correction
        self.decision = decision
        self.train_size = train_size

    def _kernel_function(self):
        return kernel_function(self.kernel, self.bandwidth_, self.nu)

    @fit_context(prefer_skip_nested_validation=False)
    @_with_numpy(fit=True)
    def fit(self, X, y=None):
        """Compute the statistic, its null distribution and the p-value.

        With a transformer, the resampling runs when a result (``p_value_``,
        ``statistic_``, ``result_``, ...) is first read, once: a fit whose
        results are never read, such as a ``GridSearchCV`` candidate scored by
        :meth:`score`, costs the features and unit sums only. The results are
        those of the same seed whenever they are read.

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
        engine = _engines.engine_for(X)
        if self.explain_columns is not False:
            needs_pandas("explain_columns")
        _check_exact(self, engine)
        given = (X, y)  # the exact test's report takes the samples as given
        X, Y, classes = engine.samples(self, X, y, validate=self._two_samples)
        self.classes_ = np.array([0, 1]) if classes is None else classes
        m, n = engine.n_rows(X), engine.n_rows(Y)
        rng = check_random_state(self.random_state)
        seed = draw_seed(rng)
        self._stream = None
        if self.transformer is not None:
            self.bandwidth_ = None
            fit_rows, labels, X, Y = self._training_part(engine, X, Y, seed)
            table_map = self._map(X)
            # With a report, the table's map and the columns' maps fit side
            # by side (own seeds; the columns' need only the map's class).
            self.transformer_, columns = concurrently(
                lambda: self._fit_map(table_map, fit_rows, labels),
                lambda: self._column_maps(X, fit_rows, rng, table_map),
                threads=self.explain_columns is not False,
            )
            del fit_rows, labels  # the pooled rows, held no longer than the fit
            return self._fit_stream(engine, X, Y, [self.transformer_, *columns], seed)
        # The quadratic exact test computes with NumPy.
        X, Y = engine.rows.to_host(X), engine.rows.to_host(Y)
        return _fit_exact(self, X, Y, m, n, seed, rng, given)

    _numbers_only = (
        "the exact kernel (transformer=None) takes numeric columns only; the "
        "default transformer='auto' (a TabularSampler) encodes text, categories "
        "and datetimes."
    )

    def _columns(self):
        return report_columns(self.explain_columns)

    _column_maps = _report_maps

    def _map(self, X=None):
        return _unfitted_map(self, X)

    def _input_transformers(self, X=None):
        return None if self.transformer is None else [self._map(X)]

    def _streams(self):
        # The exact test is quadratic: it needs every point at once.
        return self.transformer is not None

    def _prefit_transformers(self):
        if isinstance(self.transformer, str):
            return None
        return _prefit([self.transformer])

    def _fit_transformers(self, pooled, rng, prefit=None, labels=None):
        """The fitted maps (``prefit``: fitted copies to use as they are)."""
        self.transformer_ = (
            prefit[0] if prefit else self._fit_map(self._map(pooled), pooled, labels)
        )
        self.bandwidth_ = None
        if prefit and self.explain_columns is not False:
            raise ValueError(
                "explain_columns fits a map per column on the first chunk, held "
                "out of the statistic: pass an unfitted transformer to partial_fit."
            )
        columns = self._column_maps(pooled, pooled, rng, self.transformer_)
        return [self.transformer_, *columns]

    def _set_results(self, sums, m, n, seed):
        _calibrate_table(self, sums, m, n, seed)

    @_with_numpy(results=False)  # the criterion needs no calibration
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
            See :func:`skmmd.statistics.power_criterion`.
        """
        check_is_fitted(self)
        X, Y, _ = self._two_samples(X, y, reset=False)
        if self.transformer_ is None:
            return power_criterion_exact(X, Y, self._kernel_function())
        Z_x, Z_y = self.transformer_.transform(X), self.transformer_.transform(Y)
        xp, _ = _array_api.namespace(Z_x)
        if xp is not None:  # the criterion is a few sums, on the host
            Z_x, Z_y = _array_api.to_numpy(Z_x, xp), _array_api.to_numpy(Z_y, xp)
        return power_criterion(Z_x, Z_y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A binary classifier (predict, decision_function), so that cv splits of
        # fit(pooled, labels) are stratified; score is still the power criterion.
        tags.estimator_type = "classifier"
        tags.input_tags.sparse = (
            True
            if self.transformer is None
            else get_tags(self._map()).input_tags.sparse
        )
        return tags


def _check_exact(test, engine):
    """The exact test's refusals, before any work: ``block_size`` (it has
    no unit sums to resample in blocks) and lazy (dask) arrays."""
    if test.transformer is None and test.block_size is not None:
        raise ValueError(
            f"block_size={test.block_size!r} resamples blocks of the unit sums "
            "of a feature map; the exact test (transformer=None) has none: use "
            "a transformer (e.g. the default 'auto')."
        )
    if engine.lazy and test.transformer is None:
        raise TypeError(
            "The exact test (transformer=None) is quadratic and takes "
            "in-memory arrays; give a transformer to test dask arrays."
        )


def _fit_exact(test, X, Y, m, n, seed, rng, given):
    """The exact test's fit on the host samples ``X`` and ``Y``: the median
    or given bandwidth, the Gram's blocks in the one calibration loop, the
    columns' report in a second pass in memory, on the inputs ``given`` to
    ``fit`` (a DataFrame's columns by name, not the kernel's array of
    numbers)."""
    pooled = _inputs.stack(X, Y)
    test.transformer_ = None
    test.bandwidth_ = (
        median_bandwidth(
            pooled,
            random_state=rng,
            metric="manhattan" if test.kernel == "laplacian" else "euclidean",
        )
        if isinstance(test.bandwidth, str)
        else float(test.bandwidth)
    )
    test.resample_unit_ = 1
    test.block_size_ = test.block_scale_ = None
    test._samples = (X, Y)
    test.n_samples_x_, test.n_samples_y_ = m, n
    test._report_maps = None
    kernel = test._kernel_function()
    sums = KernelSums(pooled, lambda P: kernel_rows(kernel, P, test.kernel))
    test._set_results([sums], m, n, seed)
    test.witness_weights_ = None
    if test.explain_columns is not False:  # a second pass, in memory
        report = test.explain(*given, columns=test._columns())
        second_pass_decision(test, report)
    return test


def _calibrate_table(test, sums, m, n, seed):
    """Calibrate the table's statistic (on the same permutations as its
    columns' where the decision combines them) and set the results."""
    if test.verbose:
        print(
            f"MMDTest: m={m}, n={n}, {test.calibration} with "
            f"{test.n_resamples} resamples, unit={test.resample_unit_}"
        )
    rule = stopping_rule(test)
    (blocked,), (scale,) = test._blocked_sums(sums[:1], 1)
    test.block_scale_ = None if test.block_size is None else scale
    test.__dict__.pop("column_report_", None)  # of an earlier fit
    columns = getattr(test, "_report_maps", None)
    # The table and its columns on the same permutations (a bootstrap's
    # resamples are not the columns' permutations: the union bound).
    joint = bool(columns) and test.decision == "combined"
    joint = joint and test.calibration == "permutation"
    if joint:
        observed, null, p_value, table_p, rule, report = _explain.joint(
            test, blocked, scale, columns, sums[1:], m, n, seed
        )
    else:
        observed, null, tolerance = _resampled.resampled_statistics(
            blocked,
            m,
            n,
            statistic=test.statistic,
            method=test.calibration,
            null_scale=scale,
            **loop_options(test, seed, rule),
        )
        p_value = table_p = float(_calibration.p_value(observed, null, tolerance))
    set_calibrated(test, observed, null, p_value, rule)
    test.result_ = _results.result(test, [blocked], m, n)
    test.table_p_value_, test.table_threshold_ = test.p_value_, test.threshold_
    if joint:
        record_decision(test, report, test.p_value_, table_p)
        return
    if not columns:
        return
    report = _explain.report_from_sums(test, columns, sums[1:], m, n, seed)
    second_pass_decision(test, report)


def _unfitted_map(test, X=None):
    """The unfitted feature map of ``test``: its ``transformer``, or the
    ``"auto"`` map of ``X``'s kind (None: of arrays)."""
    if not isinstance(test.transformer, str):
        return test.transformer
    _inputs.check_numbers(X)
    return _inputs.auto_transformer(
        is_dataframe(X),
        test.random_state,
        kernel=test.kernel,
        bandwidth=test.bandwidth,
        nu=test.nu,
    )
