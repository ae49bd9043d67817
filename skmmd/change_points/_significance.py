"""Each change's p-value: the test of a segment of rows in time order for a
change anywhere in it (the largest CUSUM of its features over the splits,
:class:`~skmmd.statistics._cusum.CusumParts`), calibrated by the library's
multiplier bootstrap in the one calibration loop, on units (or blocks) of
consecutive rows; and binary segmentation that splits a segment only when
its test rejects."""

import numpy as np

from .._inference import _blocks
from .._inference._calibration import p_value
from .._inference._multiplier import multiplier_unit, resampled_multiplier
from .._utils import _budgets, _streams
from ..statistics._cusum import CusumParts
from ._search import best_split


class SegmentTest:
    """The test of a change in a segment ``[a, b)`` of a
    :class:`~._cost.SegmentCost`'s rows.

    Parameters
    ----------
    cost : SegmentCost
        The rows' cumulative features.
    block_size : None, "auto" or int
        Rows per block of the multiplier bootstrap (None: units of the
        fewest rows the budgets allow, rows exchangeable).
    loop : dict
        The calibration loop's options (``n_resamples``, ``batch``,
        ``n_jobs``, ``verbose``; :func:`~skmmd._inference._base.loop_options`).
    seed : int
        The test's seed: each segment's signs from its own stream.
    """

    def __init__(self, cost, block_size, loop, seed):
        self.cost, self.block_size = cost, block_size
        self.loop, self.seed = dict(loop), seed
        self.loop.pop("seed", None)
        self.loop.pop("stopping", None)
        self.first_rows = None  # rows per block of the first test
        self.tested = 0

    def units(self, a, b):
        """``(U, sizes, scale, rows)``: the unit sums of ``[a, b)`` (or its
        blocks'), the correction of the null and the rows per block (None
        without blocks); None when the segment has too few rows."""
        m, width = b - a, self.cost.C.shape[1]
        unit = multiplier_unit(
            m, self.loop["n_resamples"], width, _budgets.CHANGE_UNITS
        )
        scale, rows = 1.0, None
        if self.block_size is not None:
            unit, scale, rows = self._segment_blocks(a, b, unit)
        full = m // unit
        if full < _budgets.MIN_UNITS:
            return None
        edges = a + unit * np.arange(full + 1)
        if edges[-1] < b:  # the last rows, a unit of their own
            edges = np.append(edges, b)
        return self.cost.unit_sums(edges), np.diff(edges), scale, rows

    def _segment_blocks(self, a, b, least):
        """``(rows, scale, rows)`` of the blocks of ``[a, b)``: the rule of
        ``block_size`` (:func:`~skmmd._inference._blocks.choose`) read from
        the sums of small units (up to ``_budgets.ORDER_UNITS``), centered
        on each side of the segment's best split, for a change would look
        like a long dependence of the rows; at least ``least`` rows."""
        m, width = b - a, self.cost.C.shape[1]
        fine = _budgets.smallest_unit(
            lambda u: (
                m // u <= _budgets.ORDER_UNITS
                and (m // u) * width <= _budgets.UNIT_ENTRIES
            )
        )
        full = m // fine
        if full < _budgets.MIN_UNITS:
            return least, 1.0, least
        U = self.cost.unit_sums(a + fine * np.arange(full + 1))
        residuals = CusumParts(U, np.full(full, fine)).residuals()
        choice = _blocks.choose(
            self.block_size, [[residuals]], fine, max(1, least // fine)
        )
        return choice.rows, float(choice.scales[0].max()), choice.rows

    def __call__(self, a, b):
        """The p-value of a change in ``[a, b)``, or None for a segment too
        short to test."""
        found = self.units(a, b)
        if found is None:
            return None
        U, sizes, scale, rows = found
        if not self.tested:
            self.first_rows = rows
        self.tested += 1
        parts = CusumParts(U, sizes, null_scale=scale)
        seed = [self.seed, _streams.CHANGE_TESTS, a, b]
        observed, null, tolerance = resampled_multiplier(parts, seed=seed, **self.loop)
        return float(p_value(observed, null, tolerance))


def tested_segmentation(cost, test, alpha, min_size, max_changes=None):
    """Binary segmentation by significance: test the whole series, and split
    a segment at its best split (the most cost removed) only while its test
    rejects at ``alpha``. Returns ``(points, p_values)``: the sorted change
    points and the p-value of the test that found each.

    With no change at all, only the first test can reject: any change is
    reported with probability at most ``alpha`` (up to the bootstrap's
    approximation).
    """
    found, pending = {}, [(0, cost.n)]
    while pending:
        if max_changes is not None and len(found) >= max_changes:
            break
        a, b = pending.pop(0)
        if b - a < 2 * min_size:
            continue
        p = test(a, b)
        if p is None or p > alpha:
            continue
        _, k = best_split(cost, a, b, min_size)
        found[k] = p
        pending += [(a, k), (k, b)]
    points = np.array(sorted(found), dtype=np.int64)
    return points, np.array([found[k] for k in points])


def neighbour_p_values(cost, test, points):
    """Each change's p-value: the test of the segment between its
    neighbours (the change before and the change after, or the ends), for
    a change anywhere in it; NaN where that segment is too short."""
    edges = np.concatenate([[0], points, [cost.n]])
    out = np.full(points.size, np.nan)
    for i in range(points.size):
        p = test(int(edges[i]), int(edges[i + 2]))
        if p is not None:
            out[i] = p
    return out
