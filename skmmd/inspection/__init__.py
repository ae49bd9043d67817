"""Pictures of a test: scikit-learn-style displays of a fitted test or
detector (matplotlib, imported on first use: ``pip install "skmmd[plot]"``),
the summaries behind the HTML report of
:meth:`MMDTestResult.to_html <skmmd.MMDTestResult.to_html>`, and the type of
the column report of ``explain`` (:class:`ColumnReport`, a pandas DataFrame
that says what its numbers mean).

Each display follows scikit-learn's visualization API: ``from_estimator`` /
``from_result`` compute and draw, ``plot(ax=None, **kwargs)`` draws (again)
and stores the artists, ``ax_`` and ``figure_``.
"""

from .._tables._summaries import ColumnSummaries
from ._change_points import ChangePointsDisplay
from ._columns import ColumnReportDisplay
from ._drift import DriftDisplay
from ._null import NullDistributionDisplay
from ._witness import WitnessDisplay

__all__ = [
    "ChangePointsDisplay",
    "ColumnReport",
    "ColumnReportDisplay",
    "ColumnSummaries",
    "DriftDisplay",
    "NullDistributionDisplay",
    "WitnessDisplay",
]


def __getattr__(name):
    # The column report is a pandas DataFrame: pandas (optional) is imported
    # when it is asked for.
    if name == "ColumnReport":
        from .._inference._column_report import ColumnReport

        return ColumnReport
    raise AttributeError(f"module 'skmmd.inspection' has no attribute {name!r}")
