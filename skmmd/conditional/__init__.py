"""Kernel tests of conditional independence: are two paired variables
dependent given a third?

:class:`ConditionalHSICTest` (``_estimator``) tests independence given Z:
the residual products of a cross-fitted ridge regression on Z's features go
through the one pipeline, and a multiplier bootstrap of their unit sums
through the one calibration loop (``_pipeline``; the regression in
``_ridge``, the bootstrap's scale in ``_wild_bootstrap``); the feature maps
of x, y and Z and the screens of Z's columns are chosen in ``_maps``. A
causal search's shared work across many tests is ``_search``
(:mod:`skmmd.causal` runs causal-learn's PC and FCI with it). Its result is
:class:`ConditionalHSICTestResult` (``_results``);
:func:`conditional_independence_test` (``_api``) is the test in one call.
The machinery every family shares is in :mod:`skmmd._inference`.
"""

from ._api import conditional_independence_test
from ._estimator import ConditionalHSICTest
from ._results import ConditionalHSICTestResult

__all__ = [
    "ConditionalHSICTest",
    "ConditionalHSICTestResult",
    "conditional_independence_test",
]
