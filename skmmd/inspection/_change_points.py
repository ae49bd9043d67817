"""A series in time order with its change points and their p-values."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._plotting import axes, shorten


class ChangePointsDisplay:
    """The columns of a series, its change points marked with their p-values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The series, rows in time order.
    change_points : ndarray of shape (n_changes,)
        The first row of each segment after the first.
    p_values : ndarray of shape (n_changes,), default=None
        Each change's p-value, written beside its line.
    alpha : float, default=0.05
        The level: changes whose p-value is above it are drawn dotted.
    feature_names : list of str, default=None
        The columns' names (for the legend).

    Attributes
    ----------
    series_lines_ : list of matplotlib Line2D
        One per column.
    change_lines_ : list of matplotlib Line2D
        One vertical line per change.
    ax_ : matplotlib Axes
        Where the series and its changes are drawn.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    See Also
    --------
    skmmd.KernelChangePoints : The estimator whose changes it draws.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skmmd import KernelChangePoints
    >>> from skmmd.inspection import ChangePointsDisplay
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(size=(200, 1)), rng.normal(2.0, size=(200, 1))]
    >>> cp = KernelChangePoints(n_resamples=99, random_state=0).fit(X)
    >>> display = ChangePointsDisplay.from_estimator(cp, X)
    >>> len(display.change_lines_)
    1
    """

    def __init__(
        self, *, X, change_points, p_values=None, alpha=0.05, feature_names=None
    ):
        self.X = X
        self.change_points = change_points
        self.p_values = p_values
        self.alpha = alpha
        self.feature_names = feature_names

    def plot(self, ax=None, **kwargs):
        """Draw the columns, a line at each change and its p-value.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            The axes to draw the series in (None: a new figure of its own).
        **kwargs : dict
            Keyword arguments of ``Axes.plot`` for the columns' lines.

        Returns
        -------
        display : ChangePointsDisplay
            This display, its artists and axes set.
        """
        (self.ax_,), self.figure_ = axes(
            ax, 1, type(self).__name__ + ".plot", panel_size=(8.0, 3.5)
        )
        X = np.asarray(self.X, dtype=float).reshape(len(self.X), -1)
        names = self.feature_names
        if names is None:
            names = [f"x{j}" for j in range(X.shape[1])]
        self.series_lines_ = []
        for j in range(X.shape[1]):
            (line,) = self.ax_.plot(
                X[:, j], **{"lw": 1, "label": shorten(names[j]), **kwargs}
            )
            self.series_lines_.append(line)
        self.change_lines_ = []
        p_values = self.p_values
        if p_values is None:
            p_values = [None] * len(self.change_points)
        top = self.ax_.get_ylim()[1]
        for point, p in zip(self.change_points, p_values):
            dotted = p is not None and not p <= self.alpha
            line = self.ax_.axvline(
                point, color="k", lw=1.2, ls=":" if dotted else "--"
            )
            self.change_lines_.append(line)
            if p is not None:
                self.ax_.text(point, top, f" p={p:.3g}", va="top", fontsize="small")
        self.ax_.set(xlabel="row (time order)", ylabel="value")
        if X.shape[1] <= 10:
            self.ax_.legend(loc="upper left", fontsize="small")
        return self

    @classmethod
    def from_estimator(cls, estimator, X, *, ax=None, **kwargs):
        """Draw a fitted :class:`~skmmd.KernelChangePoints` over its series.

        Parameters
        ----------
        estimator : KernelChangePoints
            Fitted on ``X``.
        X : array-like of shape (n_samples, n_features)
            The series it was fitted on (a DataFrame's columns name the lines).
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : ChangePointsDisplay
            The display, drawn.
        """
        check_is_fitted(estimator, "change_points_")
        names = getattr(estimator, "feature_names_in_", None)
        display = cls(
            X=np.asarray(X),
            change_points=estimator.change_points_,
            p_values=estimator.p_values_,
            alpha=estimator.alpha,
            feature_names=None if names is None else list(names),
        )
        return display.plot(ax=ax, **kwargs)
