"""The online detector's statistic over a stream, against its thresholds."""

import copy

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._plotting import axes


class DriftDisplay:
    """Each window's statistic and time-varying threshold, the detection marked.

    Parameters
    ----------
    time : ndarray of shape (n_points,)
        The 1-based steps of the points.
    statistic : ndarray of shape (n_points, n_windows)
        The statistic of each window at each step.
    threshold : ndarray of shape (n_points, n_windows)
        The threshold of each window at each step.
    windows : ndarray of shape (n_windows,), default=None
        The window lengths (for the legend).
    detection_time : int, default=None
        The step of the first alarm, marked by a vertical line.

    Attributes
    ----------
    statistic_lines_ : list of matplotlib Line2D
        One per window.
    threshold_lines_ : list of matplotlib Line2D
        One per window, dashed, in its colour.
    detection_line_ : matplotlib Line2D or None
        The vertical line at ``detection_time``.
    ax_ : matplotlib Axes
        The axes drawn into.
    figure_ : matplotlib Figure
        Its figure.

    See Also
    --------
    skmmd.OnlineMMDDetector : The detector.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skmmd import OnlineMMDDetector
    >>> from skmmd.inspection import DriftDisplay
    >>> rng = np.random.default_rng(0)
    >>> detector = OnlineMMDDetector(ert=500, window_size=20, n_resamples=500,
    ...                              random_state=0).fit(rng.normal(size=(1000, 2)))
    >>> stream = np.vstack([rng.normal(size=(100, 2)),
    ...                     rng.normal(size=(100, 2)) + 1.5])
    >>> display = DriftDisplay.from_estimator(detector, stream)
    >>> bool(100 < display.detection_time <= 130)
    True
    """

    def __init__(
        self, *, time, statistic, threshold, windows=None, detection_time=None
    ):
        self.time = time
        self.statistic = statistic
        self.threshold = threshold
        self.windows = windows
        self.detection_time = detection_time

    def plot(self, ax=None, **kwargs):
        """Draw the statistics and thresholds.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; ``None`` makes a figure.
        **kwargs : dict
            Passed to ``Axes.plot`` for the statistics.

        Returns
        -------
        display : DriftDisplay
            The display, with its artists.
        """
        (self.ax_,), self.figure_ = axes(ax, 1, type(self).__name__ + ".plot")
        statistic = np.asarray(self.statistic, dtype=float)
        statistic = statistic.reshape(statistic.shape[0], -1)
        threshold = np.asarray(self.threshold, dtype=float).reshape(statistic.shape)
        windows = self.windows
        if windows is None:
            windows = [None] * statistic.shape[1]
        self.statistic_lines_, self.threshold_lines_ = [], []
        for k, window in enumerate(windows):
            color = f"C{k % 10}"
            label = "statistic" if window is None else f"window {window}"
            (line,) = self.ax_.plot(
                self.time,
                statistic[:, k],
                **{"color": color, "lw": 1, "label": label, **kwargs},
            )
            self.statistic_lines_.append(line)
            (line,) = self.ax_.plot(
                self.time, threshold[:, k], color=line.get_color(), ls="--", lw=1
            )
            self.threshold_lines_.append(line)
        self.detection_line_ = None
        if self.detection_time is not None:
            self.detection_line_ = self.ax_.axvline(
                self.detection_time,
                color="k",
                lw=1.5,
                label=f"detection (t = {self.detection_time})",
            )
        self.ax_.set(xlabel="time (points)", ylabel="MMD$^2$ (dashed: threshold)")
        self.ax_.legend(loc="upper left", fontsize="small")
        return self

    @classmethod
    def from_estimator(cls, estimator, X, *, ax=None, **kwargs):
        """Run a copy of a fitted detector over a stream and draw it.

        Parameters
        ----------
        estimator : OnlineMMDDetector
            Fitted; it is left unchanged (a copy sees ``X``, from the
            detector's current state: call ``reset`` first to start over).
        X : array-like of shape (n_points, n_features)
            The stream, in order (anything the detector's ``update`` takes).
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : DriftDisplay
            The display, drawn.
        """
        check_is_fitted(estimator, "thresholds_")
        detector = copy.deepcopy(estimator)
        result = detector.update(X)
        display = cls(
            time=result.time,
            statistic=result.statistic,
            threshold=result.threshold,
            windows=detector.windows_,
            detection_time=detector.detection_time_,
        )
        return display.plot(ax=ax, **kwargs)

    @classmethod
    def from_result(cls, result, *, windows=None, ax=None, **kwargs):
        """Draw an :data:`~skmmd.drift.OnlineDriftResult` of a batch of points.

        Parameters
        ----------
        result : OnlineDriftResult
            What ``update`` (of a 2-D batch) returned.
        windows : array-like of shape (n_windows,), default=None
            The detector's ``windows_``, for the legend.
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : DriftDisplay
            The display, drawn; the detection is the first flagged point.
        """
        drift = np.asarray(result.drift, dtype=bool)
        time = np.asarray(result.time)
        display = cls(
            time=time,
            statistic=result.statistic,
            threshold=result.threshold,
            windows=windows,
            detection_time=int(time[drift.argmax()]) if drift.any() else None,
        )
        return display.plot(ax=ax, **kwargs)
