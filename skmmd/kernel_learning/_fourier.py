"""Random Fourier features of a Gaussian kernel learned for test power."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import ClassifierTags, check_random_state, gen_batches
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, column_or_1d

from .._utils import _budgets
from .._utils._compat import Interval, fit_context
from .._utils._jit import njit, prange
from .._utils._threads import one_blas_thread
from ..kernel_approximation import RandomFourierSampler
from ..kernel_approximation._base import random_phases, trig_features
from ..kernels import median_bandwidth
from ..statistics._features import power_gradient
from ._metric import MetricCriterion, best_start
from ._stein import (
    STEIN_SCALES,
    SteinCriterion,
    check_stein_fit,
    stein_rows,
)

# Fewest training points per sample: the criterion's variance estimate
# needs two pairs.
MIN_TRAIN_PER_SAMPLE = 2

# Scales of the median bandwidth tried as starting points (the criterion is
# flat in the bandwidth far from the scale at which the samples differ).
_INIT_SCALES = (0.0625, 0.125, 0.25, 0.5)

# Frequencies of the check of each learned kernel, per frequency learned on.
_CHECK_FREQUENCIES = 4


class LearnedFourierSampler(RandomFourierSampler):
    """Random Fourier features of a Gaussian kernel learned to tell two samples apart.

    ``fit(X, y)`` takes a pooled sample and its two-sample labels (like
    scikit-learn's supervised transformers) and chooses the kernel that
    maximizes the estimated power of an MMD test, the criterion
    ``J = MMD2_u / sigma_H1`` (:func:`skmmd.statistics.power_criterion`). The kernel is
    Gaussian in a learned metric,

        ``k(x, y) = exp(-||(x - y) / l||^2 / 2 - ||M (x - y)||^2 / 2)``,

    with one length scale per feature (ARD, ``l``) and a linear map ``M`` of
    ``n_directions`` rows (a low-rank Mahalanobis metric: a one-layer "deep"
    kernel, always characteristic thanks to its ARD part). Its random features
    are those of :class:`~skmmd.RandomFourierSampler` with frequencies
    ``W = diag(1 / l) W_1 + M^T W_2`` for fixed Gaussian draws ``W_1, W_2``, so
    the criterion and its gradient are explicit: every optimizer step costs
    ``O(N D d)`` time and ``O(D d)`` memory beyond the data (rows are processed
    in blocks; no ``N x N`` array).

    ``fit(X, score=score)`` learns instead the kernel of a goodness-of-fit
    test of ``X`` against a model known by its score ``grad log p``
    (:class:`~skmmd.KernelSteinTest`): the same ratio for the map's Stein
    features, the unbiased squared kernel Stein discrepancy over its
    standard deviation under the alternative (the idea of FSSD-opt,
    Jitkrittum et al. 2017, for a whole kernel instead of a few locations).

    Use it with a test that fits it on data held out from the test,
    ``MMDTest(LearnedFourierSampler(), train_size=0.5)`` or
    ``KernelSteinTest(model, transformer=LearnedFourierSampler(n_components=256),
    train_size=0.2)``: a kernel chosen on the data it tests gives an invalid
    p-value. Any transformer may precede it in a
    :class:`~sklearn.pipeline.Pipeline` (PCA, a pretrained embedding).

    Parameters
    ----------
    n_components : int, default=1024
        Number of features ``D`` (``ceil(D / 2)`` frequencies, as
        :class:`~skmmd.RandomFourierSampler` with ``feature="cos_sin"``).
    n_directions : int or None, default=0
        Rows of the linear map ``M``; ``0``: ARD length scales only (the
        default: a map has ``n_directions * n_features`` more parameters and
        overfits few training pairs where ARD finds the informative
        coordinates; see the benchmarks page);
        ``None``: ``min(n_features, 10)``.
    max_iter : int, default=100
        Most L-BFGS iterations (scipy's ``L-BFGS-B``) per run. ``0`` keeps the
        starting kernel: ARD scales all equal to a multiple of the median
        heuristic (see Notes).
    tol : float, default=1e-6
        The optimizer stops when the largest component of the criterion's
        gradient is at most ``tol`` or when an iteration improves ``J`` by less
        than ``tol`` relative to ``max(1, |J|)`` (``J`` scaled by ``max(1,
        |J_start|)``), or after ``max_iter`` iterations.
    subsample : int or None, default=10000
        Pairs of training points (one from each sample) the criterion is
        estimated on: a seeded subsample drawn once, the same at every step,
        so the optimization is deterministic; ``None`` uses every pair. It
        bounds a step's cost whatever N (the criterion's noise is about
        ``1 / sqrt(subsample)``).
    random_state : int, RandomState instance or None, default=None
        Controls the random frequencies, the starting map and the subsample.

    Attributes
    ----------
    length_scales_ : ndarray of shape (n_features,)
        The learned ARD length scales ``l``.
    components_ : ndarray of shape (n_directions, n_features)
        The learned linear map ``M``.
    metric_ : ndarray of shape (n_features, n_features)
        ``diag(1 / l^2) + M^T M``: ``k(x, y) = exp(-(x - y)^T metric_ (x - y) / 2)``.
    criterion_ : float
        ``J`` of the learned kernel's features on the training pairs (with a
        score: rows).
    initial_criterion_ : float
        ``J`` at the chosen start, on all training pairs.
    start_scale_ : float
        The chosen start: length scales ``start_scale_ * bandwidth_``.
    n_iter_ : int
        L-BFGS iterations run from the chosen start.
    bandwidth_ : float
        The median-heuristic bandwidth of the training sample.
    random_weights_ : ndarray of shape (n_features, n_frequencies)
        The frequencies ``W``.
    random_offset_ : ndarray of shape (1,) or None
        Phase of the last column when ``n_components`` is odd.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    RandomFourierSampler : The same features for a fixed isotropic kernel.
    skmmd.MMDTest : Its ``train_size`` fits a learned map on a held-out part.
    skmmd.statistics.power_criterion : The criterion maximized.

    Notes
    -----
    With paired feature differences ``d_i = z(x_i) - z(y_i)``, the criterion is
    a function of ``s = sum_i d_i``, ``sum_i ||d_i||^2`` and
    ``sum_i (d_i^T s)^2``; its gradient in ``d_i`` is a combination of ``s``,
    ``d_i`` and ``sum_k (d_k^T s) d_k`` (``skmmd.statistics._features.power_gradient``),
    carried to ``W`` through ``dz/dW`` and then to ``l`` and ``M``: three
    passes over the row blocks per step (one when the features fit in
    ``2**22`` entries per sample).
    The Stein criterion is the same function of the Stein features ``xi_i``
    in place of ``d_i`` (``skmmd.kernel_learning._stein``), carried to ``W``
    through ``dxi/dW``.

    Stopping rule and starts: the kernel's overall scale is not learned by
    gradient, because the estimated criterion rewards kernels too peaked for
    the pairs to estimate it (they fit noise). For each ``c`` in
    ``(1/16, 1/8, 1/4, 1/2)`` (with a score: ``(1/4, 1/2, 1, 2)``, around
    the median heuristic of :class:`~skmmd.KernelSteinTest`) every length
    scale starts at ``c`` times the
    median heuristic (and ``M`` at a random map of size ``0.1 / (c median)``),
    the trace of the metric is held at that start's while L-BFGS learns its
    shape, each length scale within a factor 16 of its start. The learned
    kernel kept is the one with the largest criterion computed with other
    random frequencies (four times as many) on the same pairs: a kernel that
    fits its own features to the pairs' noise scores high only with those
    features. L-BFGS stops as ``tol`` and ``max_iter`` say; a result below its
    start is discarded.
    The parameters are optimized in float64 whatever the input's dtype;
    ``transform`` keeps float32 as float32.

    References
    ----------
    .. [1] D. J. Sutherland, H.-Y. Tung, H. Strathmann, S. De, A. Ramdas,
       A. Smola and A. Gretton. Generative models and model criticism via
       optimized maximum mean discrepancy. ICLR 2017.
    .. [2] F. Liu, W. Xu, J. Lu, G. Zhang, A. Gretton and D. J. Sutherland.
       Learning deep kernels for non-parametric two-sample tests. ICML 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import LearnedFourierSampler
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> Y = rng.normal(size=(400, 3)) * [1.0, 1.0, 1.5]  # only feature 2 differs
    >>> pooled, labels = np.vstack([X, Y]), np.repeat([0, 1], 400)
    >>> sampler = LearnedFourierSampler(n_components=256, random_state=0)
    >>> sampler = sampler.fit(pooled, labels)
    >>> bool(sampler.criterion_ > sampler.initial_criterion_)
    True
    >>> sampler.transform(pooled).shape
    (800, 256)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_directions": [None, Interval(Integral, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "subsample": [
            None,
            Interval(Integral, MIN_TRAIN_PER_SAMPLE, None, closed="left"),
        ],
        "random_state": ["random_state"],
    }

    # The map of RandomFourierSampler that transform evaluates (not parameters).
    kernel = "gaussian"
    feature = "cos_sin"
    # Its frequencies are learned together, not independent draws: the tests'
    # order check projects all its columns rather than read a sample of them.
    transform_columns = None

    def __init__(
        self,
        *,
        n_components=1024,
        n_directions=0,
        max_iter=100,
        tol=1e-6,
        subsample=10_000,
        random_state=None,
    ):
        self.n_components = n_components
        self.n_directions = n_directions
        self.max_iter = max_iter
        self.tol = tol
        self.subsample = subsample
        self.random_state = random_state

    def _array_api_unsupported(self):
        return "LearnedFourierSampler learns its kernel with NumPy"

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, model_score=None):
        """Learn the kernel that best tells two samples, or a sample and a model, apart.

        What the sampler is fit to says which: two samples' labels ``y``
        (the power of the two-sample test), or a model's score (the power
        of the goodness-of-fit test). The frequencies, the metric and the
        check against overfitting are the same for both.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The pooled training sample (with ``model_score``: a sample to tell
            from the model).
        y : array-like of shape (n_samples,)
            Labels of exactly two classes: which sample each row comes from.
        model_score : callable, default=None
            Instead of ``y``: a model's score, ``model_score(X) -> grad log
            p(X)`` of shape ``(n, n_features)``. The kernel is then learned
            for the power of the goodness-of-fit test of ``X`` against the
            model, the criterion of the Stein features of
            :class:`~skmmd.KernelSteinTest` (which fits it so with
            ``train_size``).

        Returns
        -------
        self : object
            Fitted sampler.
        """
        score = model_score
        X = self._validate_fit_data(X)
        if score is None:
            X_a, X_b = _two_classes(X, y)
        else:
            check_stein_fit(y, self.n_components)
        rng = check_random_state(self.random_state)
        d = X.shape[1]
        r = min(d, 10) if self.n_directions is None else self.n_directions
        n_freq = self._n_frequencies
        draws = rng.standard_normal(size=(d + r, n_freq))
        self.random_offset_ = random_phases(rng, self.feature, self.n_components)
        self.bandwidth_ = median_bandwidth(X, random_state=rng)
        if score is None:
            P_a, P_b = _pairs(X_a, X_b, self.subsample, rng)
            scales = _INIT_SCALES

            def criterion(draws, offset):
                return _Criterion(draws[:d], draws[d:], offset, P_a, P_b)

        else:
            rows, S = stein_rows(X, score, self.subsample, rng)
            scales = STEIN_SCALES

            def criterion(draws, offset):
                return SteinCriterion(draws[:d], draws[d:], rows, S)

        objective = criterion(draws, self.random_offset_)
        # The same kernels' criterion with other, more frequencies: a kernel
        # learned by fitting its features to the pairs' noise scores high in
        # ``objective`` only.
        check_draws = rng.standard_normal(size=(d + r, _CHECK_FREQUENCIES * n_freq))
        check = criterion(check_draws, None)
        map_draws = rng.standard_normal(size=r * d) / np.sqrt(d)
        # BLAS on one thread: its products here are small, and its idle
        # threads would spin beside the compiled kernels' threads.
        with one_blas_thread():
            best = best_start(
                objective,
                check,
                map_draws,
                self.bandwidth_,
                scales,
                self.max_iter,
                self.tol,
            )
        _, self.start_scale_, start, theta, value, start_value, self.n_iter_ = best
        objective.size = objective.trace(start)
        self.initial_criterion_ = float(start_value)
        self.criterion_ = float(value)
        # The metric's overall scale is the start's: theta's parts rescaled.
        root_kappa = np.sqrt(objective.size / objective.trace(theta))
        self.length_scales_ = np.exp(theta[:d]) / root_kappa
        self.components_ = root_kappa * theta[d:].reshape(r, d)
        self.metric_ = (
            np.diag(self.length_scales_**-2.0) + self.components_.T @ self.components_
        )
        self.random_weights_ = objective.frequencies(theta)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # y holds the labels of two samples (binary, as the tests' labels).
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


