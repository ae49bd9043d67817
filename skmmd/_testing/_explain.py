"""Which columns matter: every column (group) tested with its own kernel on
the resamples shared by all of them, with family-wise adjusted p-values. The
column groups, a map per group and the ranked report are the same for every
family; each family computes its statistics (``two_sample._explain``,
``HSICTest.explain``)."""

import numpy as np
from sklearn.base import clone

from .._utils._tables import is_dataframe
from ..kernel_approximation import TabularSampler
from ..kernel_approximation._base import BaseSampler
from . import _aggregation, _calibration


def _select(X, columns):
    """The sub-table of ``columns`` (names of a DataFrame, positions of an array)."""
    return X[columns] if is_dataframe(X) else X[:, columns]


class _ColumnMap:
    """A fitted feature map that reads only some columns of the table (with
    the map's fused per-unit sums where it has them: the pipeline then never
    stores the features, in chunks of many rows)."""

    def __init__(self, transformer, columns):
        self.transformer, self.columns = transformer, columns
        fused = getattr(transformer, "_grouped_sums", None)
        if fused is not None:
            self._grouped_sums = lambda X, *args, **kwargs: fused(
                _select(X, columns), *args, **kwargs
            )

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


def stopping(test):
    """``(rule, p_of)`` of ``explain`` with ``n_resamples="auto"`` (else
    ``(None, None)``): the resamples stop only when no column can be flagged.

    The smallest adjusted p-value is the p-value of the min-p statistic over
    the columns, so the loop stops when that test's decision is to accept,
    with the rule that only stops to accept (its statistic depends on every
    resample); a stopped report flags no column, and a full one is the fixed
    test's, so the family-wise error rate is the fixed report's. Columns
    cannot stop one by one: each is ranked against the smallest p-value of
    all columns on every resample.
    """
    if test.n_resamples != "auto":
        return None, None

    def p_of(observed, null, tolerance):
        T = np.vstack([observed, null])
        return _aggregation.minp_adjusted_p_values(T).min()

    return _calibration.sequential_rule(test.alpha, reject_early=False), p_of


def ranked(groups, observed, null, intervals, effect, rule=None):
    """The report of ``explain``: each column group's statistic (``observed``)
    against its column of ``null`` (the same resamples for all), with
    family-wise adjusted p-values and the confidence interval of its
    ``effect`` (e.g. "mmd2"), most evidence first. ``rule``: the sequential
    rule that drew ``null`` (:func:`stopping`); the adjusted p-values are
    then at least its p-value of the smallest one."""
    import pandas as pd

    T = np.vstack([observed, null])
    adjusted = _aggregation.minp_adjusted_p_values(T)
    if rule is not None:
        smallest = rule.p_value(null.shape[0], adjusted.min())
        adjusted = np.maximum(adjusted, smallest)
    report = pd.DataFrame(
        {
            "column": list(groups),
            "statistic": observed,
            "p_value": _aggregation.per_kernel_p_values(T)[0],
            "adjusted_p_value": adjusted,
            "z": _aggregation.standardize(T)[0],
            f"{effect}_low": [ci.low for ci in intervals],
            f"{effect}_high": [ci.high for ci in intervals],
        }
    )
    # Ties in the (discrete) p-values are broken by the standardized statistic.
    report = report.sort_values(
        ["adjusted_p_value", "p_value", "z"], ascending=[True, True, False]
    ).reset_index(drop=True)
    report.attrs["n_resamples_used"] = null.shape[0]
    return report


def column_setup(test, X, fit_rows, columns, random_state):
    """``(groups, maps)``: the column groups of ``columns`` and a map of each,
    fit on that group of ``fit_rows`` (the rows the test fits its maps on)."""
    groups = column_groups(X, columns)
    # The fitted map's class and parameters ("auto" resolved).
    base = base_map(getattr(test, "transformer_", None), random_state)
    return groups, column_maps(base, fit_rows, groups)
