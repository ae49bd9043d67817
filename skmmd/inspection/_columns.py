"""The per-column report of a test: which columns moved, by how much evidence."""

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._inference._report import correction_text
from ._plotting import axes, shorten

# A new figure's height: 0.32 inch a bar up to _ROOMY bars (with 1.4 inch
# for the title and the x axis, a figure between 1:3 and 3:1), 0.22 inch a
# bar past those (a 10 point label is 0.17 inch high).
_ROOMY, _ROW, _TIGHT_ROW = 60, 0.32, 0.22


def _height(n_rows):
    """Inches of a new figure of ``n_rows`` bars: room for every label."""
    roomy = min(n_rows, _ROOMY)
    return max(2.4, 1.4 + _ROW * roomy + _TIGHT_ROW * (n_rows - roomy))


def _label_step(ax, n_rows):
    """Label every how many bars in the given ``ax``: 1 where its height
    holds a tick label per bar, else the smallest step whose labels fit
    (a label takes 1.3 times its font size)."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties

    size = FontProperties(size=rcParams["ytick.labelsize"]).get_size_in_points()
    height = ax.get_position().height * ax.figure.get_figheight() * 72  # points
    return max(1, int(np.ceil(n_rows * 1.3 * size / max(height, 1.0))))


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

    A bar is ``-log10`` of the column's adjusted p-value (under the report's
    ``correction``, named on the x axis), most evidence first, at the top:
    ranked by adjusted p-value, then by pooled p-value (its fine-grained
    p-value, see :ref:`explain`), then by the standardized
    statistic ``z``, written beside each bar. The dashed line is
    ``-log10(alpha)``, and the bars of the columns that moved (of an
    independence screening: that depend on y) are coloured. Only the first
    ``max_columns`` are drawn; the title counts the columns that moved out
    of all of them, e.g. "3 of 1000 columns moved (top 20 shown)". Long
    column names are shortened in the middle.

    No two labels overlap, however many bars. A new figure is as tall as its
    bars need: 0.32 inch a bar up to 60 bars (a figure between 1:3 and
    3:1), 0.22 inch (a label's height and a gap) for each bar past those, so
    that ``max_columns=None`` at 500 columns gives a tall figure to scroll or
    save, every bar named. Given axes too short for a label per bar get a
    label (and a ``z``) on every k-th bar only, the smallest k whose labels
    fit, most evidence first.

    Parameters
    ----------
    report : ColumnReport or pandas.DataFrame
        The table of :meth:`MMDTest.explain <skmmd.MMDTest.explain>` (or
        ``column_report_``), whose correction and verb name the axis and the
        title; or any DataFrame with ``column`` and ``adjusted_p_value``, in
        any order (its flagged columns are counted as "flagged"), where
        ``pooled_p_value`` and ``z`` break ties when present.
    alpha : float, default=0.05
        The level the adjusted p-values are compared with.
    max_columns : int or None, default=20
        How many bars, most evidence first; ``None`` draws every column (in
        a new figure tall enough for every label, see above).

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        One bar per row drawn (the first ``max_columns`` of ``report``), most
        evidence first.
    z_labels_ : list of matplotlib Text
        The ``z`` of each labelled bar (none when the report has no ``z``).
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

    def __init__(self, *, report, alpha=0.05, max_columns=20):
        self.report = report
        self.alpha = alpha
        self.max_columns = max_columns

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
        max_columns = self.max_columns
        if max_columns is not None and (
            not isinstance(max_columns, Integral)
            or isinstance(max_columns, bool)
            or max_columns < 1
        ):
            raise ValueError(
                f"max_columns must be a positive integer or None; got {max_columns!r}."
            )
        from .._inference._column_report import ColumnReport, rank

        try:  # a test's report says what its flags mean
            meaning = ColumnReport.of(self.report)
        except ValueError:  # a table of one's own: bars and counts only
            meaning = None
        ranked = rank(self.report if meaning is None else meaning)
        if meaning is None:
            all_moved = (ranked["adjusted_p_value"] <= self.alpha).to_numpy()
        else:
            all_moved = ranked.flagged(self.alpha)
        n_moved, n_total = int(all_moved.sum()), len(ranked)
        report = ranked if max_columns is None else ranked.iloc[:max_columns]
        n_rows = len(report)
        (self.ax_,), self.figure_ = axes(
            ax, 1, type(self).__name__ + ".plot", panel_size=(7.0, _height(n_rows))
        )
        # Every bar labelled in a new figure; in given axes, every step-th.
        step = 1 if ax is None else _label_step(self.ax_, n_rows)
        labelled = np.arange(0, n_rows, step)
        columns = [shorten(c) for c in report["column"]]
        adjusted = np.asarray(report["adjusted_p_value"], dtype=float)
        moved = all_moved[:n_rows]
        kwargs.setdefault("color", np.where(moved, "C3", "C0").tolist())
        lengths = -np.log10(adjusted)
        self.bars_ = self.ax_.barh(np.arange(n_rows), lengths, **kwargs)
        self.alpha_line_ = self.ax_.axvline(
            -np.log10(self.alpha),
            color="k",
            ls="--",
            lw=1,
            label=f"adjusted p-value = alpha ({self.alpha:g})",
        )
        # Bars of one length are ranked by the pooled p-value, then by z,
        # the standardized statistic: each bar says it.
        self.z_labels_ = []
        if "z" in report:
            right = max(lengths.max(initial=0.0), -np.log10(self.alpha))
            z = np.asarray(report["z"], dtype=float)
            for row in labelled:
                self.z_labels_.append(
                    self.ax_.text(
                        lengths[row] + 0.01 * right, row, f"z = {z[row]:.3g}",
                        va="center", fontsize="small",
                    )
                )  # fmt: skip
            self.ax_.set_xlim(0, 1.3 * right)
        self.ax_.set_yticks(labelled, [columns[row] for row in labelled])
        self.ax_.set_ylim(n_rows - 0.5, -0.5)  # most evidence on top
        verb = "flagged" if meaning is None else meaning.verb
        shown = f" (top {n_rows} shown)" if n_rows < n_total else ""
        controls = "" if meaning is None else correction_text(meaning.correction)
        self.ax_.set(
            xlabel="-log10 adjusted p-value" + (f"\n({controls})" if controls else ""),
            title=f"{n_moved} of {n_total} columns {verb}{shown}",
        )
        self.ax_.legend(loc="lower right", fontsize="small")
        return self

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, max_columns=20, **kwargs):
        """Draw the per-column report of a test fit with ``explain_columns``.

        Parameters
        ----------
        estimator : MMDTest
            Fitted with ``explain_columns`` (its ``column_report_``).
        ax : matplotlib Axes, default=None
            Where to draw.
        max_columns : int or None, default=20
            How many bars, most evidence first; ``None`` draws every column.
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
        return cls(report=report, alpha=estimator.alpha, max_columns=max_columns).plot(
            ax=ax, **kwargs
        )

    @classmethod
    def from_result(cls, result, *, ax=None, max_columns=20, **kwargs):
        """Draw the per-column report of an :class:`~skmmd.MMDTestResult`.

        Parameters
        ----------
        result : MMDTestResult
            With a ``column_report`` (e.g. ``mmd_test(X, Y, explain_columns=True)``).
        ax : matplotlib Axes, default=None
            Where to draw.
        max_columns : int or None, default=20
            How many bars, most evidence first; ``None`` draws every column.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : ColumnReportDisplay
            The display, drawn.
        """
        if result.column_report is None:
            raise _missing_report("This result")
        return cls(
            report=result.column_report, alpha=result.alpha, max_columns=max_columns
        ).plot(ax=ax, **kwargs)
