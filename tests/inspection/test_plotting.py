"""What every display shares (skmmd/inspection/_plotting.py, matplotlib's Agg
backend): an unfitted estimator is an error, a missing matplotlib names the
extra, and every figure (the gallery's too) is readable."""

import sys

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from skmmd import AggregatedMMDTest, MMDTest, OnlineMMDDetector
from skmmd.inspection import (
    ColumnReportDisplay,
    DriftDisplay,
    NullDistributionDisplay,
    WitnessDisplay,
)

matplotlib = pytest.importorskip("matplotlib", reason="the displays need matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


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


@pytest.mark.slow
def test_every_display_figure_is_readable(wide_tables, detector):
    # The aggregated test of 21 kernels made one row of 22 panels (5670 x 210
    # pixels); long column names were clipped on the left.
    displays = list(_figures(wide_tables, detector))
    for display in displays:
        _assert_readable(display.figure_)
    aggregated = displays[0]
    assert aggregated.axes_.shape == (22,)
    assert len({ax.get_position().y0 for ax in aggregated.axes_}) > 1  # a grid


@pytest.mark.parametrize(
    "example",
    [
        "plot_witness_2d.py",
        "plot_table_drift.py",
        pytest.param("plot_online_drift.py", marks=pytest.mark.slow),
    ],
)
def test_gallery_examples_with_displays_are_readable(example, monkeypatch, tmp_path):
    """The gallery's examples that draw displays: every figure readable (the
    other examples, checked the same way once, are too slow for the suite)."""
    import runpy
    import warnings
    from pathlib import Path

    if example == "plot_table_drift.py":  # its data: the docs extra's
        pytest.importorskip("palmerpenguins", reason="the penguins' table")
    path = Path(__file__).resolve().parents[2] / "examples" / example
    monkeypatch.chdir(tmp_path)  # files an example writes stay here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plt.show() on Agg, data warnings
        runpy.run_path(str(path), run_name="__main__")
    numbers = plt.get_fignums()
    assert numbers
    for number in numbers:
        _assert_readable(plt.figure(number))
