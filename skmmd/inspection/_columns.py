"""The per-column report of a test: which columns moved, by how much evidence."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._plotting import axes


def _missing_report(owner):
    return ValueError(
        f"{owner} has no per-column report: fit the test with "
        "explain_columns=True (or explain_columns=[...] for some columns or "
        "groups), e.g. MMDTest(explain_columns=True), or draw the table of "
        "explain(): ColumnReportDisplay(report=test.explain(X, Y), "
        "alpha=test.alpha)."
    )


class ColumnReportDisplay:
    """One bar per column (group): its evidence, adjusted p-values against alpha.

    A bar is ``-log10`` of the column's family-wise adjusted p-value, in the
    report's order (most evidence first, at the top); the dashed line is
    ``-log10(alpha)``, and the bars of the columns that moved (adjusted p-value
    at most ``alpha``) are coloured.

    Parameters
    ----------
    report : pandas.DataFrame
        The table of :meth:`MMDTest.explain <skmmd.MMDTest.explain>` (or
        ``column_report_``): ``column`` and ``adjusted_p_value``, sorted.
    alpha : float, default=0.05
        The level the adjusted p-values are compared with.

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        One bar per row of ``report``, in its order.
    alpha_line_ : matplotlib Line2D
        The vertical line at ``-log10(alpha)``.
    ax_ : matplotlib Axes
        The axes drawn into.
    figure_ : matplotlib Figure
        Its figure.

    See Also
    --------
    NullDistributionDisplay : The test's null distribution.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skmmd import MMDTest
    >>> from skmmd.inspection import ColumnReportDisplay
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(300, 3)), rng.normal(size=(300, 3))
    >>> Y[:, 1] += 1.0
    >>> test = MMDTest(explain_columns=True, random_state=0).fit(X, Y)
    >>> display = ColumnReportDisplay.from_estimator(test)
    >>> len(display.bars_), display.ax_.get_yticklabels()[0].get_text()
    (3, '1')
    """

    def __init__(self, *, report, alpha=0.05):
        self.report = report
        self.alpha = alpha

    def plot(self, ax=None, **kwargs):
        """Draw the bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; ``None`` makes a figure.
        **kwargs : dict
            Passed to ``Axes.barh``.

        Returns
        -------
        display : ColumnReportDisplay
            The display, with its artists.
        """
        (self.ax_,), self.figure_ = axes(ax, 1, type(self).__name__ + ".plot")
        columns = [str(c) for c in self.report["column"]]
        adjusted = np.asarray(self.report["adjusted_p_value"], dtype=float)
        moved = adjusted <= self.alpha
        kwargs.setdefault("color", np.where(moved, "C3", "C0").tolist())
        self.bars_ = self.ax_.barh(
            np.arange(len(columns)), -np.log10(adjusted), **kwargs
        )
        self.alpha_line_ = self.ax_.axvline(
            -np.log10(self.alpha),
            color="k",
            ls="--",
            lw=1,
            label=f"adjusted p-value = alpha ({self.alpha:g})",
        )
        self.ax_.set_yticks(np.arange(len(columns)), columns)
        self.ax_.set_ylim(len(columns) - 0.5, -0.5)  # most evidence on top
        self.ax_.set(
            xlabel="-log10 adjusted p-value",
            title=f"{moved.sum()} of {len(columns)} columns moved",
        )
        self.ax_.legend(loc="lower right", fontsize="small")
        return self

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **kwargs):
        """Draw the per-column report of a test fit with ``explain_columns``.

        Parameters
        ----------
        estimator : MMDTest
            Fitted with ``explain_columns`` (its ``column_report_``).
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : ColumnReportDisplay
            The display, drawn.
        """
        check_is_fitted(estimator)
        report = getattr(estimator, "column_report_", None)
        if report is None:
            raise _missing_report(f"This {type(estimator).__name__}")
        return cls(report=report, alpha=estimator.alpha).plot(ax=ax, **kwargs)

    @classmethod
    def from_result(cls, result, *, ax=None, **kwargs):
        """Draw the per-column report of an :class:`~skmmd.MMDTestResult`.

        Parameters
        ----------
        result : MMDTestResult
            With a ``column_report`` (e.g. ``mmd_test(X, Y, explain=True)``).
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : ColumnReportDisplay
            The display, drawn.
        """
        if result.column_report is None:
            raise _missing_report("This result")
        return cls(report=result.column_report, alpha=result.alpha).plot(
            ax=ax, **kwargs
        )
