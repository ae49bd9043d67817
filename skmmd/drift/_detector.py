"""Online drift detection: a streaming MMD detector whose thresholds are
calibrated for an expected run time between false alarms, O(D) per point."""

import dataclasses
import math
from collections import namedtuple
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.validation import check_is_fitted

from .._inference import _blocks
from .._inference._blocks import BLOCK_SIZE_CONSTRAINT
from .._inference._inputs import check_finite
from .._utils._compat import (
    HasMethods,
    Interval,
    StrOptions,
    fit_context,
    is_fitted,
    validate_data,
)
from .._utils._streams import draw_seed
from ..kernel_approximation import RandomFourierSampler
from . import _numba
from ._thresholds import calibrate_thresholds, null_streams, steady_steps

__all__ = ["OnlineDriftResult", "OnlineMMDDetector"]

# block_size="auto": blocks of at least this many of the largest window (a
# twentieth of the simulated windows straddle a seam).
_WINDOWS_PER_BLOCK = 20

OnlineDriftResult = namedtuple(
    "OnlineDriftResult", ["statistic", "threshold", "drift", "time"]
)
OnlineDriftResult.__doc__ = """What the detector says about the points it was given.

For one point: ``statistic`` and ``threshold`` of shape (n_windows,), ``drift``
a bool, ``time`` the point's 1-based position since ``fit`` or ``reset``. For
a batch of n points: shapes (n, n_windows), (n, n_windows), (n,) and (n,).
"""


def _windows(window_size):
    windows = np.atleast_1d(np.asarray(window_size))
    if windows.ndim != 1 or windows.size == 0:
        raise ValueError(
            "window_size must be a positive int or a non-empty list of them; "
            f"got {window_size!r}."
        )
    if windows.dtype.kind not in "iu" or (windows < 1).any():
        raise ValueError(
            f"window_size must hold positive integers; got {window_size!r}."
        )
    if len(np.unique(windows)) != len(windows):
        raise ValueError(f"window_size has repeated sizes: {window_size!r}.")
    return np.sort(windows).astype(np.int64)


