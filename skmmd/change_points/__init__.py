"""Kernel change points: where does a series of rows in time order change
its law, and which changes are real?

:class:`KernelChangePoints` (``_estimator``) reads the kernel cost of any
segment from cumulative sums of random features (``_cost``), searches by
exact dynamic programming, PELT or binary segmentation (``_search``), and
tests each change by the largest CUSUM of its segment's features,
calibrated by the shared multiplier bootstrap in the one calibration loop
with blocks of consecutive rows (``_significance``); its result,
:class:`ChangePointResult` (``_results``), names the change points and their
p-values; :func:`change_point_test` (``_api``) is the analysis in one call.
"""

from ._api import change_point_test
from ._estimator import KernelChangePoints
from ._results import ChangePointResult

__all__ = ["ChangePointResult", "KernelChangePoints", "change_point_test"]
