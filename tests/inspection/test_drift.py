"""DriftDisplay (skmmd/inspection/_drift.py): thresholds and detections
drawn, from a result into given axes."""

import copy

import numpy as np
import pytest

from skmmd.inspection import DriftDisplay
from tests.helpers.artists import vertical_at

matplotlib = pytest.importorskip("matplotlib", reason="the displays need matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


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
    assert vertical_at(display.detection_line_, first)
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
