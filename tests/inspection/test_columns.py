"""ColumnReportDisplay (skmmd/inspection/_columns.py): the top
``max_columns`` bars in the order of ``explain`` (adjusted p-value, then
pooled p-value, then z), all the columns counted in its title, from a result,
a report or an estimator."""

import numpy as np
import pytest

from skmmd import MMDTest, mmd_test
from skmmd.inspection import ColumnReportDisplay
from tests.helpers.artists import vertical_at
from tests.helpers.reports import MOVED, column_report, moved_columns, result_of

pd = pytest.importorskip("pandas")

matplotlib = pytest.importorskip("matplotlib", reason="the displays need matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


def _labels(display):
    return [t.get_text() for t in display.ax_.get_yticklabels()]


def test_display_of_1000_columns_draws_the_top_20():
    report = column_report()
    display = ColumnReportDisplay(report=report).plot()
    assert len(display.bars_) == 20 and len(display.z_labels_) == 20
    assert display.ax_.get_title() == "3 of 1000 columns moved (top 20 shown)"
    labels = _labels(display)
    # Ranked as explain ranks: adjusted, then pooled p-value (not z).
    assert labels[:3] == MOVED
    expected = report.sort_values(["adjusted_p_value", "pooled_p_value", "z"],
                                  ascending=[True, True, False])  # fmt: skip
    assert labels == list(expected["column"][:20])
    widths = [bar.get_width() for bar in display.bars_]
    assert np.allclose(widths, -np.log10(expected["adjusted_p_value"][:20]))
    assert "step-down maxT" in display.ax_.get_xlabel()
    # A figure for 20 bars, not for 1000.
    assert display.figure_.get_size_inches()[1] < 10


def test_display_names_the_correction_and_draws_all_on_request():
    report = column_report("fdr", n=40)
    display = ColumnReportDisplay(report=report, max_columns=None).plot()
    assert len(display.bars_) == 40
    assert display.ax_.get_title() == "3 of 40 columns moved"  # nothing left out
    assert "Benjamini-Hochberg" in display.ax_.get_xlabel()
    display = ColumnReportDisplay(report=report, max_columns=5).plot()
    assert len(display.bars_) == 5
    assert display.ax_.get_title() == "3 of 40 columns moved (top 5 shown)"


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "20"])
def test_display_rejects_a_bad_max_columns(bad):
    with pytest.raises(ValueError, match="max_columns must be a positive integer"):
        ColumnReportDisplay(report=column_report(n=30), max_columns=bad).plot()


def test_from_result_and_from_estimator_pass_max_columns():
    display = ColumnReportDisplay.from_result(result_of(column_report()), max_columns=7)
    assert len(display.bars_) == 7
    assert display.ax_.get_title() == "3 of 1000 columns moved (top 7 shown)"
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(200, 4)), rng.normal(size=(200, 4))
    Y[:, 2] += 1.0
    test = MMDTest(explain_columns=True, n_resamples=99, random_state=0).fit(X, Y)
    display = ColumnReportDisplay.from_estimator(test, max_columns=2)
    assert len(display.bars_) == 2
    assert display.ax_.get_title().endswith("of 4 columns moved (top 2 shown)")
    assert _labels(display)[0] == "2"


def test_column_report_display_one_bar_per_column_in_order(explained):
    report = explained.column_report_
    display = ColumnReportDisplay.from_estimator(explained)
    ax = display.ax_
    assert len(display.bars_) == len(report) == 3
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(report["column"])
    assert labels[0] == "1"  # the moved column has the most evidence
    widths = [bar.get_width() for bar in display.bars_]
    assert np.allclose(widths, -np.log10(report["adjusted_p_value"]))
    # the first bar is drawn on top
    assert display.bars_[0].get_y() < display.bars_[1].get_y()
    assert ax.yaxis_inverted()
    assert vertical_at(display.alpha_line_, -np.log10(explained.alpha))
    moved = report["adjusted_p_value"] <= explained.alpha
    colors = [bar.get_facecolor() for bar in display.bars_]
    assert [c == colors[0] for c in colors] == list(moved == moved.iloc[0])
    assert ax.get_title() == f"{int(moved.sum())} of 3 columns moved"


def test_column_report_display_from_result_and_kwargs(shifted):
    result = mmd_test(*shifted, explain_columns=True, n_resamples=99, random_state=0)
    fig, ax = plt.subplots()
    display = ColumnReportDisplay.from_result(result, ax=ax, color="green")
    assert display.ax_ is ax
    assert all(
        np.allclose(bar.get_facecolor()[:3], matplotlib.colors.to_rgb("green"))
        for bar in display.bars_
    )


