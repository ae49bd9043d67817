"""AggregatedMMDTest: one test over several kernels, on the same permutations."""

from numbers import Integral

import numpy as np
from sklearn.utils import (
    check_random_state,
    get_tags,
)

from .._inference import _aggregation, _engines, _grids
from .._inference._base import loop_options, set_calibrated, stopping_rule
from .._inference._corrections import CORRECTIONS
from .._utils._compat import (
    Interval,
    StrOptions,
    fit_context,
)
from .._utils._streams import draw_seed
from . import _resampled, _results
from ._base import _BaseMMDTest, _prefit, _with_numpy


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
    n_resamples : int or "auto", default=999
        Number of permutations ``B``, shared by every kernel.
        ``"auto"``: drawn in batches, stopped as soon as the decision at
        ``alpha`` is known, at most 999 (a sequential Monte Carlo test, see
        :ref:`sequential`); the number drawn is ``n_resamples_used_``.
    alpha : float, default=0.05
        Level of the test, in (0, 1).
    resample_unit : "auto" or int, default="auto"
        Rows permuted together, as in :class:`MMDTest` (the cost counts the
        features of all kernels).
    block_size : None, "auto" or int, default=None
        Rows in time order: permute blocks of consecutive rows, one length
        for every kernel (``"auto"``: the longest any kernel's features
        ask for), each kernel's null corrected on its own
        (:ref:`time_ordered`). ``None``: exchangeable rows.
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
    correction : {"fwer", "fdr", "fdr_by", "none"}, default="fwer"
        How :meth:`explain` adjusts the columns' p-values: family-wise error
        (step-down maxT), false discovery rate (Benjamini-Hochberg, or
        -Yekutieli), or not at all (see :ref:`explain`).
    decision : {"combined", "table"}, default="combined"
        What ``p_value_`` and ``reject_`` decide once the column report of
        :func:`~skmmd.mmd_test` with ``explain_columns`` is attached, as in
        :class:`MMDTest`: the table and its columns together
        (``"combined"``, a union bound of the two tests, the columns tested
        in a second pass; :ref:`decision`), or the aggregated statistic
        alone (``"table"``).
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
        The aggregated statistic (larger is more evidence): ``-log`` of the
        smallest per-kernel p-value (``"mmdagg"``), or the fused statistic.
    p_value_ : float
        ``(1 + #{b : S_b >= S}) / (B + 1)`` for the aggregated statistic.
        With ``n_resamples="auto"``, the sequential p-value: at least the
        fixed test's (the same decision) when all 999 were drawn, above
        ``alpha`` and coarser when the test stopped to accept, at most
        ``alpha`` when it stopped to reject; valid (see :ref:`sequential`).
    null_distribution_ : ndarray of shape (n_resamples,)
        The aggregated statistic on each permutation.
    n_resamples_used_ : int
        Resamples drawn: ``n_resamples``, or with ``"auto"`` where the test
        stopped (the rows of ``null_distribution_``).
    reject_ : bool
        Whether H0 is rejected at level ``alpha``.
    threshold_ : float or None
        The upper ``alpha`` quantile of ``null_distribution_``; None under
        the combined decision of :func:`~skmmd.mmd_test` with
        ``explain_columns=True`` (as for :class:`MMDTest`: the table's own
        are then ``table_p_value_`` and ``table_threshold_``).
    result_ : MMDTestResult
        The same values, with the effect size ``mmd2`` of each kernel and
        their standard errors.
    statistics_ : ndarray of shape (n_kernels,)
        Each kernel's observed MMD^2.
    p_values_ : ndarray of shape (n_kernels,)
        Each kernel's own permutation p-value (not corrected for multiplicity:
        only ``p_value_`` is a valid test of H0 over all kernels).
    null_distributions_ : ndarray of shape (n_resamples, n_kernels)
        Each kernel's MMD^2 on the shared permutations (its column of the
        null that ``p_values_`` come from).
    transformers_ : list of fitted transformers
        The fitted clones, one per kernel.
    kernels_ : list of str
        A description of each kernel, e.g. ``"gaussian(bandwidth=1.2)"``.
    weights_ : ndarray of shape (n_kernels,)
        The kernels' weights, summing to 1.
    resample_unit_ : int
        The unit size used.
    block_size_ : int or None
        With ``block_size``: rows per block.
    block_scale_ : ndarray of shape (n_kernels,) or None
        With ``block_size``: each kernel's correction of its null.
    n_samples_x_ : int
        Size ``m`` of the first sample.
    n_samples_y_ : int
        Size ``n`` of the second sample.
    classes_ : ndarray of shape (2,) or None
        The two labels, when fit with labels; the first is sample X.
    n_samples_seen_ : ndarray of shape (2,)
        Rows of X and of Y that the feature map has summed (``fit`` and every
        ``partial_fit``); rows used only to fit the map are not counted.
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
        "method": [StrOptions({"mmdagg", "fuse"})],
        "kernels": [list, tuple],
        "n_bandwidths": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "weights": [StrOptions(set(_aggregation.WEIGHT_SHAPES)), "array-like"],
        "correction": [StrOptions(set(CORRECTIONS))],
        "decision": [StrOptions({"combined", "table"})],
        **_BaseMMDTest._shared_constraints,
        **_BaseMMDTest._train_constraints,
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
        block_size=None,
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        correction="fwer",
        decision="combined",
        train_size=None,
    ):
        self.transformers = transformers
        self.method = method
        self.kernels = kernels
        self.n_bandwidths = n_bandwidths
        self.n_components = n_components
        self.weights = weights
        self.correction = correction
        self.decision = decision
        self.statistic = statistic
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.block_size = block_size
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.train_size = train_size

    def _resolve_weights(self, n_kernels):
        """The kernels' weights, validated and scaled to sum 1."""
        grids = isinstance(self.transformers, str)
        return _aggregation.resolved_weights(
            self.weights,
            n_kernels,
            self.n_bandwidths,
            (lambda grid: np.tile(grid, len(self.kernels)) / len(self.kernels))
            if grids
            else None,
            "kernel",
            "with a list of transformers give one weight per transformer.",
        )

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
            maps, grid = _grids.bandwidth_maps(
                pooled, self.n_bandwidths, self.n_components, rng, kernel
            )
            transformers += maps
            names += [f"{kernel}(bandwidth={b:.4g})" for b in grid]
        return transformers, names

    @fit_context(prefer_skip_nested_validation=False)
    @_with_numpy(fit=True)
    def fit(self, X, y=None):
        """Compute every kernel's statistic and the aggregated p-value.

        All kernels are evaluated on the same permutations, when a result is
        first read (as for :meth:`MMDTest.fit`).

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
        engine = _engines.engine_for(X)
        X, Y, self.classes_ = engine.samples(self, X, y, validate=self._two_samples)
        rng = check_random_state(self.random_state)
        seed = draw_seed(rng)
        self._stream = None
        fit_rows, labels, X, Y = self._training_part(engine, X, Y, seed)
        transformers = self._fit_transformers(fit_rows, rng, labels=labels)
        return self._fit_stream(engine, X, Y, transformers, seed)

    _numbers_only = (
        "the grid of bandwidths (transformers='auto', or mmd_test's "
        "aggregate=True) takes numeric columns only; give transformers a list "
        "of maps that encode them, e.g. [TabularSampler(bandwidth=b) for b in "
        "(0.5, 1.0, 2.0)]."
    )

    def _streams(self):
        return True

    def _input_transformers(self, X=None):
        return None if isinstance(self.transformers, str) else self.transformers

    def _prefit_transformers(self):
        if isinstance(self.transformers, str):
            return None
        return _prefit(self.transformers)

    def _fit_transformers(self, pooled, rng, prefit=None, labels=None):
        """The fitted maps (``prefit``: fitted copies to use as they are)."""
        if isinstance(self.transformers, str):  # "auto"
            transformers, self.kernels_ = self._auto_transformers(pooled, rng)
        else:
            if not self.transformers:
                raise ValueError("transformers must be 'auto' or a non-empty list.")
            transformers = self.transformers
            self.kernels_ = [repr(t) for t in transformers]
        self.weights_ = self._resolve_weights(len(transformers))
        self.transformers_ = prefit or [
            self._fit_map(t, pooled, labels) for t in transformers
        ]
        return self.transformers_

    def _checked_map(self):
        return len(self.transformers_) // 2  # the middle of a grid

    def _set_results(self, sums, m, n, seed):
        if self.verbose:
            print(
                f"AggregatedMMDTest: m={m}, n={n}, {len(sums)} kernels, "
                f"{self.n_resamples} permutations, unit={self.resample_unit_}"
            )
        # An aggregated statistic depends on every resample drawn (see
        # AggregatedRule).
        rule = stopping_rule(self, aggregated=True)
        sums, scales = self._blocked_sums(sums, len(sums))
        self.block_scale_ = None if self.block_size is None else np.array(scales)
        observed, null, _ = _resampled.resampled_statistics(
            sums,
            m,
            n,
            statistic=self.statistic,
            method="permutation",
            null_scale=np.array(scales),
            **loop_options(
                self, seed, rule, _aggregation.p_value_of(self.method, self.weights_)
            ),
        )
        statistic, null, p_value = _aggregation.aggregated_results(self, observed, null)
        set_calibrated(self, statistic, null, p_value, rule)
        self.result_ = _results.result(self, sums, m, n)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = isinstance(self.transformers, str) or all(
            get_tags(t).input_tags.sparse for t in self.transformers
        )
        return tags
