"""Which columns moved: every column (group) tested with its own kernel on the
permutations shared by all of them, with family-wise adjusted p-values."""

import numpy as np
from sklearn.base import clone

from .._utils._tables import is_dataframe
from ..kernel_approximation import TabularSampler
from ..kernel_approximation._base import BaseSampler
from . import _aggregation, _calibration, _results, _streaming


def _select(X, columns):
    """The sub-table of ``columns`` (names of a DataFrame, positions of an array)."""
    return X[columns] if is_dataframe(X) else X[:, columns]


class _ColumnMap:
    """A fitted feature map that reads only some columns of the table."""

    def __init__(self, transformer, columns):
        self.transformer, self.columns = transformer, columns

    def transform(self, X):
        return self.transformer.transform(_select(X, self.columns))


def column_groups(X, columns):
    """``{label: [column, ...]}``: every column alone by default, or the
    groups given (a dict, or a list of columns and lists of columns)."""
    keys = list(X.columns) if is_dataframe(X) else list(range(X.shape[1]))
    if columns is None:
        return {str(k): [k] for k in keys}
    items = (
        columns.items()
        if isinstance(columns, dict)
        else (
            (", ".join(map(str, c)) if isinstance(c, (list, tuple)) else str(c), c)
            for c in columns
        )
    )
    groups = {}
    for label, group in items:
        group = list(group) if isinstance(group, (list, tuple)) else [group]
        unknown = [c for c in group if c not in keys]
        if unknown or not group:
            raise ValueError(
                f"columns: group {label!r} names columns {unknown or group} that "
                f"are not columns of X ({keys[:20]})."
            )
        groups[str(label)] = group
    if not groups:
        raise ValueError("columns must name at least one column (group).")
    return groups


def base_map(transformer, random_state):
    """Each column's kernel: the test's own map when it is a sampler of this
    package (it applies to any set of columns), else a TabularSampler."""
    if isinstance(transformer, (BaseSampler, TabularSampler)):
        return transformer
    return TabularSampler(random_state=random_state)


def column_maps(base, fit_rows, groups):
    """A copy of ``base`` fit on each column group of ``fit_rows``."""
    return [
        _ColumnMap(clone(base).fit(_select(fit_rows, cols)), cols)
        for cols in groups.values()
    ]


def ranked(groups, observed, null, intervals, effect):
    """The report of ``explain``: each column group's statistic (``observed``)
    against its column of ``null`` (the same resamples for all), with
    family-wise adjusted p-values and the confidence interval of its
    ``effect`` (e.g. "mmd2"), most evidence first."""
    import pandas as pd

    T = np.vstack([observed, null])
    report = pd.DataFrame(
        {
            "column": list(groups),
            "statistic": observed,
            "p_value": _aggregation.per_kernel_p_values(T)[0],
            "adjusted_p_value": _aggregation.minp_adjusted_p_values(T),
            "z": _aggregation.standardize(T)[0],
            f"{effect}_low": [ci.low for ci in intervals],
            f"{effect}_high": [ci.high for ci in intervals],
        }
    )
    # Ties in the (discrete) p-values are broken by the standardized statistic.
    report = report.sort_values(
        ["adjusted_p_value", "p_value", "z"], ascending=[True, True, False]
    )
    return report.reset_index(drop=True)


def column_setup(test, X, fit_rows, columns, random_state):
    """``(groups, maps)``: the column groups of ``columns`` and a map of each,
    fit on that group of ``fit_rows`` (the rows the test fits its maps on)."""
    groups = column_groups(X, columns)
    # The fitted map's class and parameters ("auto" resolved).
    base = base_map(getattr(test, "transformer_", None), random_state)
    return groups, column_maps(base, fit_rows, groups)


def report_from_sums(test, groups, sums, m, n, seed):
    """The report of the column maps' unit ``sums``: their statistics on the
    same permutations, in the one calibration loop."""
    observed, null, _ = _calibration.resampled_statistics(
        sums,
        m,
        n,
        statistic=test.statistic,
        method="permutation",
        n_resamples=test.n_resamples,
        batch=test.batch,
        seed=seed,
        n_jobs=test.n_jobs,
    )
    intervals = [_results.interval(*_results.effect_size(s, m, n)) for s in sums]
    return ranked(groups, observed, null, intervals, "mmd2")


def column_report(test, engine, X, Y, columns, rng, seed):
    """The per-column table of :meth:`MMDTest.explain` (sorted by evidence).

    One feature map per column group, fit on the pooled rows of that group
    (the rows the test fits its maps on); the unit sums of all of them in one
    pass over the rows (by the inputs' ``engine``), and their statistics on
    the same permutations in the one calibration loop.
    """
    fit_rows = test._fit_rows(engine, X, Y, seed)
    groups, maps = column_setup(
        test, X, fit_rows, columns, rng.randint(np.iinfo(np.int32).max)
    )
    widths = [engine.width(t, X) for t in maps]
    m, n = engine.n_rows(X), engine.n_rows(Y)
    unit = test._resolve_unit(m, n, sum(widths))
    stream = _streaming.Stream(maps, widths, unit, seed, engine.rows)
    sums = engine.add(stream, X, Y, unit).sums()
    return report_from_sums(test, groups, sums, m, n, seed)


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
