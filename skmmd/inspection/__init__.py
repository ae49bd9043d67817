"""Pictures of a test: scikit-learn-style displays of a fitted test or
detector (matplotlib, imported on first use: ``pip install "skmmd[plot]"``),
and the summaries behind the HTML report of
:meth:`MMDTestResult.to_html <skmmd.MMDTestResult.to_html>`.

Each display follows scikit-learn's visualization API: ``from_estimator`` /
``from_result`` compute and draw, ``plot(ax=None, **kwargs)`` draws (again)
and stores the artists, ``ax_`` and ``figure_``.
"""

from .._utils._summaries import ColumnSummaries
from ._columns import ColumnReportDisplay
from ._drift import DriftDisplay
from ._null import NullDistributionDisplay
from ._witness import WitnessDisplay

__all__ = [
    "ColumnReportDisplay",
    "ColumnSummaries",
    "DriftDisplay",
    "NullDistributionDisplay",
    "WitnessDisplay",
]
