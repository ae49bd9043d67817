"""The null distribution of a test, its observed statistic and threshold."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._inference._calibration import threshold as _threshold
from ._plotting import axes, shorten


class NullDistributionDisplay:
    """Histogram of the resampled statistics, the statistic and the threshold.

    Create it with :meth:`from_estimator` or :meth:`from_result`; it is drawn
    then, and :meth:`plot` draws it again (e.g. into other axes).

    The legend (the resampled statistics, the statistic, the threshold) is
    drawn outside the panels, so that it covers neither the histogram nor
    the two lines: above them in a new figure, to the right of the first
    given Axes otherwise (a figure with ``layout="constrained"`` makes room
    for it).

    Parameters
    ----------
    null_distribution : ndarray of shape (n_resamples,) or (n_resamples, n_panels)
        The statistic on each resample, per panel (kernel).
    statistic : float or ndarray of shape (n_panels,)
        The observed statistic(s).
    p_value : float or ndarray of shape (n_panels,)
        The p-value(s).
    alpha : float
        The level of the test.
    threshold : float or ndarray of shape (n_panels,), default=None
        Statistics above it reject at ``alpha``; ``None`` (or NaN for a
        panel): the null's upper ``alpha`` quantile among ``n_resamples + 1``
        values, per panel.
    names : list of str, default=None
        The panels' titles.

    Attributes
    ----------
    hist_ : list of BarContainer
        The histogram of each panel.
    statistic_lines_ : list of matplotlib Line2D
        The vertical line at each panel's statistic.
    threshold_lines_ : list of matplotlib Line2D
        The vertical line at each panel's threshold (None where it is
        infinite: no resample count can reach ``alpha``).
    legend_ : matplotlib Legend
        The legend, outside the panels.
    axes_ : ndarray of matplotlib Axes
        One per panel.
    ax_ : matplotlib Axes
        The first (for one kernel, the only) panel.
    figure_ : matplotlib Figure
        The figure of the panels.

    See Also
    --------
    ColumnReportDisplay : The evidence of each column.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skmmd import MMDTest
    >>> from skmmd.inspection import NullDistributionDisplay
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + 0.3
    >>> test = MMDTest(random_state=0).fit(X, Y)
    >>> display = NullDistributionDisplay.from_estimator(test)
    >>> bool(display.statistic_lines_[0].get_xdata()[0] == test.statistic_)
    True
    """

    def __init__(
        self,
        *,
        null_distribution,
        statistic,
        p_value,
        alpha,
        threshold=None,
        names=None,
    ):
        self.null_distribution = null_distribution
        self.statistic = statistic
        self.p_value = p_value
        self.alpha = alpha
        self.threshold = threshold
        self.names = names

    def plot(self, ax=None, *, bins=40, **kwargs):
        """Draw the panels.

        Parameters
        ----------
        ax : matplotlib Axes or array of them, default=None
            One Axes per panel; ``None`` makes a figure of them: a row for
            one or two, else a near-square grid (the aggregated panel last).
        bins : int or sequence, default=40
            Bins of the histograms (``Axes.hist``).
        **kwargs : dict
            Passed to ``Axes.hist``.

        Returns
        -------
        display : NullDistributionDisplay
            The display, with its artists.
        """
        null = np.asarray(self.null_distribution, dtype=float)
        null = null.reshape(null.shape[0], -1)
        n_panels = null.shape[1]
        statistic = np.broadcast_to(np.asarray(self.statistic, float), (n_panels,))
        p_value = np.broadcast_to(np.asarray(self.p_value, float), (n_panels,))
        given = np.full(n_panels, np.nan)
        if self.threshold is not None:
            given = np.broadcast_to(np.asarray(self.threshold, float), (n_panels,))
        threshold = [
            _threshold(null[:, k], self.alpha) if np.isnan(given[k]) else given[k]
            for k in range(n_panels)
        ]
        names = self.names or [None] * n_panels
        self.axes_, self.figure_ = axes(ax, n_panels, type(self).__name__ + ".plot")
        self.ax_ = self.axes_[0]
        self.hist_, self.statistic_lines_, self.threshold_lines_ = [], [], []
        hist_kwargs = {"color": "0.6", "label": "resampled statistics", **kwargs}
        for k, ax_k in enumerate(self.axes_):
            finite = null[:, k][np.isfinite(null[:, k])]
            self.hist_.append(ax_k.hist(finite, bins=bins, **hist_kwargs)[2])
            self.statistic_lines_.append(
                ax_k.axvline(statistic[k], color="C3", lw=2, label="statistic")
            )
            line = None
            if np.isfinite(threshold[k]):
                line = ax_k.axvline(
                    threshold[k],
                    color="k",
                    ls="--",
                    lw=1,
                    label=f"threshold at alpha = {self.alpha:g}",
                )
            self.threshold_lines_.append(line)
            title = f"p-value = {p_value[k]:.3g}"
            if names[k]:
                title = f"{shorten(names[k])}\n{title}"
            ax_k.set_title(title, fontsize="medium" if n_panels <= 4 else "small")
            ax_k.set(xlabel="statistic", ylabel="resamples")
        self.legend_ = _legend(self.axes_, self.figure_, new=ax is None)
        return self

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **kwargs):
        """Draw the null distribution of a fitted test.

        Parameters
        ----------
        estimator : MMDTest, AggregatedMMDTest or HSICTest
            A fitted test. For the aggregated test: one panel per kernel (its
            own statistic, null and p-value, from ``null_distributions_``, when
            the test has them) and a last panel for the aggregated statistic,
            the one that decides.
        ax : matplotlib Axes or array of them, default=None
            Where to draw (one Axes per panel).
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : NullDistributionDisplay
            The display, drawn.
        """
        check_is_fitted(estimator)
        null = estimator.null_distribution_
        # The histogram is the null of statistic_: with a column report whose
        # decision combines the table and its columns, the table's own
        # p-value and threshold go with it.
        statistic = estimator.statistic_
        p_value = getattr(estimator, "table_p_value_", estimator.p_value_)
        threshold = getattr(
            estimator, "table_threshold_", getattr(estimator, "threshold_", None)
        )
        names = None
        per_kernel = getattr(estimator, "null_distributions_", None)
        if per_kernel is not None:  # aggregated: each kernel, then the decision
            null = np.column_stack([per_kernel, null])
            statistic = np.append(estimator.statistics_, statistic)
            p_value = np.append(estimator.p_values_, p_value)
            names = [*map(str, estimator.kernels_), "aggregated"]
            # The aggregated threshold is on the last panel's scale; each
            # kernel's panel gets its own null's quantile.
            if threshold is not None:
                threshold = np.append(np.full(per_kernel.shape[1], np.nan), threshold)
        display = cls(
            null_distribution=null,
            statistic=statistic,
            p_value=p_value,
            alpha=estimator.alpha,
            threshold=threshold,
            names=names,
        )
        return display.plot(ax=ax, **kwargs)

    @classmethod
    def from_result(cls, result, *, ax=None, **kwargs):
        """Draw the null distribution of an :class:`~skmmd.MMDTestResult`.

        Parameters
        ----------
        result : MMDTestResult
            E.g. of :func:`~skmmd.mmd_test`.
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : NullDistributionDisplay
            The display, drawn.
        """
        display = cls(
            null_distribution=result.null_distribution,
            statistic=result.statistic,
            p_value=result.pvalue,
            alpha=result.alpha,
        )
        return display.plot(ax=ax, **kwargs)


def _legend(panels, figure, new):
    """One legend of the panels' artists, outside them: above the panels of
    a ``new`` figure (its constrained layout makes room for it), else to the
    right of the first panel."""
    entries = {}
    for ax in panels:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    handles, labels = list(entries.values()), list(entries)
    if new:  # in one row, or two in a figure narrower than 6 inches
        wide = figure.get_figwidth() >= 6.0
        return figure.legend(
            handles, labels, loc="outside upper center",
            ncols=len(labels) if wide else 2, fontsize="small", frameon=False,
        )  # fmt: skip
    return panels[0].legend(
        handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0, fontsize="small",
    )  # fmt: skip
