"""Which columns moved between two samples: each column group's MMD on the
same permutations (the groups, maps and ranking of :mod:`skmmd._testing._explain`),
and the witness points."""

import numpy as np

from .._testing import _streaming
from .._testing._calibration import n_max
from .._testing._explain import column_setup, ranked, stopping
from .._testing._results import interval
from .._utils._tables import is_dataframe
from . import _resampled
from ._results import effect_size


def report_from_sums(test, groups, sums, m, n, seed):
    """The report of the column maps' unit ``sums``: their statistics on the
    same permutations, in the one calibration loop."""
    rule, p_of = stopping(test)
    observed, null, _ = _resampled.resampled_statistics(
        sums,
        m,
        n,
        statistic=test.statistic,
        method="permutation",
        n_resamples=n_max(test.n_resamples),
        batch=test.batch,
        seed=seed,
        n_jobs=test.n_jobs,
        stopping=rule,
        p_of=p_of,
    )
    intervals = [interval(*effect_size(s, m, n)) for s in sums]
    return ranked(groups, observed, null, intervals, "mmd2", rule)


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
