"""AggregatedKernelSteinTest: the kernel Stein discrepancy over a grid of
bandwidths on the same bootstrap signs, one valid p-value (KSDAgg's min-p or
the smooth maximum of MMD-FUSE), at linear cost."""

from numbers import Integral

import numpy as np
from sklearn.base import clone

from .._inference import _aggregation, _grids
from .._inference._base import loop_options, set_calibrated, stopping_rule
from .._utils._compat import Interval, StrOptions
from ..statistics._mean_norm import StackedParts
from ._base import LOOP_CONSTRAINTS, BaseSteinTest
from ._mixtures import mixture_views
from ._models import mixture_of


class AggregatedKernelSteinTest(BaseSteinTest):
    """Kernel Stein goodness-of-fit test aggregated over bandwidths.

    Tests ``H0: the rows of X are drawn from the model`` as
    :class:`KernelSteinTest`, with the kernel Stein discrepancy of Gaussian
    kernels at several bandwidths (a grid spanning the rows' pairwise
    distances) computed on the same bootstrap signs, and their p-values
    combined into one valid p-value (KSDAgg, Schrab, Guedj & Gretton 2022:
    the smallest per-kernel p-value calibrated on the shared draws; or the
    smooth maximum of MMD-FUSE, Biggs et al. 2023). A misfit at a scale far
    from the median distance, which one bandwidth sees late, is seen by the
    grid's kernel at that scale, at the price of a smaller correction. Every
    kernel's features go through the same pipeline pass; cost ``O(n K D d)``
    for ``K`` bandwidths.

    For a Gaussian mixture the grid is also applied on views of the rows:
    the leading principal subspaces of the model's covariance, where its
    components differ, the rows and the model's score projected on each
    (``views``). A misfit in a few of many coordinates (a component missing
    from a plane, the other coordinates noise), which the kernels on every
    coordinate see through every coordinate's noise, is seen there alone.

    Parameters
    ----------
    model : object
        The model tested, as its score, or a family fit to the rows and
        refit on every resample (a composite null; see
        :class:`KernelSteinTest`).
    transformers : "auto" or list of RandomFourierSampler, default="auto"
        The kernels. ``"auto"``: :class:`RandomFourierSampler` of the
        Gaussian kernel at each of ``n_bandwidths`` bandwidths of the rows'
        grid (:func:`~skmmd.kernels.bandwidth_grid`), ``n_frequencies`` each.
        A list: samplers with ``feature="cos_sin"`` (fit on the rows).
    views : "auto" or None, default="auto"
        Views the grid of ``transformers="auto"`` is also applied on.
        ``"auto"``: for a Gaussian mixture (``GaussianMixture`` or
        ``BayesianGaussianMixture``, fitted or a family), its leading
        principal subspaces of each dimension ``m`` from 1 to ``min(K, d -
        1)`` (``K`` components; for a family, those of its fit to the rows,
        kept for every resample as the bandwidths are): a Gaussian kernel on
        the rows' coordinates on the subspace, with the Stein features of
        the model's score projected on it, valid as the full kernel's are
        (the Stein identity holds in any direction). None for other models
        or a list of transformers. ``None``: the grid on every coordinate
        alone.
    n_bandwidths : int, default=5
        Bandwidths of ``"auto"``.
    n_frequencies : int, default=64
        Frequencies of each kernel of ``"auto"`` (a cosine and a sine each):
        fewer than :class:`KernelSteinTest`'s 128, since the grid's kernels
        are several.
    method : {"ksdagg", "fuse"}, default="ksdagg"
        ``"ksdagg"``: the smallest per-kernel bootstrap p-value, calibrated on
        the same draws; ``"fuse"``: the log-mean-exp of the standardized
        statistics.
    weights : {"uniform", "increasing", "decreasing", "centred"} or \
            array-like, default="uniform"
        Prior weight of each kernel (as in MMDAgg; shapes over the grid of
        ``"auto"``, from small to large bandwidths).
    n_resamples : int or "auto", default="auto"
        Bootstrap draws shared by the kernels. ``"auto"`` (the default, as
        :class:`KernelSteinTest`'s): stopped when the
        decision is to accept, at most 999 (the aggregated statistic of a
        draw depends on every draw, so it cannot stop early to reject).
    alpha : float, default=0.05
        Level of the test.
    resample_unit : "auto" or int, default="auto"
        Rows per resampling unit (as :class:`KernelSteinTest`, for the
        width of all kernels together).
    block_size : None, "auto" or int, default=None
        Rows in time order: one multiplier per block of consecutive rows,
        the same blocks for every bandwidth (``"auto"``: the longest any
        bandwidth's Stein features ask for), each null corrected on its own
        (:ref:`time_ordered`). ``None``: independent rows.
    chain_axis : {"auto", 0, 1}, default="auto"
        The axis of a 3-D array of MCMC chains that indexes the chains: 0
        for ``(chains, draws, d)`` (PyMC, NumPyro, Stan), 1 for ``(draws,
        chains, d)`` (emcee); ``"auto"``: the shorter of the first two axes
        when the other is more than twice as long, else a ValueError (see
        :class:`KernelSteinTest`). ArviZ posteriors are read by their dims.
    batch : int, default=None
        Draws per batch.
    random_state : int, RandomState instance or None, default=None
        Seeds the grid, the features, the units and the signs.
    n_jobs : int, default=None
        Threads computing batches of draws.
    verbose : int, default=0
        Progress messages.
    train_size : float, int or None, default=None
        Fit ``model``, an unfitted estimator (e.g. ``GaussianMixture(3)``),
        on a seeded random part of the rows of this share or number, and
        test the rest: a model fit on the rows it is tested on is biased
        towards them. ``None``: ``model`` is used as given. With
        :meth:`partial_fit` the first chunk is the training part.
    support : tuple of float or None, default=None
        Where a score function's density lives (see :class:`KernelSteinTest`).
    known_params : dict or None, default=None
        Parameters of an unfrozen ``scipy.stats`` family held fixed (see
        :class:`KernelSteinTest`).
    fit_params : dict or None, default=None
        Parameters of an unfrozen ``scipy.stats`` family already fit to the
        rows (see :class:`KernelSteinTest`).
    guessed_params : dict or None, default=None
        Starting values of an unfrozen ``scipy.stats`` family's fit (see
        :class:`KernelSteinTest`).

    Attributes
    ----------
    statistic_ : float
        The aggregated statistic (``-log`` of the smallest per-kernel
        p-value, or the fused statistic).
    p_value_ : float
        Bootstrap p-value of the aggregated statistic.
    null_distribution_ : ndarray of shape (n_resamples,)
        The aggregated statistic of each draw.
    n_resamples_used_ : int
        Draws made.
    reject_ : bool
        ``p_value_ <= alpha``.
    threshold_ : float
        The null's upper ``alpha`` quantile.
    statistics_ : ndarray of shape (n_kernels,)
        Each kernel's ``T = n ||(1/n) sum_i xi(x_i)||^2``.
    null_distributions_ : ndarray of shape (n_resamples, n_kernels)
        Each kernel's statistic on each draw.
    p_values_ : ndarray of shape (n_kernels,)
        Each kernel's own bootstrap p-value (not corrected).
    kernels_ : list of str
        What each kernel is (and on which view).
    bandwidths_ : ndarray of shape (n_kernels,)
        The kernels' bandwidths (on their view's coordinates).
    views_ : list of ndarray of shape (n_features, m)
        The orthonormal bases of the views the grid is also applied on
        (``views``), their kernels after the grid's on every coordinate;
        empty without.
    weights_ : ndarray of shape (n_kernels,)
        The kernels' weights, summing to 1.
    transformers_ : list of RandomFourierSampler
        The fitted features of each kernel.
    result_ : KernelSteinTestResult
        The same values, with each kernel's unbiased ``ksd2`` and standard
        error (arrays, one entry per kernel).
    resample_unit_ : int
        Rows per resampling unit.
    n_chains_ : int or None
        With MCMC chains as input: how many were tested (their draws as
        rows, chain after chain).
    block_size_ : int or None
        With ``block_size``: rows per block.
    block_scale_ : ndarray of shape (n_kernels,) or None
        With ``block_size``: each bandwidth's correction of its null.
    n_samples_ : int
        Rows tested (for a family whose support starts at its free
        location: all but the smallest row, see :ref:`composite_null`).
    n_train_ : int
        Rows the model was fit on (``train_size``; else 0), not tested.
    model_ : object
        The model fitted on those rows (only with ``train_size``).
    n_features_in_ : int
        Number of columns of X.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the columns of X, when it is a DataFrame with string names.

    See Also
    --------
    KernelSteinTest : One bandwidth; the exact test.
    AggregatedMMDTest : The same aggregation for two samples.

    References
    ----------
    .. [1] A. Schrab, B. Guedj and A. Gretton. KSD aggregated goodness-of-fit
       test. NeurIPS 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skmmd import AggregatedKernelSteinTest
    >>> rng = np.random.default_rng(0)
    >>> X = rng.laplace(scale=1 / np.sqrt(2), size=(2000, 1))
    >>> test = AggregatedKernelSteinTest(stats.norm(), random_state=0).fit(X)
    >>> bool(test.reject_), len(test.kernels_)
    (True, 5)
    """

    _parameter_constraints: dict = {
        "model": "no_validation",
        "transformers": [StrOptions({"auto"}), list],
        "views": [StrOptions({"auto"}), None],
        "n_bandwidths": [Interval(Integral, 1, None, closed="left")],
        "n_frequencies": [Interval(Integral, 1, None, closed="left")],
        "method": [StrOptions({"ksdagg", "fuse"})],
        "weights": [
            StrOptions(set(_aggregation.WEIGHT_SHAPES)),
            "array-like",
        ],
        "known_params": [None, dict],
        "fit_params": [None, dict],
        "guessed_params": [None, dict],
        **LOOP_CONSTRAINTS,
    }

    _RESULTS = BaseSteinTest._RESULTS + (
        "statistics_",
        "null_distributions_",
        "p_values_",
    )

    def __init__(
        self,
        model,
        *,
        transformers="auto",
        views="auto",
        n_bandwidths=5,
        n_frequencies=64,
        method="ksdagg",
        weights="uniform",
        n_resamples="auto",
        alpha=0.05,
        resample_unit="auto",
        block_size=None,
        chain_axis="auto",
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        train_size=None,
        support=None,
        known_params=None,
        fit_params=None,
        guessed_params=None,
    ):
        self.model = model
        self.transformers = transformers
        self.views = views
        self.n_bandwidths = n_bandwidths
        self.n_frequencies = n_frequencies
        self.method = method
        self.weights = weights
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.block_size = block_size
        self.chain_axis = chain_axis
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.train_size = train_size
        self.support = support
        self.known_params = known_params
        self.fit_params = fit_params
        self.guessed_params = guessed_params

    def _samplers(self, fit_rows, train, seed, rng):
        grid = isinstance(self.transformers, str)
        self.views_, rows = [], [fit_rows]
        if grid:
            samplers, _ = _grids.bandwidth_maps(
                fit_rows, self.n_bandwidths, 2 * self.n_frequencies, rng
            )
            gm = mixture_of(self._score) if self.views == "auto" else None
            if gm is not None:
                self.views_ = mixture_views(gm)
            for basis in self.views_:  # each view's grid, seeded after the rows'
                rows.append(fit_rows @ basis)
                samplers += _grids.bandwidth_maps(
                    rows[-1], self.n_bandwidths, 2 * self.n_frequencies, rng
                )[0]
        else:
            if not self.transformers:
                raise ValueError("transformers must list at least one sampler.")
            samplers = [clone(t) for t in self.transformers]
        per_grid = len(samplers) // len(rows)
        self.transformers_ = [
            s.fit(rows[k // per_grid]) for k, s in enumerate(samplers)
        ]
        self.bandwidths_ = np.array([s.bandwidth_ for s in self.transformers_])
        self.kernels_ = [
            f"gaussian(bandwidth={b:.4g}{self._view_name(k // per_grid)})"
            for k, b in enumerate(self.bandwidths_)
        ]
        grids = len(rows)
        self.weights_ = _aggregation.resolved_weights(
            self.weights,
            len(samplers),
            self.n_bandwidths,
            (lambda w: np.tile(w, grids) / grids) if grid else None,
            "kernel",
            "with a list of transformers give one weight per kernel.",
        )
        return self.transformers_

    def _view_name(self, view):
        """How :attr:`kernels_` names the view ``view`` (0: every
        coordinate)."""
        if view == 0:
            return ""
        m = self.views_[view - 1].shape[1]
        return f", on {m} principal " + ("axes" if m > 1 else "axis")

    def _bases(self, n_maps):
        """None for each kernel of the grid on every coordinate, then each
        view's basis for its grid's kernels."""
        per_grid = n_maps // (1 + len(self.views_))
        return [None] * (n_maps - per_grid * len(self.views_)) + [
            basis for basis in self.views_ for _ in range(per_grid)
        ]

    def _results_of(self, parts, unit):
        parts = StackedParts(parts)
        # An aggregated statistic depends on every resample drawn (see
        # AggregatedRule).
        rule = stopping_rule(self, aggregated=True)
        p_of = _aggregation.p_value_of(self.method, self.weights_)
        options = loop_options(self, self._seed, rule, p_of)
        observed, null, _ = self._resampled(parts, options)
        statistic, null, p_value = _aggregation.aggregated_results(self, observed, null)
        set_calibrated(self, statistic, null, p_value, rule)
        self._set_result(parts)
