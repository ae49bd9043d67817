"""The displays draw what they say (matplotlib's Agg backend): the artists'
data are the fitted attributes, ``plot(ax=ax)`` draws into the given axes, an
unfitted estimator is an error."""

import copy
import sys

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from skmmd import (
    AggregatedMMDTest,
    MMDTest,
    OnlineMMDDetector,
    RandomFourierSampler,
    mmd_test,
)
from skmmd.inspection import (
    ColumnReportDisplay,
    DriftDisplay,
    NullDistributionDisplay,
    WitnessDisplay,
)

matplotlib = pytest.importorskip("matplotlib", reason="the displays need matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def shifted():
    """Three columns, the second shifted: it alone moved."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(300, 3)), rng.normal(size=(300, 3))
    Y[:, 1] += 1.0
    return X, Y


@pytest.fixture(scope="module")
def explained(shifted):
    return MMDTest(explain_columns=True, n_resamples=199, random_state=0).fit(*shifted)


@pytest.fixture(scope="module")
def detector():
    rng = np.random.default_rng(0)
    ref = rng.normal(size=(1000, 2))
    return OnlineMMDDetector(
        ert=500, window_size=[10, 30], n_bootstraps=500, random_state=0
    ).fit(ref)


def _vertical_at(line, x):
    xdata = np.asarray(line.get_xdata(), dtype=float)
    return xdata.size == 2 and np.all(xdata == x)


def test_null_display_draws_the_statistic_threshold_and_null(explained):
    display = NullDistributionDisplay.from_estimator(explained, bins=25)
    ax = display.ax_
    (statistic_line,) = display.statistic_lines_
    (threshold_line,) = display.threshold_lines_
    assert statistic_line in ax.lines and threshold_line in ax.lines
    assert _vertical_at(statistic_line, explained.statistic_)
    assert _vertical_at(threshold_line, explained.threshold_)
    heights = [patch.get_height() for patch in display.hist_[0]]
    assert len(heights) == 25 and sum(heights) == explained.n_resamples
    assert f"p-value = {explained.p_value_:.3g}" in ax.get_title()
    assert display.figure_ is ax.figure


def test_null_display_from_result_and_given_axes(explained):
    fig, ax = plt.subplots()
    display = NullDistributionDisplay.from_result(explained.result_, ax=ax, color="C2")
    assert display.ax_ is ax and display.figure_ is fig
    assert _vertical_at(display.statistic_lines_[0], explained.statistic_)
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
        assert _vertical_at(display.statistic_lines_[k], [0.5, 2.5, 1.0][k])
        expected = np.sort(null[:, k])[::-1][4]  # 5th largest of 99 + 1 values
        assert _vertical_at(display.threshold_lines_[k], expected)
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
    assert _vertical_at(display.statistic_lines_[-1], test.statistic_)
    for k, statistic in enumerate(test.statistics_):
        assert _vertical_at(display.statistic_lines_[k], statistic)


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
    assert _vertical_at(display.alpha_line_, -np.log10(explained.alpha))
    moved = report["adjusted_p_value"] <= explained.alpha
    colors = [bar.get_facecolor() for bar in display.bars_]
    assert [c == colors[0] for c in colors] == list(moved == moved.iloc[0])
    assert ax.get_title() == f"{int(moved.sum())} of 3 columns moved"


def test_column_report_display_from_result_and_kwargs(shifted):
    result = mmd_test(*shifted, explain=True, n_resamples=99, random_state=0)
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


def test_witness_display_curve_is_the_witness():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(300, 1)), rng.normal(size=(300, 1)) + 1.5
    test = MMDTest(n_resamples=19, random_state=0).fit(X, Y)
    display = WitnessDisplay.from_estimator(test, X, Y, 0, grid_resolution=50)
    x, y = display.line_.get_xdata(), display.line_.get_ydata()
    assert x.size == 50 and x.min() < min(X.min(), Y.min())
    assert np.allclose(y, test.witness(x.reshape(-1, 1)))
    assert y[0] > 0 > y[-1]  # X denser on the left, Y on the right
    assert len(display.marginals_) == 2 and display.line_ in display.ax_.lines


def test_witness_display_heat_map_and_average_over_other_columns(shifted):
    X, Y = shifted
    test = MMDTest(
        RandomFourierSampler(random_state=0), n_resamples=19, random_state=0
    ).fit(X, Y)
    fig, ax = plt.subplots()
    display = WitnessDisplay.from_estimator(
        test, X, Y, [1, 2], grid_resolution=7, n_background=5, ax=ax
    )
    assert display.ax_ is ax and display.witness.shape == (7, 7)
    assert np.allclose(display.mesh_.get_array().reshape(7, 7), display.witness)
    # the cell (row i, column j): columns 1 and 2 at (grid[0][j], grid[1][i]),
    # column 0 averaged over the same five background rows
    pooled = np.vstack([X, Y])
    rows = np.random.RandomState(0).choice(len(pooled), 5, replace=False)
    background = pooled[rows].copy()
    background[:, 1], background[:, 2] = display.grid[0][3], display.grid[1][5]
    assert display.witness[5, 3] == pytest.approx(test.witness(background).mean())
    assert len(display.points_) == 2


def test_witness_display_errors(shifted):
    X, Y = shifted
    test = MMDTest(n_resamples=19, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="one or two columns"):
        WitnessDisplay.from_estimator(test, X, Y, [0, 1, 2])
    with pytest.raises(ValueError, match="5 is not a column position of X"):
        WitnessDisplay.from_estimator(test, X, Y, 5)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": X[:, 0], "kind": np.where(X[:, 1] > 0, "u", "v")})
    other = pd.DataFrame({"a": Y[:, 0], "kind": np.where(Y[:, 1] > 0, "u", "v")})
    table_test = MMDTest(n_resamples=19, random_state=0).fit(frame, other)
    with pytest.raises(ValueError, match="'kind' is not numeric"):
        WitnessDisplay.from_estimator(table_test, frame, other, "kind")
    with pytest.raises(ValueError, match="'b' is not a column of X"):
        WitnessDisplay.from_estimator(table_test, frame, other, "b")
    display = WitnessDisplay.from_estimator(table_test, frame, other, "a")
    assert display.line_.get_ydata().size == 100
    with pytest.raises(
        ValueError, match=r"'grid_resolution' parameter .* range \[2, inf\)"
    ):
        WitnessDisplay.from_estimator(test, X, Y, 0, grid_resolution=1)


def test_drift_display_thresholds_and_detection(detector):
    rng = np.random.default_rng(4)
    stream = np.vstack([rng.normal(size=(150, 2)), rng.normal(size=(100, 2)) + 1.5])
    expected = copy.deepcopy(detector).update(stream)
    display = DriftDisplay.from_estimator(detector, stream)
    assert detector.t_ == 0 and detector.detection_time_ is None  # unchanged
    max_window = detector.windows_[-1]
    steps = np.minimum(np.arange(1, 251), max_window) - 1
    for k in range(len(detector.windows_)):
        line = display.threshold_lines_[k]
        assert np.array_equal(line.get_xdata(), np.arange(1, 251))
        assert np.array_equal(line.get_ydata(), detector.thresholds_[steps, k])
        assert np.array_equal(
            display.statistic_lines_[k].get_ydata(), expected.statistic[:, k]
        )
        assert line.get_color() == display.statistic_lines_[k].get_color()
    first = int(expected.time[expected.drift.argmax()])
    assert expected.drift.any()
    assert display.detection_time == first
    assert _vertical_at(display.detection_line_, first)
    labels = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert labels[:2] == ["window 10", "window 30"]


def test_drift_display_from_result_into_given_axes(detector):
    rng = np.random.default_rng(5)
    result = copy.deepcopy(detector).update(rng.normal(size=(40, 2)))
    fig, ax = plt.subplots()
    display = DriftDisplay.from_result(result, ax=ax, lw=3)
    assert display.ax_ is ax and display.detection_line_ is None
    assert display.statistic_lines_[0].get_linewidth() == 3
    assert np.array_equal(
        display.threshold_lines_[1].get_ydata(), result.threshold[:, 1]
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: NullDistributionDisplay.from_estimator(MMDTest()),
        lambda: NullDistributionDisplay.from_estimator(AggregatedMMDTest()),
        lambda: ColumnReportDisplay.from_estimator(MMDTest(explain_columns=True)),
        lambda: WitnessDisplay.from_estimator(MMDTest(), [[0.0]], [[1.0]], 0),
        lambda: DriftDisplay.from_estimator(OnlineMMDDetector(), [[0.0]]),
    ],
    ids=["null", "null-aggregated", "columns", "witness", "drift"],
)
def test_unfitted_estimators_are_not_drawn(make):
    with pytest.raises(NotFittedError):
        make()


def test_missing_matplotlib_names_the_extra(monkeypatch, explained):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(
        ImportError, match=r'NullDistributionDisplay.plot needs mat.*"skmmd\[plot\]"'
    ):
        NullDistributionDisplay.from_estimator(explained)


# Readable figures -------------------------------------------------------------
# Every figure a display makes: between 1:3 and 3:1, and every text it draws
# inside it (matplotlib's Agg renderer).


def _drawn_texts(figure):
    """The texts the renderer draws: tick labels only within their axis'
    view (matplotlib keeps, undrawn, those of ticks beyond it)."""
    beyond = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not ax.axison:  # axis("off"): no tick drawn
                ticks = axis.get_major_ticks() + axis.get_minor_ticks()
                beyond.update(id(t.label1) for t in ticks)
                beyond.update(id(t.label2) for t in ticks)
                continue
            low, high = sorted(axis.get_view_interval())
            tol = 1e-9 * max(1.0, abs(high - low))
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - tol <= tick.get_loc() <= high + tol:
                    beyond.update((id(tick.label1), id(tick.label2)))
    for text in figure.findobj(matplotlib.text.Text):
        if id(text) in beyond or not text.get_visible() or not text.get_text().strip():
            continue
        if text.axes is not None and not text.axes.get_visible():
            continue
        yield text


def _assert_readable(figure):
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    assert 1 / 3 <= width / height <= 3, (width, height)
    texts = list(_drawn_texts(figure))
    assert texts
    for text in texts:
        box = text.get_window_extent(renderer)
        inside = (box.x0 >= -0.5 and box.y0 >= -0.5 and box.x1 <= width + 0.5
                  and box.y1 <= height + 0.5)  # fmt: skip
        assert inside, (text.get_text(), box.extents, (width, height))


@pytest.fixture(scope="module")
def wide_tables():
    """Twelve columns with long names, the first three shifted."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    names = [f"customer_lifetime_value_estimate_{i}_in_euros" for i in range(12)]
    X = pd.DataFrame(rng.normal(size=(300, 12)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(300, 12)), columns=names)
    Y.iloc[:, :3] += 1.5
    return X, Y


def _figures(wide_tables, detector):
    from skmmd import HSICTest

    X, Y = wide_tables
    rng = np.random.default_rng(6)
    A, B = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + 0.4
    aggregated = AggregatedMMDTest(kernels=["gaussian"], n_bandwidths=21,
                                   n_components=16, n_resamples=99,
                                   random_state=0).fit(A, B)  # fmt: skip
    assert len(aggregated.kernels_) == 21
    yield NullDistributionDisplay.from_estimator(aggregated)
    yield NullDistributionDisplay.from_estimator(MMDTest(random_state=0).fit(A, B))
    test = MMDTest(explain_columns=True, n_resamples=99, random_state=0).fit(X, Y)
    yield ColumnReportDisplay.from_estimator(test)
    y = X.iloc[:, 0] + X.iloc[:, 5] + 0.3 * rng.normal(size=300)
    screening = HSICTest(n_resamples=99, random_state=0).fit(X, y).explain(X, y)
    yield ColumnReportDisplay(report=screening).plot()
    yield WitnessDisplay.from_estimator(test, X, Y, X.columns[0], n_background=20,
                                        grid_resolution=30)  # fmt: skip
    yield WitnessDisplay.from_estimator(test, X, Y, list(X.columns[:2]),
                                        n_background=5, grid_resolution=15)  # fmt: skip
    yield DriftDisplay.from_estimator(detector, rng.normal(size=(300, 2)) + 0.5)


def test_every_display_figure_is_readable(wide_tables, detector):
    # The aggregated test of 21 kernels made one row of 22 panels (5670 x 210
    # pixels); long column names were clipped on the left.
    displays = list(_figures(wide_tables, detector))
    for display in displays:
        _assert_readable(display.figure_)
    aggregated = displays[0]
    assert aggregated.axes_.shape == (22,)
    assert len({ax.get_position().y0 for ax in aggregated.axes_}) > 1  # a grid


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
    assert "moved" in display.ax_.get_title()


def test_witness_display_of_one_column_says_it_averages(shifted):
    X, Y = shifted
    test = MMDTest(n_resamples=19, random_state=0).fit(X, Y)
    display = WitnessDisplay.from_estimator(test, X, Y, 1, n_background=10)
    title = display.ax_.get_title()
    assert "Witness along column 1" in title
    assert "averaged over the other 2 columns" in title
    assert display.ax_.get_ylabel() and display.ax_.get_xlabel() == "column 1"
    assert display.marginal_ax_.get_ylabel() == "density of each sample"
    alone = MMDTest(n_resamples=19, random_state=0).fit(X[:, :1], Y[:, :1])
    display = WitnessDisplay.from_estimator(alone, X[:, :1], Y[:, :1], 0)
    assert display.ax_.get_title() == ""  # the witness itself: nothing averaged


@pytest.mark.parametrize(
    "example", ["plot_witness_2d.py", "plot_table_drift.py", "plot_online_drift.py"]
)
def test_gallery_examples_with_displays_are_readable(example, monkeypatch, tmp_path):
    """The gallery's examples that draw displays: every figure readable (the
    other examples, checked the same way once, are too slow for the suite)."""
    import runpy
    import warnings
    from pathlib import Path

    if example == "plot_table_drift.py":  # its data: the docs extra's
        pytest.importorskip("palmerpenguins", reason="the penguins' table")
    path = Path(__file__).resolve().parents[1] / "examples" / example
    monkeypatch.chdir(tmp_path)  # files an example writes stay here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plt.show() on Agg, data warnings
        runpy.run_path(str(path), run_name="__main__")
    numbers = plt.get_fignums()
    assert numbers
    for number in numbers:
        _assert_readable(plt.figure(number))