def _two_classes(X, y):
    """The rows of ``X`` of each of the two classes of ``y``."""
    if y is None:
        raise ValueError(
            "LearnedFourierSampler requires y to be passed, but the target y is "
            "None: fit needs the labels of the two samples (which sample each "
            "row of X comes from)."
        )
    y = column_or_1d(y, warn=True)
    check_consistent_length(X, y)
    check_classification_targets(y)
    classes, counts = np.unique(y, return_counts=True)
    if classes.size != 2:
        raise ValueError(
            "y must hold the labels of exactly two samples (which sample each row "
            f"of X comes from); got {classes.size} class(es): {classes.tolist()[:5]}."
        )
    if counts.min() < MIN_TRAIN_PER_SAMPLE:
        raise ValueError(
            f"Learning a kernel needs at least {MIN_TRAIN_PER_SAMPLE} training points "
            "of each sample, to estimate the variance of the statistic; y has "
            f"{counts[0]} of class {classes.tolist()[0]!r} and {counts[1]} of class "
            f"{classes.tolist()[1]!r}."
        )
    return X[y == classes[0]], X[y == classes[1]]


def _pairs(X_a, X_b, subsample, rng):
    """Rows of each sample paired for the criterion, in float64: a seeded
    shuffle of each, cut to the smaller size (and to ``subsample``)."""
    n = min(X_a.shape[0], X_b.shape[0])
    if subsample is not None:
        n = min(n, subsample)
    rows_a = np.sort(rng.permutation(X_a.shape[0])[:n])
    rows_b = np.sort(rng.permutation(X_b.shape[0])[:n])
    return X_a[rows_a].astype(np.float64), X_b[rows_b].astype(np.float64)


