"""Which columns matter: every column (group) tested with its own kernel on
the resamples shared by all of them, with adjusted p-values
(:mod:`._corrections`). The column groups, their maps (the numeric columns
alone in one :class:`ColumnwiseFourier`, the categorical ones in one
:class:`ColumnwiseCategories`, the other groups a map each) and the
ranked report are the same for every family; each family computes its
statistics (``two_sample._explain``, ``independence._explain``)."""

import numpy as np
from sklearn.base import clone

from .._tables._columnwise_categories import ColumnwiseCategories
from .._tables._columnwise_fourier import ColumnwiseFourier
from .._tables._kinds import numeric_column, numeric_dtype
from .._tables._labels import column_labels, dtypes_by_label, is_dataframe
from .._utils import _budgets, _streams
from ..kernel_approximation import TabularSampler
from ..kernel_approximation._base import BaseSampler
from . import _aggregation, _calibration, _corrections


def _select(X, columns):
    """The sub-table of ``columns`` (names of a DataFrame, positions of an array)."""
    return X[columns] if is_dataframe(X) else X[:, columns]


class _ColumnMap:
    """A fitted feature map that reads only some columns of the table (with
    the map's fused per-unit sums where it has them: the pipeline then never
    stores the features, in chunks of many rows)."""

    def __init__(self, transformer, columns):
        self.transformer, self.columns = transformer, columns
        fused = getattr(transformer, "grouped_sums", None)
        if fused is not None:
            self.grouped_sums = lambda X, *args, **kwargs: fused(
                _select(X, columns), *args, **kwargs
            )

    def transform(self, X):
        return self.transformer.transform(_select(X, self.columns))


def needs_pandas(option):
    """Fail before any work when ``option`` asks for a column report (a
    pandas DataFrame) and pandas is missing."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise ImportError(
            f"{option} returns the column report as a pandas DataFrame, and "
            "pandas is not installed: python -m pip install 'skmmd[tables]'."
        ) from None


def check_explain_options(explain_columns, options):
    """``explain_columns`` of a test function (``mmd_test``, ``hsic_test``)
    as the estimators take it: True or False, or the column groups (a list
    or a dict; a correction's name is ``correction``'s). The options that
    only the column report reads must come with it: given without it they
    would do nothing."""
    if isinstance(explain_columns, np.bool_):
        explain_columns = bool(explain_columns)
    if not isinstance(explain_columns, (bool, list, dict)):
        hint = (
            "; for that correction pass explain_columns=True, "
            f"correction={explain_columns!r}"
            if isinstance(explain_columns, str)
            and explain_columns in _corrections.CORRECTIONS
            else ""
        )
        raise ValueError(
            "explain_columns must be True, False, a list or a dict of column "
            f"groups; got {explain_columns!r}{hint}."
        )
    if explain_columns is not False:
        needs_pandas("explain_columns")
        return explain_columns
    for name in ("correction", "decision"):
        if options.get(name) is not None:
            raise ValueError(
                f"{name} applies only with explain_columns (the column "
                f"report); without it {name}={options[name]!r} would do nothing."
            )
    return explain_columns


def report_columns(explain_columns):
    """The ``columns`` of ``explain`` for an ``explain_columns`` that is
    not False: None (every column alone) for True, else the groups."""
    return None if explain_columns is True else explain_columns


def column_groups(X, columns):
    """``{label: [column, ...]}``: every column alone by default, or the
    groups given (a dict, or a list of columns and lists of columns)."""
    keys = column_labels(X) if is_dataframe(X) else list(range(X.shape[1]))
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


def _numeric(X, columns):
    """The ``columns`` of ``X`` that hold numbers (booleans are categories):
    a DataFrame's by their dtypes, read once (no column taken)."""
    if is_dataframe(X):
        dtypes = dtypes_by_label(X)
        return {c for c in columns if numeric_dtype(dtypes[c])}
    return {c for c in columns if numeric_column(np.asarray(X[:, c]))}


