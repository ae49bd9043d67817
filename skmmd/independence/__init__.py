"""Kernel tests of independence: are two paired variables dependent?

:class:`HSICTest` (``_hsic``) streams pairs of rows through the one pipeline
and draws its pairings in the one calibration loop (``_resampled``); its
result, :class:`HSICTestResult` (``_results``), speaks of HSIC and pairs;
:func:`hsic_test` (``_api``) is the test in one call.
:class:`AggregatedHSICTest` (``_aggregated``) tests a grid of kernels of x
and of y on the same pairings, combined by the aggregation of
:mod:`skmmd._inference._aggregation`. Independence given a third variable is
its own family, :mod:`skmmd.conditional`. The machinery every family shares
is in :mod:`skmmd._inference`.
"""

from ._aggregated import AggregatedHSICTest
from ._api import hsic_test
from ._hsic import HSICTest
from ._results import HSICTestResult

__all__ = [
    "AggregatedHSICTest",
    "HSICTest",
    "HSICTestResult",
    "hsic_test",
]
