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
    assert vertical_at(threshold_line, explained.threshold_)
    heights = [patch.get_height() for patch in display.hist_[0]]
    assert len(heights) == 25 and sum(heights) == explained.n_resamples
    assert f"p-value = {explained.p_value_:.3g}" in ax.get_title()
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
