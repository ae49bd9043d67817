"""NullDistributionDisplay (skmmd/inspection/_null.py): the statistic, the
threshold and the null drawn; one panel per kernel of an aggregated test."""

import numpy as np
import pytest

from skmmd import AggregatedMMDTest
from skmmd.inspection import NullDistributionDisplay
from tests.helpers.artists import vertical_at

matplotlib = pytest.importorskip("matplotlib", reason="the displays need matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


def test_null_display_draws_the_statistic_threshold_and_null(explained):
    display = NullDistributionDisplay.from_estimator(explained, bins=25)
    ax = display.ax_
    (statistic_line,) = display.statistic_lines_
    (threshold_line,) = display.threshold_lines_
    assert statistic_line in ax.lines and threshold_line in ax.lines
    assert vertical_at(statistic_line, explained.statistic_)
    assert vertical_at(threshold_line, explained.table_threshold_)
    heights = [patch.get_height() for patch in display.hist_[0]]
    assert len(heights) == 25 and sum(heights) == explained.n_resamples
    assert f"p-value = {explained.table_p_value_:.3g}" in ax.get_title()
    assert display.figure_ is ax.figure


def test_null_display_from_result_and_given_axes(explained):
    fig, ax = plt.subplots()
    display = NullDistributionDisplay.from_result(explained.result_, ax=ax, color="C2")
    assert display.ax_ is ax and display.figure_ is fig
    assert vertical_at(display.statistic_lines_[0], explained.statistic_)
    # kwargs reach Axes.hist
    face = display.hist_[0][0].get_facecolor()
    assert np.allclose(face[:3], matplotlib.colors.to_rgb("C2"))
    # drawn again into other axes
    fig2, ax2 = plt.subplots()
    assert display.plot(ax=ax2).ax_ is ax2


def test_null_display_one_panel_per_kernel():
    rng = np.random.default_rng(1)
    null = rng.normal(size=(99, 3))
    display = NullDistributionDisplay(
        null_distribution=null,
        statistic=[0.5, 2.5, 1.0],
        p_value=[0.3, 0.01, 0.2],
        alpha=0.05,
        names=["narrow", "wide", "aggregated"],
    ).plot()
    assert display.axes_.shape == (3,)
    for k, ax in enumerate(display.axes_):
        assert vertical_at(display.statistic_lines_[k], [0.5, 2.5, 1.0][k])
        expected = np.sort(null[:, k])[::-1][4]  # 5th largest of 99 + 1 values
        assert vertical_at(display.threshold_lines_[k], expected)
        assert ax.get_title().startswith(["narrow", "wide", "aggregated"][k])
    with pytest.raises(ValueError, match="draws 3 panel"):
        display.plot(ax=plt.subplots()[1])


def test_null_display_of_the_aggregated_test():
    """One panel per kernel (``null_distributions_``), then the aggregated
    statistic's."""
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + 0.4
    test = AggregatedMMDTest(n_resamples=99, random_state=0).fit(X, Y)
    assert test.null_distributions_.shape == (99, len(test.kernels_))
    display = NullDistributionDisplay.from_estimator(test)
    assert display.axes_.shape == (len(test.kernels_) + 1,)
    assert vertical_at(display.statistic_lines_[-1], test.statistic_)
    for k, statistic in enumerate(test.statistics_):
        assert vertical_at(display.statistic_lines_[k], statistic)


def _legend_of(display):
    """The display's legend, wherever it is drawn."""
    legends = [*display.figure_.legends, *(ax.get_legend() for ax in display.axes_)]
    (legend,) = [legend for legend in legends if legend is not None]
    return legend


def _assert_nothing_covered(display):
    """After a draw: the legend lies in the figure and over no panel, and
    no drawn text (tick labels, axis labels, titles, legend entries) overlaps
    another."""
    from itertools import combinations

    from tests.inspection.test_plotting import _drawn_texts

    figure = display.figure_
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    legend = _legend_of(display).get_window_extent(renderer)
    assert figure.bbox.x0 <= legend.x0 and legend.x1 <= figure.bbox.x1 + 0.5
    assert figure.bbox.y0 <= legend.y0 and legend.y1 <= figure.bbox.y1 + 0.5
    for ax in display.axes_:
        assert not legend.overlaps(ax.get_window_extent(renderer)), ax.get_title()
    boxes = [
        (t.get_text(), t.get_window_extent(renderer)) for t in _drawn_texts(figure)
    ]
    for (a, box_a), (b, box_b) in combinations(boxes, 2):
        assert not box_a.overlaps(box_b), (a, b)


def test_null_display_legend_covers_no_line_and_no_label():
    """The legend sat in the panel, over the statistic's line (at the right
    edge) or the histogram; it is drawn outside the panels, and no text
    overlaps another, for one panel, a grid, and given axes."""
    rng = np.random.default_rng(3)
    null = rng.normal(size=(999, 6)) * 1e-3
    statistic = null.max(axis=0) * 1.02  # each line at its panel's right edge
    one = NullDistributionDisplay(
        null_distribution=null[:, 0], statistic=statistic[0], p_value=0.001, alpha=0.05
    ).plot()
    assert one.legend_ is one.figure_.legends[0]
    assert [t.get_text() for t in one.legend_.get_texts()] == [
        "resampled statistics", "statistic", "threshold at alpha = 0.05"]  # fmt: skip
    _assert_nothing_covered(one)
    grid = NullDistributionDisplay(
        null_distribution=null, statistic=statistic, p_value=[0.001] * 6, alpha=0.05,
        names=[f"gaussian(bandwidth={k}.123456)" for k in range(6)],
    ).plot()  # fmt: skip
    _assert_nothing_covered(grid)
    fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    given = NullDistributionDisplay(
        null_distribution=null[:, 0], statistic=statistic[0], p_value=0.001, alpha=0.05
    ).plot(ax=ax)
    assert given.legend_ is ax.get_legend()
    _assert_nothing_covered(given)


def test_null_display_of_the_aggregated_test_puts_each_threshold_on_its_scale():
    """Each kernel's panel draws its own null's threshold; the aggregated
    threshold (on the scale of -log p) only on the aggregated panel."""
    from skmmd._inference._calibration import threshold

    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + 0.4
    test = AggregatedMMDTest(n_resamples=99, random_state=0).fit(X, Y)
    display = NullDistributionDisplay.from_estimator(test)
    for k in range(len(test.kernels_)):
        own = threshold(test.null_distributions_[:, k], test.alpha)
        assert vertical_at(display.threshold_lines_[k], own)
    assert vertical_at(display.threshold_lines_[-1], test.threshold_)
