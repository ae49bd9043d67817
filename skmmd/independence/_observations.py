"""The observations of the independence tests: the pipeline of each
variable's feature maps over the pairs, its unit sums scaled to
observations, and the effect size of every pair of maps."""

import numpy as np

from .._inference import _blocks, _streaming
from .._utils import _budgets
from ..statistics._hsic import MAX_OBSERVATIONS, draw_variances


class _Half:
    """A fitted feature map of one variable of the pairs ``(X, Y)``."""

    def __init__(self, transformer, which):
        self.transformer, self.which = transformer, which

    def transform(self, P):
        return self.transformer.transform(P[self.which])


class _FusedHalf(_Half):
    """:class:`_Half` of a map with fused per-unit sums (no feature matrix)."""

    def grouped_sums(self, P, groups, n_groups, out=None):
        return self.transformer.grouped_sums(P[self.which], groups, n_groups, out=out)


def _half(transformer, which):
    fused = getattr(transformer, "grouped_sums", None) is not None
    return (_FusedHalf if fused else _Half)(transformer, which)


def _column_draws(transformer):
    """The independent draw behind each of a fitted map's columns, or None."""
    draws = getattr(transformer, "column_draws", None)
    return None if draws is None else draws()


def serial_correction(test):
    """The jackknife's correction for observations in time order (with the
    test's ``block_size``: :func:`~skmmd._inference._blocks.long_run_factor`),
    or None for exchangeable ones."""
    return None if test.block_size is None else _blocks.long_run_factor


def effect_sizes(parts, xs, ys, x_maps, y_maps, long_run=None):
    """The unbiased HSIC of every pair of maps and its standard error: the
    jackknife over the observations ``xs``, ``ys`` (features of each map;
    ``long_run``: in time order, see :func:`serial_correction`), and the spread over
    the draw of the maps' random features (see
    :func:`skmmd.statistics._hsic.draw_variances`), so that the interval is for the
    HSIC of the kernel, not of one draw of its features."""
    hsic, se = parts.jackknife(long_run)
    draws = [_column_draws(m) for m in x_maps], [_column_draws(m) for m in y_maps]
    spread = draw_variances(xs, ys, *draws)
    return hsic, np.sqrt(se**2 + (spread[0] if parts.single else spread))


def _pair_stream(engine, pairs, x_maps, y_maps, unit, seed, ordered=False):
    """The pipeline of fitted maps of X (one, one per column group, or a
    grid) and of y (one, or a grid) over the pairs' rows, x maps first
    (``ordered``: units of consecutive pairs, rows in time order)."""
    maps = [_half(t, 0) for t in x_maps] + [_half(t, 1) for t in y_maps]
    widths = [engine.width(t, pairs) for t in maps]
    return _streaming.Stream(maps, widths, unit, seed, engine.rows, ordered)


def block_shift(test, observations, unit, rows=None):
    """``(shift, rows)``: with the test's ``block_size``, the least shift of
    y's units against x's in units, and in rows: ``rows`` given (a report's,
    the fitted test's ``block_size_``), or chosen from every map's
    ``observations`` in time order; ``(None, None)`` without it."""
    if test.block_size is None:
        return None, None
    if rows is None:
        choice = _blocks.choose(test.block_size, [[V] for V in observations], unit)
        return choice.units, choice.rows
    units = -(-rows // unit)
    return units, units * unit


def _auto_unit(n_rows, n_resamples, max_units=MAX_OBSERVATIONS):
    """The smallest power of two keeping ``n_resamples x units^2`` within the
    pairing budget and the units within the Gram limit
    (:func:`~skmmd._utils._budgets.smallest_unit`)."""

    def fits(unit):
        units = n_rows // unit
        return units <= max_units and n_resamples * units**2 <= _budgets.PAIRING_ENTRIES

    return _budgets.smallest_unit(fits)


def observations(sums, unit):
    """The observations of units of ``unit`` pairs: each variable's unit sums
    of features divided by ``sqrt(unit)``.

    The pairs are independent draws grouped at random, so these have the
    covariances of one pair's features (the cross-covariance ``C_xy`` and
    each variable's own): their HSIC estimates the HSIC of the rows,
    ``||C_xy||^2``, whatever the unit (unit means would estimate
    ``||C_xy||^2 / unit^2``). Permutation p-values do not change, the
    statistics being rescaled together.
    """
    return [s.U / np.sqrt(unit) for s in sums]