class _Criterion(MetricCriterion):
    """``J`` of the features with frequencies ``W`` and its gradient in ``W``,
    computed in row blocks of the paired rows (in ``theta``: the
    :class:`~._metric.MetricCriterion` it is)."""

    def __init__(self, draws_ard, draws_map, offset, X_a, X_b):
        super().__init__(draws_ard, draws_map)
        self.offset = offset
        self.X_a, self.X_b = X_a, X_b
        self.n_components = 2 * draws_ard.shape[1] - (offset is not None)
        self.blocks = list(
            gen_batches(
                X_a.shape[0], max(1, _budgets.MAP_CHUNK_ENTRIES // self.n_components)
            )
        )
        self._cache = None

    def _features(self, X, W):
        return trig_features(
            X,
            lambda block: safe_sparse_dot(block, W),
            "cos_sin",
            self.n_components,
            offset=self.offset,
            weights=W,
        )

    def _differences(self, rows, W):
        """``d`` of a block and its two feature blocks (kept when one block
        holds every row, so the three passes compute them once)."""
        if self._cache is not None and self._cache[0] is W:
            return self._cache[1]
        Z_a, Z_b = self._features(self.X_a[rows], W), self._features(self.X_b[rows], W)
        out = (Z_a - Z_b, Z_a, Z_b)
        if len(self.blocks) == 1:
            self._cache = (W, out)
        return out

    def _sums(self, W):
        s, q = 0.0, 0.0
        for rows in self.blocks:
            d = self._differences(rows, W)[0]
            s = s + d.sum(axis=0)
            q += float(np.einsum("ij,ij->", d, d))
        row_sums_sq, u = 0.0, 0.0
        for rows in self.blocks:
            d = self._differences(rows, W)[0]
            r = d @ s
            row_sums_sq += float(r @ r)
            u = u + r @ d
        return s, q, row_sums_sq, u

    def value_of(self, W):
        s, q, row_sums_sq, _ = self._sums(W)
        return power_gradient(s, q, row_sums_sq, self.X_a.shape[0])[0]

    def value_and_gradient_of(self, W):
        s, q, row_sums_sq, u = self._sums(W)
        n = self.X_a.shape[0]
        value, (a, b, c) = power_gradient(s, q, row_sums_sq, n)
        grad_W = np.zeros_like(W)
        for rows in self.blocks:
            d, Z_a, Z_b = self._differences(rows, W)
            P_a, P_b = self._to_projections((a, b, c), s, u, d, Z_a, Z_b, rows, W)
            grad_W += safe_sparse_dot(self.X_a[rows].T, P_a)
            grad_W -= safe_sparse_dot(self.X_b[rows].T, P_b)
        return value, grad_W

    def _to_projections(self, coefficients, s, u, d, Z_a, Z_b, rows, W):
        """``dJ/dP`` for the projections ``P = X W`` of both samples' rows,
        from ``dJ/dd_i = a s + b d_i + c ((d_i^T s) s + u)``: a pair's
        derivatives are the other trig function of the same features."""
        a, b, c = coefficients
        L = self.n_components // 2
        r = d @ s
        shape = (d.shape[0], W.shape[1])
        P_a, P_b = np.empty(shape), np.empty(shape)
        _projection_gradients(a, b, c, s, u, r, d, Z_a, Z_b, L, P_a, P_b)
        if self.offset is not None:  # the random-phase column cos(P + offset)
            G = a * s[2 * L] + b * d[:, 2 * L] + c * (r * s[2 * L] + u[2 * L])
            scale = np.sqrt(2.0 / self.n_components)
            for X, out in ((self.X_a, P_a), (self.X_b, P_b)):
                P = safe_sparse_dot(X[rows], W[:, L:]) + self.offset
                out[:, L] = -G * scale * np.sin(P[:, 0])
        return P_a, P_b


@njit(parallel=True, cache=True)
def _projection_gradients(a, b, c, s, u, r, d, Z_a, Z_b, L, P_a, P_b):
    """The cos/sin pairs' columns of :meth:`_Criterion._to_projections`, row
    by row with ``dJ/dd_i`` never stored (NumPy would take five passes over
    arrays of that size)."""
    for i in prange(d.shape[0]):
        for f in range(L):
            g_cos = a * s[f] + b * d[i, f] + c * (r[i] * s[f] + u[f])
            g_sin = a * s[L + f] + b * d[i, L + f] + c * (r[i] * s[L + f] + u[L + f])
            P_a[i, f] = g_sin * Z_a[i, f] - g_cos * Z_a[i, L + f]
            P_b[i, f] = g_sin * Z_b[i, f] - g_cos * Z_b[i, L + f]
