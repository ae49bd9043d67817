"""The witness function of a fitted test along one or two columns."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.validation import check_is_fitted

from .._tables._kinds import numeric_column
from .._tables._labels import is_dataframe
from .._utils._compat import Interval, validate_params
from ._plotting import axes, shorten

# Rows per call of the witness while evaluating the grid (memory: rows x D).
_ROWS = 16384


def _column(sample, column):
    """One column of a DataFrame (by name) or an array (by position)."""
    if is_dataframe(sample):
        if column not in sample.columns:
            raise ValueError(
                f"columns: {column!r} is not a column of X "
                f"({list(sample.columns)[:20]})."
            )
        values = sample[column]
        if not numeric_column(values):
            raise ValueError(
                f"columns: {column!r} is not numeric; the witness is drawn along "
                "numeric columns (see MMDTest.witness_points for any column)."
            )
        return values.to_numpy(dtype=float, na_value=np.nan)
    sample = np.asarray(sample)
    if not (isinstance(column, (int, np.integer)) and 0 <= column < sample.shape[1]):
        raise ValueError(
            f"columns: {column!r} is not a column position of X (0 to "
            f"{sample.shape[1] - 1})."
        )
    return sample[:, column].astype(float)


def _pooled(X, Y):
    if is_dataframe(X):
        import pandas as pd

        return pd.concat([X, Y], ignore_index=True)
    return np.vstack([np.asarray(X, dtype=float), np.asarray(Y, dtype=float)])


def _witness_on_grid(estimator, background, columns, points):
    """The witness at each of ``points`` (grid x len(columns)) averaged over
    the ``background`` rows, whose ``columns`` take the point's values."""
    n_bg = background.shape[0]
    out = np.empty(points.shape[0])
    for chunk in gen_batches(points.shape[0], max(1, _ROWS // n_bg)):
        block = points[chunk]
        repeat = np.repeat(block, n_bg, axis=0)
        tiled = np.tile(np.arange(n_bg), block.shape[0])
        if is_dataframe(background):
            rows = background.iloc[tiled].reset_index(drop=True)
            for j, column in enumerate(columns):
                rows[column] = repeat[:, j]
        else:
            rows = background[tiled].copy()
            rows[:, list(columns)] = repeat
        values = estimator.witness(rows)
        out[chunk] = values.reshape(block.shape[0], n_bg).mean(axis=1)
    return out


class WitnessDisplay:
    """The witness function along one column (a curve) or two (a heat map).

    The witness ``f(x) = mean_i k(x, x_i) - mean_j k(x, y_j)`` is positive
    where the first sample (X) has more mass, negative where the second has.
    Along chosen columns it is averaged over the other columns' values in the
    data (as a partial dependence is), so with only those columns it is the
    witness itself.

    Parameters
    ----------
    grid : list of ndarray
        One or two 1-D arrays: the values of the columns where it is drawn.
    witness : ndarray of shape (n,) or (n_2, n_1)
        The witness on the grid (for two columns, rows follow the second).
    columns : list
        The column names (or positions).
    X_values : ndarray of shape (m, n_columns), default=None
        The first sample's values of the columns (marginals or points).
    Y_values : ndarray of shape (n, n_columns), default=None
        The second sample's.
    n_other_columns : int, default=0
        The columns of the data besides ``columns``, which the witness is
        averaged over; the title says so when there are any.

    Attributes
    ----------
    line_ : matplotlib Line2D
        One column: the witness curve.
    mesh_ : matplotlib QuadMesh
        Two columns: the heat map.
    colorbar_ : matplotlib Colorbar
        Two columns: its colour bar.
    marginals_ : list of BarContainer
        One column: the two samples' histograms (densities, on
        ``marginal_ax_``).
    marginal_ax_ : matplotlib Axes
        One column: the twin axes of the histograms.
    points_ : list of PathCollection
        Two columns: the two samples' points.
    ax_ : matplotlib Axes
        The axes drawn into.
    figure_ : matplotlib Figure
        Its figure.

    See Also
    --------
    skmmd.MMDTest.witness : The witness at given points.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skmmd import MMDTest
    >>> from skmmd.inspection import WitnessDisplay
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(300, 1)), rng.normal(size=(300, 1)) + 1.0
    >>> test = MMDTest(random_state=0).fit(X, Y)
    >>> display = WitnessDisplay.from_estimator(test, X, Y, columns=0)
    >>> curve = display.line_.get_ydata()
    >>> bool(curve[0] > 0 > curve[-1])  # X on the left, Y on the right
    True
    """

    def __init__(
        self,
        *,
        grid,
        witness,
        columns,
        X_values=None,
        Y_values=None,
        n_other_columns=0,
    ):
        self.grid = grid
        self.witness = witness
        self.columns = columns
        self.X_values = X_values
        self.Y_values = Y_values
        self.n_other_columns = n_other_columns

    def plot(self, ax=None, *, n_points=300, **kwargs):
        """Draw the curve or the heat map, with the samples.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; ``None`` makes a figure.
        n_points : int, default=300
            Two columns: points of each sample drawn over the heat map.
        **kwargs : dict
            Passed to ``Axes.plot`` (one column) or ``Axes.pcolormesh`` (two).

        Returns
        -------
        display : WitnessDisplay
            The display, with its artists.
        """
        size = (5.5, 4.0) if len(self.grid) == 1 else (6.0, 4.8)
        (self.ax_,), self.figure_ = axes(
            ax, 1, type(self).__name__ + ".plot", panel_size=size
        )
        names = [
            f"column {c}" if isinstance(c, (int, np.integer)) else shorten(c, 40)
            for c in self.columns
        ]
        if self.n_other_columns:
            others = self.n_other_columns
            plural = "s" if others > 1 else ""
            lines = [
                f"Witness along {names[0]}",
                *(f"and {name}" for name in names[1:]),
                f"averaged over the other {others} column{plural}",
            ]
            self.ax_.set_title("\n".join(lines), fontsize="medium")
        samples = [("X", "C0", self.X_values), ("Y", "C1", self.Y_values)]
        if len(self.grid) == 1:
            (self.line_,) = self.ax_.plot(
                self.grid[0],
                self.witness,
                **{"color": "k", "label": "witness", **kwargs},
            )
            self.ax_.axhline(0.0, color="0.5", lw=0.8)
            self.marginal_ax_ = self.ax_.twinx()
            self.marginals_ = []
            for label, color, values in samples:
                if values is None:
                    continue
                values = values[:, 0][np.isfinite(values[:, 0])]
                self.marginals_.append(
                    self.marginal_ax_.hist(
                        values, bins=40, density=True, alpha=0.3, color=color,
                        label=f"{label} (density)",
                    )[2]
                )  # fmt: skip
            self.ax_.set(xlabel=names[0], ylabel="witness (> 0: X denser)")
            self.marginal_ax_.set_ylabel("density of each sample")
            self.ax_.set_zorder(self.marginal_ax_.get_zorder() + 1)
            self.ax_.patch.set_visible(False)  # the curve over the histograms
            handles = [self.line_, *(bars[0] for bars in self.marginals_)]
            self.ax_.legend(handles=handles, loc="best", fontsize="small")
            return self
        limit = np.nanmax(np.abs(self.witness)) or 1.0
        mesh_kwargs = {"cmap": "RdBu_r", "vmin": -limit, "vmax": limit, **kwargs}
        self.mesh_ = self.ax_.pcolormesh(
            self.grid[0], self.grid[1], self.witness, **mesh_kwargs
        )
        self.colorbar_ = self.figure_.colorbar(
            self.mesh_, ax=self.ax_, label="witness: > 0 where X is denser"
        )
        # Black and green points: the colour map's red and blue are the witness.
        self.points_ = [
            self.ax_.scatter(
                *values[:n_points].T,
                s=3,
                color=color,
                label=f"{label} (first {n_points})",
            )
            for (label, _, values), color in zip(samples, ["k", "tab:green"])
            if values is not None
        ]
        self.ax_.set(xlabel=names[0], ylabel=names[1])
        self.ax_.legend(loc="lower right", fontsize="small")
        return self

    @classmethod
    @validate_params(
        {
            "grid_resolution": [Interval(Integral, 2, None, closed="left")],
            "n_background": [Interval(Integral, 1, None, closed="left")],
            "random_state": ["random_state"],
        },
        prefer_skip_nested_validation=False,
    )
    def from_estimator(
        cls,
        estimator,
        X,
        Y,
        columns,
        *,
        grid_resolution=100,
        n_background=100,
        random_state=0,
        ax=None,
        **kwargs,
    ):
        """Evaluate a fitted test's witness along ``columns`` and draw it.

        Parameters
        ----------
        estimator : MMDTest
            A fitted test (its :meth:`~skmmd.MMDTest.witness`).
        X, Y : DataFrame or array-like of shape (n_rows, n_features)
            The two samples (for the data range, the other columns' values and
            the marginals).
        columns : column name or position, or a list of one or two of them
            Numeric columns: one gives a curve, two a heat map.
        grid_resolution : int, default=100
            Grid points per column, over the pooled data's range.
        n_background : int, default=100
            Rows of the pooled sample whose other columns the witness is
            averaged over (none are needed when ``columns`` are all of them).
        random_state : int, RandomState instance or None, default=0
            Draws the background rows. Pass an int for reproducible output.
        ax : matplotlib Axes, default=None
            Where to draw.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : WitnessDisplay
            The display, drawn.
        """
        check_is_fitted(estimator)
        columns = list(columns) if isinstance(columns, (list, tuple)) else [columns]
        if not 1 <= len(columns) <= 2:
            raise ValueError(
                f"columns: give one or two columns to draw along; got {columns!r}."
            )
        X_values = np.column_stack([_column(X, c) for c in columns])
        Y_values = np.column_stack([_column(Y, c) for c in columns])
        pooled_values = np.vstack([X_values, Y_values])
        grid = []
        for j in range(len(columns)):
            low, high = np.nanmin(pooled_values[:, j]), np.nanmax(pooled_values[:, j])
            pad = 0.05 * (high - low) or 0.5
            grid.append(np.linspace(low - pad, high + pad, grid_resolution))
        pooled = _pooled(X, Y)
        n_columns = pooled.shape[1]
        n_bg = 1 if n_columns == len(columns) else min(n_background, len(pooled))
        rows = check_random_state(random_state).choice(len(pooled), n_bg, replace=False)
        background = pooled.iloc[rows] if is_dataframe(pooled) else pooled[rows]
        mesh = np.meshgrid(*grid)  # for two columns: rows follow the second
        points = np.column_stack([m.ravel() for m in mesh])
        witness = _witness_on_grid(estimator, background, columns, points)
        display = cls(
            grid=grid,
            witness=witness.reshape(mesh[0].shape),
            columns=columns,
            X_values=X_values,
            Y_values=Y_values,
            n_other_columns=n_columns - len(columns),
        )
        return display.plot(ax=ax, **kwargs)
