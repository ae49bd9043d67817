"""A per-column report of a wide table as ``explain`` writes it, with three
moved columns, and a result that carries it: what the display and the HTML
report are given."""

import numpy as np

from skmmd import MMDTestResult

N_COLUMNS, MOVED = 1000, ["c0777", "c0003", "c0512"]


def report_of(frame, correction="fwer", alpha=0.05, flag="moved", verb="moved"):
    """``frame`` (rows in its order) as a ColumnReport that says what its
    numbers mean, its ``flag`` column set from ``adjusted_p_value``."""
    from skmmd.inspection import ColumnReport

    report = ColumnReport(frame.reset_index(drop=True))
    report[flag] = report["adjusted_p_value"] <= alpha
    report.attrs.update(
        correction=correction,
        alpha=alpha,
        flag=flag,
        verb=verb,
        maxt_p_value=float(report["adjusted_p_value"].min()),
        n_resamples_used=999,
    )
    return report


def moved_columns(n):
    """The three moved columns of ``column_report(n=n)``, most evidence first."""
    return [f"c{n * k // 1000:04d}" for k in (777, 3, 512)]


def column_report(correction="fwer", n=N_COLUMNS):
    """A :class:`~skmmd.inspection.ColumnReport` of ``n`` columns as
    ``explain`` writes it, three of them moved (those of
    ``moved_columns(n)``), given in a shuffled order."""
    import pandas as pd

    rng = np.random.default_rng(0)
    names = [f"c{i:04d}" for i in range(n)]
    fitted = rng.uniform(0.01, 1.0, size=n)
    adjusted = np.minimum(1.0, fitted * 20 + 0.06)
    z = rng.normal(size=n)
    for rank, name in enumerate(moved_columns(n)):
        i = names.index(name)
        # One adjusted p-value for all three, told apart by the fitted
        # p-value; their z runs the other way, so a rank by z would differ.
        fitted[i], adjusted[i], z[i] = 1e-30 * 10**rank, 0.001, 10.0 + rank
    report = pd.DataFrame(
        {
            "column": names,
            "statistic": rng.uniform(size=n),
            "p_value": np.maximum(fitted, 0.001),
            "pooled_p_value": fitted,
            "adjusted_p_value": adjusted,
            "z": z,
            "mmd2_low": np.zeros(n),
            "mmd2_high": rng.uniform(size=n),
        }
    )
    return report_of(report.sample(frac=1.0, random_state=1), correction)


def result_of(report):
    """A rejecting two-sample result whose column report is ``report``."""
    return MMDTestResult(
        statistic=0.01,
        pvalue=0.001,
        null_distribution=np.linspace(-0.01, 0.005, 99),
        alpha=0.05,
        mmd2=0.01,
        standard_error=0.004,
        n_samples_x=400,
        n_samples_y=400,
        column_report=report,
    )