def test_column_report_display_needs_explain_data(shifted):
    test = MMDTest(n_resamples=19, random_state=0).fit(*shifted)
    with pytest.raises(ValueError, match=r"explain_columns=True.*explain\(\)"):
        ColumnReportDisplay.from_estimator(test)
    with pytest.raises(ValueError, match="This result has no per-column report"):
        ColumnReportDisplay.from_result(test.result_)


def test_column_report_ranks_ties_by_z_and_names_an_independence_screening(
    wide_tables,
):
    pd = pytest.importorskip("pandas")
    from skmmd import HSICTest

    X, _ = wide_tables
    rng = np.random.default_rng(7)
    y = X.iloc[:, 0] + X.iloc[:, 5] + 0.3 * rng.normal(size=300)
    report = HSICTest(n_resamples=99, random_state=0).fit(X, y).explain(X, y)
    # Given in any order, the bars are by adjusted p-value, then the pooled
    # p-value, then z: as explain ranks them.
    shuffled = report.sample(frac=1.0, random_state=0).reset_index(drop=True)
    display = ColumnReportDisplay(report=shuffled).plot()
    keys = ["adjusted_p_value", "pooled_p_value", "z"]
    expected = report.sort_values(keys, ascending=[True, True, False])
    labels = [t.get_text() for t in display.ax_.get_yticklabels()]
    assert labels[:2] == [f"customer_lifeti\u2026imate_{i}_in_euros" for i in (0, 5)]
    assert len(labels) == len(expected)
    z_labels = [t.get_text() for t in display.z_labels_]
    assert z_labels == [f"z = {z:.3g}" for z in expected["z"]]
    title = display.ax_.get_title()
    assert "depend on y" in title and "moved" not in title
    tied = pd.DataFrame({"column": ["a", "b", "c"], "p_value": [0.01] * 3,
                         "adjusted_p_value": [0.01] * 3, "z": [2.0, 9.0, 5.0],
                         "mmd2_low": [0.0] * 3})  # fmt: skip
    display = ColumnReportDisplay(report=tied).plot()
    assert [t.get_text() for t in display.ax_.get_yticklabels()] == ["b", "c", "a"]
    # A table of one's own makes no claim of what a flag means.
    assert "3 of 3 columns flagged" == display.ax_.get_title()
    assert display.ax_.get_xlabel() == "-log10 adjusted p-value"


def _boxes(figure, texts):
    """The window extents of ``texts`` (non-empty), after a draw."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in texts if t.get_text().strip()]


def _assert_apart(boxes):
    """No two of ``boxes`` (stacked top to bottom) overlap."""
    boxes = sorted(boxes, key=lambda box: -box.y0)
    for upper, lower in zip(boxes, boxes[1:]):
        assert lower.y1 <= upper.y0 + 0.5, (upper.extents, lower.extents)


def test_every_column_drawn_at_500_columns_has_a_readable_label():
    """max_columns=None at 500 columns: the figure grows, every bar named,
    no tick label (nor z label) over another (they were, at 21 inches)."""
    report = column_report(n=500)
    display = ColumnReportDisplay(report=report, max_columns=None).plot()
    ticks = display.ax_.get_yticklabels()
    assert len(display.bars_) == len(ticks) == len(display.z_labels_) == 500
    assert display.ax_.get_title() == "3 of 500 columns moved"
    _assert_apart(_boxes(display.figure_, ticks))
    _assert_apart(_boxes(display.figure_, display.z_labels_))
    # Still 1:3 to 3:1 up to 60 bars (the readable-figure check).
    sixty = ColumnReportDisplay(report=column_report(n=60), max_columns=None).plot()
    width, height = sixty.figure_.get_size_inches()
    assert height / width <= 3


def test_given_short_axes_label_every_kth_bar():
    """Given axes too short for 200 labels: every k-th bar labelled, most
    evidence first, and no two labels overlap."""
    report = column_report(n=200)
    fig, ax = plt.subplots(figsize=(6, 5))
    display = ColumnReportDisplay(report=report, max_columns=None).plot(ax=ax)
    assert len(display.bars_) == 200
    ticks = display.ax_.get_yticklabels()
    assert 1 < len(ticks) < 200 and len(display.z_labels_) == len(ticks)
    assert ticks[0].get_text() == moved_columns(200)[0]
    step = display.ax_.get_yticks()[1] - display.ax_.get_yticks()[0]
    assert len(ticks) == int(np.ceil(200 / step))
    _assert_apart(_boxes(fig, ticks))
    _assert_apart(_boxes(fig, display.z_labels_))
