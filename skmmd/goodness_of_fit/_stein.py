"""KernelSteinTest: does a sample come from a model known by its score? The
kernel Stein discrepancy at linear cost, on the one pipeline and the one
calibration loop (the shared work in :mod:`._base`)."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils import get_tags

from .._inference._base import loop_options, set_calibrated, stopping_rule
from .._inference._calibration import p_value
from .._utils import _budgets, _streams
from .._utils._compat import HasMethods, Interval, StrOptions, is_fitted
from ..kernel_approximation import RandomFourierSampler
from ..statistics._stein import GramParts, gaussian_stein_gram
from ._base import LOOP_CONSTRAINTS, BaseSteinTest


class KernelSteinTest(BaseSteinTest):
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
        rows, or give the family. A family is tested as a composite null,
        "does some member fit?": an unfrozen continuous ``scipy.stats`` law
        (``scipy.stats.norm``; ``multivariate_normal``) or an unfitted
        estimator with ``fit`` and ``sample`` (``GaussianMixture(3)``,
        ``BayesianGaussianMixture``, Gaussian ``KernelDensity``) is fit to
        the rows (``model_``) and calibrated by a parametric bootstrap that
        refits it on every resample (see :ref:`goodness_of_fit`); with
        ``train_size`` it is fit on the training part and tested as fixed.
    transformer : "auto", None, RandomFourierSampler or LearnedFourierSampler, \
default="auto"
        The features. ``"auto"``: a :class:`RandomFourierSampler` of the
        Gaussian kernel at ``bandwidth`` with ``n_frequencies`` frequencies.
        Another kernel's sampler (``kernel="laplacian"`` or ``"matern"``)
        with ``feature="cos_sin"`` works the same way. A
        :class:`LearnedFourierSampler` (an even ``n_components``) is fit with
        ``train_size`` on the training part for the power of this test (its
        length scales, one per column: see :ref:`goodness_of_fit`). ``None``:
        the exact Gaussian kernel (quadratic).
    bandwidth : "auto", "median" or float, default="auto"
        Bandwidth of the Gaussian kernel of ``"auto"`` and ``None``:
        ``"median"`` is the median distance of ``2**16`` random pairs of rows
        (:func:`~skmmd.kernels.median_bandwidth`). ``"auto"``: the median for
        a fixed law; for a family fit to the rows, twice the median (a fit
        matches the law's lowest-order features, so what is left of a
        misfit is in tails and skewness, which a wider kernel weighs more).
        With ``transformer="auto"``, a location-scale family on the line
        (one column) adds a Gaussian kernel of bandwidth 0.5 on the rows'
        probability-integral transform (see :ref:`composite_null`).
    n_frequencies : int, default=128
        Frequencies of ``"auto"``, each giving a cosine and a sine feature;
        the Stein features number ``2 n_frequencies d`` (half of them each
        kernel's where a kernel on the probability-integral transform is
        added: see ``bandwidth``).
    n_resamples : int or "auto", default="auto"
        Bootstrap draws ``B``. ``"auto"``: drawn in batches, stopped as soon
        as the decision at ``alpha`` is known, at most 999 (see
        :ref:`sequential`). It is this family's default, where the other
        families draw 999: a family's resample draws, refits and maps ``n``
        rows (not a multiplier draw over sums already made), so stopping
        once the decision is known is most of the test's speed.
    alpha : float, default=0.05
        Level of the test.
    resample_unit : "auto" or int, default="auto"
        Rows per resampling unit. ``"auto"``: 1 while the bootstrap's ``B x n
        x D d`` multiply-adds and the unit sums stay within budget and there
        are at most 1024 units, else the smallest power of two that brings
        them there.
    block_size : None, "auto" or int, default=None
        For rows in time order (an MCMC chain, a sensor's readings): one
        multiplier per block of this many consecutive rows (a dependent
        wild bootstrap), so that the p-value holds when neighbouring rows
        depend on each other; ``"auto"`` chooses the length from the Stein
        features. ``None``: independent rows (:ref:`time_ordered`).
    chain_axis : {"auto", 0, 1}, default="auto"
        The axis of a 3-D array of MCMC chains (see :meth:`fit`) that
        indexes the chains: 0 for ``(chains, draws, d)`` (PyMC, NumPyro,
        Stan), 1 for ``(draws, chains, d)`` (emcee's ``get_chain()``).
        ``"auto"``: the shorter of the first two axes (chains are few, draws
        many) when the other is more than twice as long; closer ones raise a
        ValueError that asks for it (see Notes). ArviZ ``InferenceData`` and
        xarray posteriors are read by their ``chain`` and ``draw`` dims, and
        2-D rows have no chains: neither reads it.
    batch : int, default=None
        Draws per batch (``None``: bounded to about 2^23 entries).
    random_state : int, RandomState instance or None, default=None
        Seeds the features, the units and the signs.
    n_jobs : int, default=None
        Threads computing batches of draws.
    verbose : int, default=0
        Progress messages.
    train_size : float, int or None, default=None
        Fit ``model``, if it is an unfitted estimator (e.g.
        ``GaussianMixture(3)``; a fitted one is used as given), and a learned
        ``transformer`` on a seeded random part of the rows of this share or
        number, and test the rest: a model or a kernel fit on the rows it is
        tested on is biased towards them. ``None``: ``model`` is used as
        given. With :meth:`partial_fit` the first chunk is the training
        part.
    support : tuple of float or None, default=None
        ``(low, high)`` of the density of a score function (or of
        :func:`log_density_score`) that has a finite end, e.g. ``(0,
        np.inf)``: the rows are then tested on the line, mapped by a fixed
        bijection, against the pushforward law, as a ``scipy.stats`` law with
        a finite end is (its support read from the law); rows on or outside
        it are an error. None: the score's density lives on the whole line.
    known_params : dict or None, default=None
        Parameters of an unfrozen ``scipy.stats`` family held fixed, by name,
        as :func:`scipy.stats.goodness_of_fit` takes them (e.g. ``{"loc":
        0}`` for an exponential of unknown scale); the others are fit by the
        family's ``fit`` (maximum likelihood), on the rows and on every
        resample.
    fit_params : dict or None, default=None
        Parameters of an unfrozen ``scipy.stats`` family already fit to the
        rows (e.g. by the family's ``fit``), as
        :func:`scipy.stats.goodness_of_fit` takes them: the resamples are
        drawn from the family with these values (the rest fit to the rows
        with them held), while every statistic, the rows' and each
        resample's, refits them, starting from these values.
    guessed_params : dict or None, default=None
        Starting values of the family's ``fit``, by name, on the rows and on
        every resample (as :func:`scipy.stats.goodness_of_fit` takes them);
        the parameters stay free.

    Attributes
    ----------
    statistic_ : float
        ``T = n ||(1/n) sum_i xi(x_i)||^2``.
    p_value_ : float
        ``(1 + #{T_b >= T}) / (B + 1)`` (with ``n_resamples="auto"``, the
        sequential p-value).
    null_distribution_ : ndarray of shape (n_resamples,)
        The statistic of each bootstrap draw (for a family: of each
        resample drawn from ``model_``, against its own refit).
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
        The fitted features (None for the exact test); a learned sampler's
        ``length_scales_`` say which columns its kernel weighs most.
    resample_unit_ : int
        Rows per resampling unit (1 for the exact test).
    n_chains_ : int or None
        With MCMC chains as input: how many were tested (their draws as
        rows, chain after chain).
    block_size_ : int or None
        With ``block_size``: rows per block.
    block_scale_ : float or None
        With ``block_size``: the factor of the bootstrap statistics that
        corrects for the dependence between neighbouring blocks (at least 1).
    n_samples_ : int
        Rows tested (for a family whose support starts at its free
        location: all but the smallest row, see :ref:`composite_null`).
    n_train_ : int
        Rows the model was fit on (``train_size``; else 0), not tested.
    model_ : object
        The member of a family ``model`` fitted to the rows (a composite
        null), or to the training part (``train_size``); absent for a model
        given fitted.
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
    of the units' mean Stein feature, which has mean 0 under ``H0``. For a
    family, the parametric bootstrap draws from the fitted member, not from
    the unknown true one: its p-value is valid as the fit converges (Key,
    Fernandez, Gretton & Briol 2021), and exact for a law whose parameters
    are all known. A location-scale family is tested on the rows
    standardized by its fit, whose statistic's law is free of the location
    and scale (exact for a family without free shapes: the normal, the
    logistic); a family whose support starts at its free location, on the
    rows above the smallest shifted by it, each resample by the same
    construction (:ref:`composite_null`). The
    level is measured in ``benchmarks/bench_goodness_of_fit.py`` (see
    :ref:`bench-goodness-of-fit`). :meth:`partial_fit` fits the features on
    its first chunk (with ``bandwidth="median"`` or ``"auto"``, the
    bandwidth of that chunk) and tests every row, that chunk's too.

    A 3-D array whose first two axes are within a factor of 2 of each other
    (``(30, 40, d)``) is refused under ``chain_axis="auto"``, not warned
    about: read along the wrong axis its chains are interleaved, the blocks
    of ``block_size="auto"`` join draws of different chains out of time
    order and ``n_chains_`` counts draws, so a warning would still return an
    answer that depends on the layout, where stating ``chain_axis`` costs
    one keyword.

    References
    ----------
    .. [1] Q. Liu, J. Lee and M. Jordan. A kernelized Stein discrepancy for
       goodness-of-fit tests. ICML 2016.
    .. [2] K. Chwialkowski, H. Strathmann and A. Gretton. A kernel test of
       goodness of fit. ICML 2016.
    .. [3] J. Huggins and L. Mackey. Random feature Stein discrepancies.
       NeurIPS 2018.
    .. [4] O. Key, T. Fernandez, A. Gretton and F.-X. Briol. Composite
       goodness-of-fit tests with kernels. arXiv:2111.10275, 2021.

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
            StrOptions({"auto", "median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_frequencies": [Interval(Integral, 1, None, closed="left")],
        "known_params": [None, dict],
        "fit_params": [None, dict],
        "guessed_params": [None, dict],
        **LOOP_CONSTRAINTS,
    }

    def __init__(
        self,
        model,
        *,
        transformer="auto",
        bandwidth="auto",
        n_frequencies=128,
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
        self.transformer = transformer
        self.bandwidth = bandwidth
        self.n_frequencies = n_frequencies
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

    def _exact(self):
        return self.transformer is None

    def _learns(self):
        t = self.transformer
        return (
            t is not None
            and t != "auto"
            and get_tags(t).target_tags.required
            and not is_fitted(t)  # e.g. a FrozenEstimator: kept as is
        )

    def _samplers(self, fit_rows, train, seed, rng):
        if self.transformer == "auto":
            # With a kernel on the probability-integral transform added, the
            # two kernels share the frequencies: the test's width is kept.
            half = max(1, self.n_frequencies // 2) if self._adds_pit() else None
            sampler = RandomFourierSampler(
                bandwidth=self._bandwidth(fit_rows, seed),
                n_components=2 * (half or self.n_frequencies),
                random_state=_streams.draw_seed(rng),
            )
            self.transformer_ = sampler.fit(fit_rows)
        elif self._learns():
            if train is None:
                raise ValueError(
                    f"{type(self.transformer).__name__} learns its kernel for "
                    "power: pass train_size (e.g. train_size=0.2) to fit it on a "
                    "part of the rows held out from the test, or pass it fitted "
                    "on other data, wrapped in sklearn.frozen.FrozenEstimator."
                )
            self.transformer_ = clone(self.transformer).fit(
                np.asarray(train, dtype=np.float64), model_score=self._score
            )
        else:
            self.transformer_ = clone(self.transformer).fit(fit_rows, None)
        self.bandwidth_ = float(self.transformer_.bandwidth_)
        return [self.transformer_]

    def _fit_exact(self, X, seed):
        if X.shape[0] ** 2 > _budgets.GRAM_ENTRIES:
            raise ValueError(
                f"The exact test (transformer=None) builds an n x n matrix; n = "
                f"{X.shape[0]} is above {int(np.sqrt(_budgets.GRAM_ENTRIES))}: use "
                "the features ('auto')."
            )
        self.transformer_, self._seed = None, seed
        self.block_size_ = self.block_scale_ = None
        self.bandwidth_ = self._bandwidth(X, seed)
        H = gaussian_stein_gram(X, self._score(X), self.bandwidth_)
        self._results_of([GramParts(H)], 1)
        self.resample_unit_, self.n_samples_ = 1, X.shape[0]
        self._stale = False
        return self

    def _results_of(self, parts, unit):
        (parts,) = parts
        rule = stopping_rule(self)
        options = loop_options(self, self._seed, rule)
        observed, null, tolerance = self._resampled(parts, options)
        p = float(p_value(observed, null, tolerance))
        set_calibrated(self, float(observed), null, p, rule)
        self._set_result(parts)
