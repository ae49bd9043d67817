"""Which columns of X depend on y: each column group's HSIC with y on the
same pairings (the groups, maps and ranking of :mod:`skmmd._inference._explain`)."""

import numpy as np
from sklearn.utils import check_random_state

from .._inference import _engines, _explain
from .._inference._base import fit_indices, loop_options
from .._inference._calibration import n_max
from .._inference._results import interval
from .._utils._streams import draw_seed
from ..kernel_approximation import RandomFourierSampler, TabularSampler
from ..kernel_approximation._base import BaseSampler
from ..statistics._hsic import ColumnHSICParts, HSICParts, feature_gram
from ._observations import (
    _auto_unit,
    _column_draws,
    _pair_stream,
    block_shift,
    effect_sizes,
    observations,
    serial_correction,
)
from ._resampled import resampled_hsic


def _parts(maps, xs, y_obs, unbiased):
    """The HSIC parts of the observations ``xs`` of ``maps``: a
    :class:`ColumnHSICParts` for a block of columns (a statistic per
    column, from its features), one :class:`HSICParts` for the group maps
    together (their Grams)."""
    out, grams = [], []
    for t, a in zip(maps, xs):
        if hasattr(t, "n_columns_"):
            out.append((ColumnHSICParts(a, t.n_columns_, y_obs, unbiased), None))
        else:
            grams.append((t, a))
    if grams:
        L = feature_gram(y_obs)
        K = [feature_gram(a) for _, a in grams]
        out.append((HSICParts(K, [L], unbiased), grams))
    return out


def _effects(parts, grams, y_obs, y_map, dependence):
    """Each column's (or group's) unbiased HSIC and standard error
    (``dependence``: :func:`serial_correction`, or None)."""
    if grams is None:
        hsic, se = parts.effect_sizes(y_obs, _column_draws(y_map), dependence)
        return list(zip(hsic, se))
    maps = [t.transformer for t, _ in grams], [y_map]
    xs = [a for _, a in grams]
    return list(zip(*effect_sizes(parts, xs, [y_obs], *maps, dependence)))


def column_report(test, X, Y, columns):
    """The per-column table of ``explain`` of :class:`HSICTest` and
    :class:`AggregatedHSICTest` (sorted by evidence).

    The numeric columns' kernels in one map, each other group's in its own,
    fit on the rows the test fits its maps on; y mapped by the test's
    fitted y map (``test._report_maps()``); the resampling unit chosen as
    for a test of one column against y (not for the table's width); the unit
    sums in one pass over the pairs for each part of the columns that fits
    the unit-sum budget, and the HSIC of every column on the same pairings
    (one seed) in the one calibration loop.
    """
    engine = _engines.engine_for(X).paired()
    rng = check_random_state(test.random_state)
    seed = draw_seed(rng)
    n = engine.n_rows((X, Y))
    fit_x, _ = engine.rows_of((X, Y), fit_indices(n, seed))
    given, y_map = test._report_maps()
    base = given
    if not isinstance(base, (BaseSampler, TabularSampler)):
        base = test._map("auto", X, rng.randint(2**31))
    if y_map is None:
        y_map = RandomFourierSampler(
            bandwidth=test.y_bandwidth_, random_state=rng.randint(2**31)
        ).fit(Y)
    column_maps = _explain.ColumnMaps(
        base,
        fit_x,
        _explain.column_groups(X, columns),
        rng.randint(2**31),
        columnwise=_explain.columnwise(given),
    )
    unit = test.resample_unit
    if unit == "auto":
        unit = _auto_unit(n, n_max(test.n_resamples))
    unbiased = test.statistic == "unbiased"
    results = []
    # Every column's pairings are the test's shifts (rows in time order).
    shift, _ = block_shift(test, None, unit, test.block_size_)
    for maps in column_maps.chunks(n // unit):
        stream = _pair_stream(
            engine, (X, Y), maps, [y_map], unit, seed, test.block_size is not None
        )
        *xs, y_obs = observations(engine.add(stream, (X, Y), None, unit).sums(), unit)
        results += [
            (parts, grams, y_obs) for parts, grams in _parts(maps, xs, y_obs, unbiased)
        ]
    # One set of statistics can stop early; several draw all resamples.
    rule, p_of = _explain.stopping(test) if len(results) == 1 else (None, None)
    observed, null, intervals = [], [], []
    for parts, grams, y_obs in results:
        stat, resampled, _ = resampled_hsic(
            parts, shift=shift, **loop_options(test, seed, rule, p_of)
        )
        observed.append(np.atleast_1d(stat))
        null.append(resampled.reshape(resampled.shape[0], -1))
        effects = _effects(parts, grams, y_obs, y_map, serial_correction(test))
        intervals += [tuple(interval(*e)) for e in effects]
    return _explain.ranked(
        column_maps.labels,
        np.concatenate(observed),
        np.hstack(null),
        intervals,
        "hsic",
        test,
        rule,
        flag="depends",
        verb="depend on y",
    )