def grid_rows(n_rows, random_state):
    """Positions (sorted) of at most ``_budgets.COLUMN_GRID_ROWS`` of
    ``n_rows`` fit rows, seeded; None for all."""
    rows = _budgets.COLUMN_GRID_ROWS
    return _streams.subsample(n_rows, rows, random_state, _streams.GRID_ROWS)


class FitRows:
    """The ``n`` rows a report's maps are fit on, taken only as needed:
    ``take(idx)`` gives those at positions ``idx`` (None: all), so that a
    numeric table is never pooled whole for a few thousand rows."""

    def __init__(self, n, take, frame=None):
        self.n, self.take, self.frame = n, take, frame

    @classmethod
    def of(cls, rows):
        """Rows already in memory (``frame``: the rows themselves)."""
        n = rows.shape[0] if hasattr(rows, "shape") else len(rows)
        return cls(n, lambda idx: rows if idx is None else _take(rows, idx), rows)


def _take(rows, idx):
    return rows.iloc[idx] if is_dataframe(rows) else rows[idx]


class ColumnMaps:
    """The maps of a report's column groups, fit on ``fit_rows``.

    With ``columnwise`` (the test's map is its default or a table map),
    every group of one numeric column is mapped by one
    :class:`ColumnwiseFourier` and every group of one categorical column by
    one :class:`ColumnwiseCategories` (each column its own kernel, all
    columns in one pass; their statistics come as one per column); each
    other group (several columns), and every group when the test was given
    its own map, by a copy of ``base`` fit on (``fit_rows``, or a
    :class:`FitRows`). ``labels`` are the groups' labels in the order of the
    statistics: the numeric columns', the categorical columns', then the
    other groups'. ``maps``: the blocks first, then the group maps.
    """

    def __init__(self, base, fit_rows, groups, random_state, columnwise=True):
        rows = fit_rows if isinstance(fit_rows, FitRows) else FitRows.of(fit_rows)
        # The numeric block's grids need a few thousand rows: those only (of
        # a DataFrame in memory, read by the block a part of its columns at
        # a time).
        at = grid_rows(rows.n, random_state)
        if is_dataframe(rows.frame):
            few = rows.frame
        else:
            few, at = rows.take(at), None
        alone = [
            label for label, cols in groups.items() if columnwise and len(cols) == 1
        ]
        numbers = _numeric(few, [groups[label][0] for label in alone])
        numeric = [label for label in alone if groups[label][0] in numbers]
        numeric_set, alone_set = set(numeric), set(alone)
        categorical = [label for label in alone if label not in numeric_set]
        others = [label for label in groups if label not in alone_set]
        self.blocks = []
        if numeric:
            self.blocks.append(
                ColumnwiseFourier(
                    [groups[label][0] for label in numeric], random_state=random_state
                ).fit(few, rows=at)
            )
        every = rows.take(None) if others or categorical else None
        if categorical:
            self.blocks.append(
                ColumnwiseCategories(
                    [groups[label][0] for label in categorical],
                    max_categories=getattr(base, "max_categories", 100),
                ).fit(every)
            )
        self.group_maps = [
            _ColumnMap(clone(base).fit(_select(every, groups[label])), groups[label])
            for label in others
        ]
        self.labels = numeric + categorical + others
        self.maps = self.blocks + self.group_maps

    def chunks(self, n_units):
        """The maps in parts whose unit sums (``n_units`` rows) stay within
        the unit-sum budget: each block cut into blocks of fewer columns, the
        group maps together with the last (a report's memory is bounded
        whatever the table's width)."""
        parts = []
        for block in self.blocks:
            width = max(n_units, 1) * block.column_width_
            per_part = max(1, _budgets.REPORT_PART_ENTRIES // width)
            n = block.n_columns_
            parts += [
                [block.subset(lo, min(lo + per_part, n))]
                for lo in range(0, n, per_part)
            ]
        if not parts:
            return [self.group_maps]
        parts[-1] += self.group_maps
        return parts


def unit_width(maps, widths):
    """The widest single kernel of ``maps`` (fitted, with their ``widths``):
    a :class:`ColumnwiseFourier` counts as one of its columns."""
    return max(getattr(t, "column_width_", w) for t, w in zip(maps, widths))


def stopping(test):
    """``(rule, p_of)`` of ``explain`` with ``n_resamples="auto"`` and the
    family-wise correction (else ``(None, None)``: all resamples are drawn).

    The smallest step-down maxT adjusted p-value is the resampling p-value of
    the largest fitted ``-log p`` over the columns, so the loop stops when
    that test's decision is to accept, with the rule that only stops to
    accept (its statistic depends on every resample); a stopped report flags
    no column, and a full one is the fixed test's, so the family-wise error
    rate is the fixed report's. The false discovery rate's and the
    uncorrected decisions are not one test's: they draw all resamples.
    """
    if test.n_resamples != "auto" or test.correction != "fwer":
        return None, None

    def p_of(observed, null, tolerance):
        return _corrections.smallest_fwer_p_value(np.vstack([observed, null]))

    return _calibration.sequential_rule(test.alpha, reject_early=False), p_of


def _observed_z(T):
    """Row 0 of :func:`~._aggregation.standardize` of ``T``, a slice of
    columns at a time (the same values; a slice's temporaries, not T's)."""
    z = np.empty(T.shape[1])
    for part in _budgets.column_slices(T.shape[1], T.shape[0]):
        z[part] = _aggregation.standardize(T[:, part])[0]
    return z


def ranked(
    labels,
    observed,
    null,
    intervals,
    effect,
    test,
    rule=None,
    flag="moved",
    log_p=None,
    verb="moved",
    stacked=None,
):
    """The report of ``explain``: each column group's statistic (``observed``,
    in the order of ``labels``) against its column of ``null`` (the same
    resamples for all), with p-values adjusted by ``test.correction`` and the
    confidence interval ``(low, high)`` of its ``effect`` (e.g. "mmd2"; one
    pair per statistic in ``intervals``), most evidence first, and the
    boolean column ``flag`` (adjusted p-value at most ``test.alpha``).
    ``rule``: the sequential rule that drew ``null`` (:func:`stopping`); the
    adjusted p-values are then at least its p-value of the smallest one.

    A :class:`~._column_report.ColumnReport`: it records
    ``n_resamples_used``, ``correction``, ``alpha``, ``flag``, ``verb`` (what
    a flagged column did) and ``maxt_p_value``: the first step of step-down
    maxT, a test of "no column changed" whatever the correction
    (:func:`decide` combines it with the table's test). ``log_p``: the
    statistics' fitted log p-values
    (:func:`~._corrections.fitted_log_p_values`) when already computed;
    ``stacked``: ``np.vstack([observed, null])`` when the caller holds it
    (not a second copy of the null).
    """
    import pandas as pd

    from ._column_report import column_report

    T = np.vstack([observed, null]) if stacked is None else stacked
    log_p = _corrections.fitted_log_p_values(T) if log_p is None else log_p
    p_values = _corrections.permutation_p_values(T)
    adjusted, pooled = _corrections.adjusted_p_values(
        T, test.correction, p_values, log_p
    )
    first_step = _corrections.smallest_fwer_p_value(T, log_p)
    if rule is not None:
        smallest = rule.p_value(null.shape[0], adjusted.min())
        adjusted = np.maximum(adjusted, smallest)
    frame = pd.DataFrame(
        {
            "column": list(labels),
            "statistic": observed,
            "p_value": p_values,
            "pooled_p_value": pooled,
            "adjusted_p_value": adjusted,
            flag: adjusted <= test.alpha,
            "z": _observed_z(T),
            f"{effect}_low": [low for low, _ in intervals],
            f"{effect}_high": [high for _, high in intervals],
        }
    )
    # Ties in the adjusted p-values are broken by the pooled p-value, then z.
    return column_report(
        frame,
        correction=test.correction,
        alpha=test.alpha,
        flag=flag,
        verb=verb,
        maxt_p_value=first_step,
        n_used=null.shape[0],
    )


def decide(report, p_value):
    """Make the column report agree with the table's decision, whose
    p-value is ``p_value``: every adjusted p-value is raised to at least
    it, so no column is flagged unless the decision rejects (closed
    testing: the decision is a level-alpha test of "nothing changed", and
    the corrections' error rates hold with this gate). Returns the report
    (its ``decision_p_value`` set)."""
    adjusted = np.maximum(report["adjusted_p_value"].to_numpy(), p_value)
    report["adjusted_p_value"] = adjusted
    report[report.flag] = adjusted <= report.alpha
    report.attrs["decision_p_value"] = float(p_value)
    return report


def union_decision(table_p_value, report):
    """The decision's p-value when the table's resamples are not the
    columns' (a second pass over the data, bootstrap calibration, or
    aggregated kernels): the union bound ``min(1, 2 min(p_table, p_maxT))``
    over the table's test and the first step of step-down maxT
    (the report's ``maxt_p_value``)."""
    return min(1.0, 2.0 * min(table_p_value, report.maxt_p_value))


def record_decision(test, report, p_value, table_p_value):
    """Make ``p_value`` the decision of ``test`` and its result (``p_value_``,
    ``reject_``, ``pvalue``, ``reject``), keep the table's own p-value as
    ``table_p_value_`` / ``table_pvalue``, and make the column ``report``
    agree with the decision (:func:`decide`).

    The verdict then does not come from ``statistic_`` alone, so ``threshold_``
    becomes None (``statistic_ > threshold_`` would not say whether the test
    rejects) and the table's own threshold is ``table_threshold_``."""
    test.table_p_value_ = table_p_value
    test.table_threshold_ = _calibration.threshold(test.null_distribution_, test.alpha)
    test.threshold_ = None
    test.p_value_ = float(p_value)
    test.reject_ = bool(test.p_value_ <= test.alpha)
    report = decide(report, test.p_value_)
    result = test.result_
    result.pvalue, result.reject = test.p_value_, test.reject_
    result.table_pvalue = table_p_value
    _attach(test, report)


def second_pass_decision(test, report):
    """Record a fitted test's decision with the column ``report`` computed
    on its own resamples: the union bound (:func:`union_decision`) with the
    test's ``decision="combined"``, the table's test alone with
    ``"table"``."""
    if test.decision == "table":
        _attach(test, report)
        return
    table_p = test.p_value_
    record_decision(test, report, union_decision(table_p, report), table_p)


def _attach(test, report):
    test.result_.column_report = report
    if hasattr(test, "explain_columns"):
        test.column_report_ = report


def column_setup(test, table_map, X, fit_rows, columns, random_state):
    """The :class:`ColumnMaps` of ``columns`` of ``X``, fit on ``fit_rows``
    (the rows the test fits its maps on, or a :class:`FitRows`).
    ``table_map``: the test's map, fitted or not (its class and parameters,
    "auto" resolved, are cloned): the column maps need not wait for its fit."""
    groups = column_groups(X, columns)
    base = base_map(table_map, random_state)
    given = getattr(test, "transformer", getattr(test, "transformers", "auto"))
    return ColumnMaps(base, fit_rows, groups, random_state, columnwise(given))


def columnwise(given):
    """Whether a test whose map parameter is ``given`` maps its numeric
    columns with :class:`ColumnwiseFourier`: for its default ("auto") and
    the table map (:class:`TabularSampler`, a Gaussian kernel on each
    column's scaled values too); a sampler the user chose is kept for every
    column."""
    return isinstance(given, (str, TabularSampler))
