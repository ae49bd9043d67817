"""Kernel two-sample tests: do two samples come from one distribution?

The estimators (``_mmd``: :class:`MMDTest`; ``_aggregated``:
:class:`AggregatedMMDTest`; ``_base``: what they share, the two input
conventions and the resampling unit), the MMD of every resample
(``_resampled``), the effect size and :class:`MMDTestResult` (``_results``),
the per-column report (``_explain``) and :func:`mmd_test` (``_api``). The
machinery every family shares (inputs, engines, the one pipeline, the one
calibration loop) is in :mod:`skmmd._inference`.
"""

from ._aggregated import AggregatedMMDTest
from ._api import mmd_test
from ._mmd import MMDTest
from ._results import MMDTestResult

__all__ = ["AggregatedMMDTest", "MMDTest", "MMDTestResult", "mmd_test"]
