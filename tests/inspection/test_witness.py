"""WitnessDisplay (skmmd/inspection/_witness.py): the curve is the witness,
the heat map and the average over the other columns, errors."""

import numpy as np
import pytest

from skmmd import MMDTest, RandomFourierSampler
from skmmd.inspection import WitnessDisplay

matplotlib = pytest.importorskip("matplotlib", reason="the displays need matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


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