class OnlineMMDDetector(BaseEstimator):
    """Online drift detector: MMD between a reference and sliding windows.

    The reference's mean embedding is one D-vector and each window is a
    running sum of D features, so an update costs ``O(D)`` whatever the
    reference size. Thresholds are calibrated by simulating the detector on
    held-out reference points so that, with no drift, the expected number of
    points before a false alarm (the expected run time, ERT) is ``ert``; as in
    alibi-detect's ``MMDDriftOnline`` they vary with time while the windows fill.

    Parameters
    ----------
    transformer : "auto" or object, default="auto"
        Feature map with ``fit`` and ``transform`` (any skmmd sampler, e.g.
        :class:`~skmmd.TabularSampler` for raw tables); cloned in ``fit``.
        ``"auto"``: ``RandomFourierSampler(n_components=256)`` with the median
        bandwidth of the reference. The windows are compared through their
        features' means, so there is no exact-kernel detector: ``None`` is
        refused. A kernel learned for power
        (:class:`~skmmd.LearnedFourierSampler`, fit on reference data against
        an early window of the stream, data ``X_ref`` does not hold) is passed
        fitted, as ``sklearn.frozen.FrozenEstimator(learned)``.
    ert : float, default=1000
        Expected run time: the mean number of points before a false alarm when
        the stream does not drift. Run lengths are close to geometric: ``n``
        points with no drift raise a false alarm with probability about
        ``1 - exp(-n / ert)``, so choose it well above the points watched
        between resets.
    window_size : int or list of int, default=50
        Window length(s). Several windows are monitored at once (short ones
        react to abrupt drift, long ones see slight drift) under one ERT.
    calibration_size : float, default=0.5
        Fraction of ``X_ref`` held out to simulate the detector; the rest gives
        the reference embedding (each simulated stream holds out its own
        part of this size).
    n_resamples : int, default=1000
        Number of simulated null streams; keep it at least ``ert``. While the
        windows fill, the thresholds are upper quantiles at level ``1 / ert``
        of these streams, which resolve no level below
        ``1 / (n_resamples + 1)``: with fewer, early false alarms are more
        frequent than the ERT says.
    block_size : None, "auto" or int, default=None
        ``None``: points are assumed independent; reference points are split
        at random and simulated streams draw held-out points at random. An int:
        for autocorrelated streams, ``X_ref`` is taken in time order, the
        reference embedding is its first part, each simulated stream holds
        out a circular segment of ``X_ref`` and is made of blocks of
        ``block_size`` consecutive points of it (a circular block bootstrap),
        which keeps the dependence within blocks. ``"auto"``: the length
        read from the reference's features in time order, as the tests'
        ``block_size="auto"`` reads it, and at least twenty of the largest
        window, at most half the held-out part (``block_size_``;
        :ref:`time_ordered`).
    random_state : int, RandomState instance or None, default=None
        Controls the split of the reference, the simulated streams and the
        default transformer. Pass an int for reproducible output.

    Attributes
    ----------
    transformer_ : object
        The fitted feature map.
    windows_ : ndarray of shape (n_windows,)
        Window lengths, sorted.
    block_size_ : int or None
        The block length of the simulated streams (``block_size``, resolved).
    thresholds_ : ndarray of shape (max_window, n_windows)
        ``max_window`` is the largest window. Row ``t - 1`` holds the
        thresholds at step ``t`` while the largest
        window fills; the last row holds them from then on.
    reference_mean_ : ndarray of shape (n_features_out,)
        Mean embedding of the reference part.
    n_reference_ : int
        Points in the reference embedding.
    simulated_ert_ : float
        The ERT of the calibrated thresholds on the simulated streams.
    t_ : int
        Points seen since ``fit`` or ``reset``.
    detection_time_ : int or None
        1-based step of the first flag since ``fit`` or ``reset``, else None.
    n_features_in_ : int
        Number of features of ``X_ref``.

    See Also
    --------
    skmmd.MMDTest : Offline two-sample test of a whole window.

    Notes
    -----
    The statistic of a window of ``n`` points with feature sum ``s`` is the
    V-statistic ``||s_ref / m - s / n||^2`` (:func:`skmmd.statistics.mmd2_features`).
    Calibration simulates ``n_resamples`` streams of held-out points, each
    with its own split of ``X_ref`` (as alibi-detect does) and its reference
    mean moved towards its held-out part so that the two differ as much as a
    live stream's population and the reference do. While
    the largest window fills, the thresholds at each step are upper quantiles
    of the statistics of the simulated streams that have not alarmed yet, at
    the level that makes a fraction ``1 / ert`` of them alarm (conditional
    quantiles, as alibi-detect does). From then on the thresholds are
    constant; the windows share one tail level (each window's threshold is
    the same upper quantile of its own null distribution, a max over
    standardized statistics), set by bisection so that the simulated mean run
    length equals ``ert``. Streams still alive at the end of the simulation
    count with the mean residual time of the hazard measured in its second
    half. The guarantee is a simulated one: it holds as far as held-out
    points are exchangeable with the live stream (use ``block_size`` for
    autocorrelated streams).

    References
    ----------
    .. [1] A. Gretton et al. A kernel two-sample test. JMLR 2012.
    .. [2] A. Van Looveren et al. Alibi Detect: algorithms for outlier,
       adversarial and drift detection, 2019 (``MMDDriftOnline``).

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import OnlineMMDDetector
    >>> rng = np.random.default_rng(0)
    >>> det = OnlineMMDDetector(ert=1000, window_size=20, random_state=0)
    >>> det = det.fit(rng.normal(size=(1000, 3)))
    >>> res = det.update(rng.normal(size=(50, 3)))  # no drift: no alarm
    >>> bool(res.drift.any())
    False
    >>> res = det.update(rng.normal(size=(100, 3)) + [2.0, 0.0, 0.0])
    >>> bool(res.drift.any()), 50 < det.detection_time_ <= 70
    (True, True)
    """

    _parameter_constraints: dict = {
        # None passes here to be refused in fit with its own message.
        "transformer": [None, StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "ert": [Interval(Real, 1, None, closed="neither")],
        "window_size": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "calibration_size": [Interval(Real, 0, 1, closed="neither")],
        "n_resamples": [Interval(Integral, 10, None, closed="left")],
        "block_size": BLOCK_SIZE_CONSTRAINT,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        transformer="auto",
        *,
        ert=1000,
        window_size=50,
        calibration_size=0.5,
        n_resamples=1000,
        block_size=None,
        random_state=None,
    ):
        self.transformer = transformer
        self.ert = ert
        self.window_size = window_size
        self.calibration_size = calibration_size
        self.n_resamples = n_resamples
        self.block_size = block_size
        self.random_state = random_state

    def min_reference_size(self):
        """Smallest ``X_ref`` that can calibrate this ERT and these windows.

        Each simulated stream is at most as long as the held-out part: the
        largest window plus enough steps to see about 100 false alarms among
        ``n_resamples`` streams (and at least 4 window lengths).

        Returns
        -------
        n : int
            Minimum number of rows of ``X_ref``.
        """
        self._validate_params()  # also called before fit (e.g. ert=inf)
        max_window = int(_windows(self.window_size)[-1])
        need_held = max_window + steady_steps(max_window, self.ert, self.n_resamples)
        n = math.ceil(need_held / self.calibration_size)
        # the reference part must be at least one largest window, too
        n_ref_part = math.ceil(max_window / (1.0 - self.calibration_size))
        return max(n, n_ref_part)

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X_ref, y=None):
        """Fit the feature map, embed the reference and calibrate thresholds.

        Parameters
        ----------
        X_ref : array-like of shape (n_samples, n_features)
            Reference data, drawn from the distribution with no drift (in
            time order when ``block_size`` is set).
        y : None
            Passed to the transformer's ``fit``, as a Pipeline passes it.

        Returns
        -------
        self : object
            Fitted detector, with an empty window.
        """
        if self.transformer is None:
            raise ValueError(
                "OnlineMMDDetector(transformer=None): there is no exact-kernel "
                "detector, the windows are compared through their features' "
                "means. Pass transformer='auto' (the default: 256 random "
                "Fourier features at the median bandwidth) or a feature map."
            )
        windows = _windows(self.window_size)
        n_min = self.min_reference_size()
        rng = check_random_state(self.random_state)
        if isinstance(self.transformer, str):  # "auto"
            check_finite(X_ref, "X_ref")  # the fix named, before any work
            transformer = RandomFourierSampler(n_components=256, random_state=rng)
        else:
            transformer = clone(self.transformer)
        if get_tags(transformer).target_tags.required and not is_fitted(transformer):
            raise ValueError(
                f"{type(transformer).__name__} learns from two labelled samples "
                "and the reference is one: fit it on the reference against an "
                "early window of the stream (data the detector's X_ref does not "
                "hold) and pass it fitted, as transformer=sklearn.frozen."
                "FrozenEstimator(fitted)."
            )
        # The transformer validates X_ref (empty, NaN, complex, sparse) before
        # the size is checked, so that bad input gets its own message. y goes
        # along, as a Pipeline passes it (a FrozenEstimator's fit takes it).
        self.transformer_ = transformer.fit(X_ref, y)
        n = X_ref.shape[0] if hasattr(X_ref, "shape") else len(X_ref)
        if n < n_min:
            raise ValueError(
                f"X_ref has {n} sample(s); calibrating ert={self.ert} with "
                f"window_size={self.window_size!r}, calibration_size="
                f"{self.calibration_size} and n_resamples={self.n_resamples} "
                f"needs at least {n_min} samples (or a smaller ert, more "
                "n_resamples or a larger calibration_size)."
            )
        self.n_features_in_ = self.transformer_.n_features_in_
        if hasattr(self.transformer_, "feature_names_in_"):
            self.feature_names_in_ = self.transformer_.feature_names_in_

        Z = _as_features(self.transformer_.transform(X_ref))
        if not np.isfinite(Z).all():
            raise ValueError(_overflow_message("X_ref"))
        n_held = int(round(self.calibration_size * n))
        self.block_size_ = self._resolved_block_size(Z, n_held, windows)
        if self.block_size_ is None:
            ref_rows = rng.permutation(n)[: n - n_held]
        else:  # the reference comes first in time
            ref_rows = np.arange(n - n_held)
        ref_sum = Z[ref_rows].sum(axis=0)
        self.n_reference_ = len(ref_rows)
        self.reference_mean_ = ref_sum / self.n_reference_
        self._ref_sum = np.ascontiguousarray(ref_sum, dtype=np.float64)
        self._ref_sq = float(ref_sum @ ref_sum)
        self.windows_ = windows

        max_window = int(windows[-1])
        n_steps = max_window + min(
            n_held - max_window,
            max(
                steady_steps(max_window, self.ert, self.n_resamples),
                math.ceil(2 * self.ert),
            ),
        )
        seeds = np.random.default_rng(draw_seed(rng))
        index, ref_sums = null_streams(
            Z, n_held, n_steps, seeds, self.n_resamples, self.block_size_
        )
        stats = _numba.simulate(
            Z, index, windows, ref_sums, np.einsum("ij,ij->i", ref_sums, ref_sums),
            float(self.n_reference_),
        )  # fmt: skip
        self.thresholds_, self.simulated_ert_ = calibrate_thresholds(
            stats, max_window, self.ert
        )
        self._set_fast_path()
        self.reset()
        return self

    def _resolved_block_size(self, Z, n_held, windows):
        """``block_size``, with ``"auto"`` read from the reference's features
        in time order: the blocks the tests' rule gives
        (:mod:`skmmd._inference._blocks`), and at least ``_WINDOWS_PER_BLOCK``
        of the largest window, so that few simulated windows straddle the
        seam between two blocks (whose halves are independent, so their
        mean varies less than a live window's), at most half the held-out
        part."""
        if self.block_size != "auto":
            return self.block_size
        dependence = _blocks.map_dependence([Z])
        rows = _blocks.BlockChoice([dependence], "auto", unit=1).rows
        rows = max(rows, _WINDOWS_PER_BLOCK * int(windows[-1]))
        return int(max(1, min(rows, n_held // 2)))

    def _set_fast_path(self):
        t = self.transformer_
        self._fourier = None
        if type(t) is RandomFourierSampler:
            D = t.n_components
            n_pairs = D // 2 if t.feature == "cos_sin" else 0
            offset = t.random_offset_ if t.random_offset_ is not None else np.zeros(0)
            self._fourier = (
                np.ascontiguousarray(t.random_weights_, dtype=np.float64),
                np.ascontiguousarray(offset, dtype=np.float64),
                n_pairs,
                math.sqrt(2.0 / D),
            )

    def reset(self):
        """Empty the windows (e.g. after a drift was handled).

        Returns
        -------
        self : object
            The detector, with ``t_ = 0`` and no detection.
        """
        check_is_fitted(self, "thresholds_")
        D = self._ref_sum.shape[0]
        self._ring = np.zeros((int(self.windows_[-1]), D))
        self._sums = np.zeros((len(self.windows_), D))
        self._z = np.empty(D)
        self.t_ = 0
        self.detection_time_ = None
        return self

    def _check_fitted(self):
        if not hasattr(self, "thresholds_"):
            raise NotFittedError(
                "This OnlineMMDDetector is not fitted yet: call fit(X_ref) before "
                "update or partial_fit."
            )

    def update(self, x):
        """Feed one point (1-D) or a batch of points (2-D) in stream order.

        Parameters
        ----------
        x : array-like of shape (n_features,) or (n_points, n_features)
            New point(s); a batch can be anything the transformer accepts (a
            DataFrame for :class:`~skmmd.TabularSampler`).

        Returns
        -------
        result : OnlineDriftResult
            Statistic(s), threshold(s), drift flag(s) and time(s) of the
            point(s); see :data:`OnlineDriftResult`.
        """
        self._check_fitted()
        if sp.issparse(x):
            return self._update_batch(x)
        if self._fourier is not None and not hasattr(x, "columns"):
            x = np.asarray(x, dtype=np.float64)
            if x.ndim == 1:
                return self._update_point(x)
        elif np.ndim(x) == 1:
            x = np.asarray(x).reshape(1, -1)
            res = self._update_batch(x)
            return OnlineDriftResult(
                res.statistic[0], res.threshold[0], bool(res.drift[0]), res.time[0]
            )
        return self._update_batch(x)

    def _update_point(self, x):
        d = self.n_features_in_
        if x.shape[0] != d:
            raise ValueError(
                f"x has {x.shape[0]} features, but OnlineMMDDetector was fitted "
                f"with {d} features."
            )
        W, offset, n_pairs, scale = self._fourier
        stats = np.empty(len(self.windows_))
        thr = np.empty(len(self.windows_))
        flag = _numba.update_fourier(
            x, W, offset, n_pairs, scale, self._z, self._ring, self._sums,
            self.windows_, self.t_, self._ref_sum, self._ref_sq,
            float(self.n_reference_), self.thresholds_, stats, thr,
        )  # fmt: skip
        if flag == -1:
            raise ValueError("x contains NaN or infinity; the point was not added.")
        if flag == -2:
            raise ValueError(_overflow_message("x"))
        flag = flag > 0
        self.t_ += 1
        if flag and self.detection_time_ is None:
            self.detection_time_ = self.t_
        return OnlineDriftResult(stats, thr, flag, self.t_)

    def _update_batch(self, X):
        if hasattr(X, "columns") or self._fourier is None or sp.issparse(X):
            Z = self.transformer_.transform(X)  # validates (features, NaN)
        else:
            # Dense batches for the default map are checked here, once for
            # the batch: missing or infinite values named with their rows.
            check_finite(X, "X")
            X = validate_data(self, X, reset=False, dtype=np.float64)
            Z = self.transformer_.transform(X)
        Z = _as_features(Z)
        # work on copies so that an error leaves the state untouched
        ring, sums = self._ring.copy(), self._sums.copy()
        stats, thr, flags, count = _numba.run_features(
            Z, ring, sums, self.windows_, self.t_, self._ref_sum, self._ref_sq,
            float(self.n_reference_), self.thresholds_,
        )  # fmt: skip
        # Every window holds the newest point: a non-finite feature (or one so
        # large that its square overflows) makes that step's statistics so.
        if not np.isfinite(stats).all():
            raise ValueError(_overflow_message("X"))
        times = np.arange(self.t_ + 1, count + 1)
        self._ring, self._sums, self.t_ = ring, sums, count
        if self.detection_time_ is None and flags.any():
            self.detection_time_ = int(times[flags.argmax()])
        return OnlineDriftResult(stats, thr, flags, times)

    # Checks the parameters on an unfitted detector, as scikit-learn's partial_fit
    # does, before saying that it needs fit.
    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Feed a batch of points in stream order (scikit-learn's spelling).

        Parameters
        ----------
        X : array-like of shape (n_points, n_features)
            New points.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The detector; the batch's :data:`OnlineDriftResult` is in
            ``last_result_``.
        """
        self._check_fitted()
        if not sp.issparse(X) and not hasattr(X, "columns") and np.ndim(X) == 1:
            raise ValueError(
                "partial_fit expects a 2-D batch of shape (n_points, n_features); "
                "use update(x) for one point."
            )
        self.last_result_ = self._update_batch(X)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # fit(X_ref) and the batches go to the transformer: the detector accepts
        # what it accepts (sparse input, NaN and strings for TabularSampler).
        transformer = self.transformer
        if transformer is None or isinstance(transformer, str):
            transformer = RandomFourierSampler()
        tags.input_tags = dataclasses.replace(get_tags(transformer).input_tags)
        return tags


def _overflow_message(name):
    return (
        f"{name} holds values so large that their features overflow (NaN or "
        "infinity: |x| near 1e308 times a frequency); nothing was added. Rescale "
        "the data or drop such points."
    )


def _as_features(Z):
    if hasattr(Z, "toarray"):
        Z = Z.toarray()
    return np.ascontiguousarray(Z, dtype=np.float64)
