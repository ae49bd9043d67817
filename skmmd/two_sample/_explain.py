"""Which columns moved between two samples: each column group's MMD on the
same permutations (the groups, maps and ranking of :mod:`skmmd._inference._explain`),
and the witness points."""

import numpy as np

from .._inference import _blocks, _calibration, _corrections, _streaming
from .._inference._base import fit_indices, loop_options, stopping_rule
from .._inference._explain import (
    FitRows,
    column_setup,
    ranked,
    stopping,
    unit_width,
)
from .._inference._results import interval
from .._tables._labels import is_dataframe
from .._utils._streams import draw_seed
from . import _resampled
from ._results import effect_size


def _kernel_sums(maps, sums):
    """The unit sums of ``maps`` as the loop reads them: a
    :class:`~._resampled.ColumnSums` for a block of columns (a statistic per
    column), the sums themselves for a group's map."""
    return [
        _resampled.ColumnSums(s, t.n_columns_) if hasattr(t, "n_columns_") else s
        for t, s in zip(maps, sums)
    ]


def _in_blocks(test, maps, sums, unit):
    """``(sums, scales)``: the column maps' unit sums in the test's blocks
    of consecutive rows (``block_size_``; every column resampled with the
    same blocks, so step-down maxT stays exact) and each statistic's
    correction of its null for the dependence between neighbouring blocks,
    from its own features; 1 and the sums themselves without
    ``block_size``."""
    if test.block_size is None:
        return sums, 1.0
    units = -(-test.block_size_ // unit)
    scales = []
    for t, s in zip(maps, sums):
        if hasattr(t, "n_columns_"):
            widths = [t.column_width_] * t.n_columns_
            scales.append(_blocks.column_dependence(s.series(), widths).scale(units))
        else:
            scales.append(
                _blocks.map_dependence(s.series()).scale(units).max(keepdims=True)
            )
    return [s.coarsened(units) for s in sums], np.concatenate(scales)


def _prepared(test, maps, sums, unit):
    """``(sums, scales)`` of the column maps as the loop reads them: in the
    test's blocks (:func:`_in_blocks`), a block of columns as one
    :class:`~._resampled.ColumnSums`."""
    sums, scales = _in_blocks(test, maps, sums, unit)
    return _kernel_sums(maps, sums), scales


def _intervals(sums, m, n):
    """Each statistic's effect-size interval ``(low, high)``."""
    intervals = []
    for s in sums:
        ci = interval(*effect_size(s, m, n))
        intervals += list(zip(np.atleast_1d(ci.low), np.atleast_1d(ci.high)))
    return intervals


def _statistics(test, maps, sums, m, n, seed, rule, p_of, unit):
    """Observed statistics, null (a column per statistic) and effect-size
    intervals of the column maps' unit ``sums`` (of ``unit`` rows), in the
    one calibration loop."""
    sums, scales = _prepared(test, maps, sums, unit)
    observed, null, _ = _resampled.resampled_statistics(
        sums,
        m,
        n,
        statistic=test.statistic,
        method="permutation",
        null_scale=scales,
        **loop_options(test, seed, rule, p_of),
    )
    return observed, null, _intervals(sums, m, n)


def report_from_sums(test, columns, sums, m, n, seed):
    """The report of the column maps (:class:`ColumnMaps` ``columns``) from
    their unit ``sums`` (computed in the test's own stream)."""
    rule, p_of = stopping(test)
    observed, null, intervals = _statistics(
        test, columns.maps, sums, m, n, seed, rule, p_of, test.resample_unit_
    )
    return ranked(columns.labels, observed, null, intervals, "mmd2", test, rule)


def joint(test, table, table_scale, columns, sums, m, n, seed):
    """The table's statistic and its columns' on the same permutations, in
    one run of the calibration loop, and the decision that a moved column
    can trigger (:func:`~skmmd._inference._corrections.decision_p_value`).

    ``table``: the table map's unit sums in the test's blocks, with their
    null's ``table_scale``; ``columns``, ``sums``: the column maps and their
    unit sums from the same stream. Returns ``(observed, null, p_value,
    table_p_value, rule, report)``: the table's statistic and null, the
    decision's p-value over the resamples drawn (``n_resamples="auto"``
    stops, by ``rule``, only to accept: each row's decision statistic
    depends on every resample), the table's own p-value on those resamples,
    and the column report.
    """
    col_sums, col_scales = _prepared(test, columns.maps, sums, test.resample_unit_)
    rule = stopping_rule(test, reject_early=False)

    def p_of(observed, null, tolerance):
        T = np.vstack([observed, null])
        return _corrections.decision_p_value(T[:, 0], T[:, 1:])

    n_columns = len(columns.labels)
    scales = np.concatenate(
        [np.atleast_1d(table_scale), np.broadcast_to(col_scales, (n_columns,))]
    )
    observed, null, tolerance = _resampled.resampled_statistics(
        [table, *col_sums],
        m,
        n,
        statistic=test.statistic,
        method="permutation",
        null_scale=scales,
        **loop_options(test, seed, rule, p_of),
    )
    # The intervals' temporaries before the report's arrays exist; the
    # columns' statistics stacked once (the full null dropped: only the
    # table's column of it is kept) and their fitted tails computed once,
    # for the decision and the report.
    intervals = _intervals(col_sums, m, n)
    T, table_null = np.vstack([observed[1:], null[:, 1:]]), null[:, 0].copy()
    del null
    log_p = _corrections.fitted_log_p_values(T)
    p_value = _corrections.decision_p_value(np.r_[observed[0], table_null], log_p=log_p)
    table_p = float(_calibration.p_value(observed[0], table_null, tolerance[0]))
    report = ranked(
        columns.labels,
        T[0],
        T[1:],
        intervals,
        "mmd2",
        test,
        log_p=log_p,
        stacked=T,
    )
    return float(observed[0]), table_null, p_value, table_p, rule, report


def column_report(test, engine, X, Y, columns, rng, seed):
    """The per-column table of :meth:`MMDTest.explain` (sorted by evidence).

    The numeric columns' kernels in one map, each other group's in its own,
    fit on the pooled rows the test fits its maps on; the resampling unit
    chosen for one column's kernel (as a test of that column alone would);
    the unit sums of the maps in one pass over the rows for each part of
    the columns that fits the unit-sum budget, and their statistics on the
    same permutations (one seed) in the one calibration loop.
    """
    m, n = engine.n_rows(X), engine.n_rows(Y)
    fitted = fit_indices(m + n, seed)  # test._fit_rows's, taken as needed

    def take(idx):
        at = fitted if idx is None else idx if fitted is None else fitted[idx]
        return engine.pooled(X, Y, at)

    fit_rows = FitRows(m + n if fitted is None else fitted.size, take)
    column_maps = column_setup(
        test,
        getattr(test, "transformer_", None),  # an aggregated test has several
        X,
        fit_rows,
        columns,
        draw_seed(rng),
    )
    widths = [engine.width(t, X) for t in column_maps.maps]
    unit = test._resolve_unit(m, n, unit_width(column_maps.maps, widths))
    parts = column_maps.chunks(-(-m // unit) - (-n // unit))
    # Several parts cannot stop together: they draw all resamples.
    rule, p_of = stopping(test) if len(parts) == 1 else (None, None)
    results = []
    for maps in parts:
        widths = [engine.width(t, X) for t in maps]
        stream = _streaming.Stream(
            maps, widths, unit, seed, engine.rows, test.block_size is not None
        )
        sums = engine.add(stream, X, Y, unit).sums()
        results.append(_statistics(test, maps, sums, m, n, seed, rule, p_of, unit))
    observed = np.concatenate([r[0] for r in results])
    null = np.hstack([r[1] for r in results])
    intervals = [ci for r in results for ci in r[2]]
    return ranked(column_maps.labels, observed, null, intervals, "mmd2", test, rule)


def witness_points(test, X, Y, n_points):
    """The rows of each sample where the witness is most extreme."""
    import pandas as pd

    parts = []
    for label, sample, sign in (("X", X, 1.0), ("Y", Y, -1.0)):
        values = test.witness(sample)
        top = np.argsort(-sign * values, kind="stable")[:n_points]
        rows = (
            sample.iloc[top].reset_index(drop=True)
            if is_dataframe(sample)
            else pd.DataFrame(np.asarray(sample)[top])
        )
        rows.insert(0, "witness", values[top])
        rows.insert(0, "row", top)
        rows.insert(0, "sample", label)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)
