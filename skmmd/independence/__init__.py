"""Kernel tests of independence: are two paired variables dependent?

:class:`HSICTest` (``_hsic``) streams pairs of rows through the one pipeline
and draws its pairings in the one calibration loop (``_resampled``); its
result, :class:`HSICTestResult` (``_results``), speaks of HSIC and pairs;
:func:`hsic_test` (``_api``) is the test in one call.
:class:`AggregatedHSICTest` (``_aggregated``) tests a grid of kernels of x
and of y on the same pairings, combined by the aggregation of
:mod:`skmmd._inference._aggregation`.
:class:`ConditionalHSICTest` (``_conditional``) tests independence given Z:
the residual products of a cross-fitted ridge regression on Z's features
go through the same pipeline, and a multiplier bootstrap of their unit sums
through the same loop (``_conditional_pipeline``; the regression in
``_ridge``, the bootstrap's scale in ``_wild_bootstrap``, a causal search's
shared work in ``_conditional_search``); its result is
:class:`ConditionalHSICTestResult`; :func:`conditional_independence_test` is
it in one call. The machinery every family shares is in :mod:`skmmd._inference`.
"""

from ._aggregated import AggregatedHSICTest
from ._api import conditional_independence_test, hsic_test
from ._conditional import ConditionalHSICTest
from ._hsic import HSICTest
from ._results import ConditionalHSICTestResult, HSICTestResult

__all__ = [
    "AggregatedHSICTest",
    "ConditionalHSICTest",
    "ConditionalHSICTestResult",
    "HSICTest",
    "HSICTestResult",
    "conditional_independence_test",
    "hsic_test",
]
