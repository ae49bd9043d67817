"""Kernel tests of goodness of fit: is a sample drawn from a model known by
its score ``grad log p``?

:class:`KernelSteinTest` (``_stein``) streams the rows' Stein features
(:mod:`skmmd.statistics._stein`) through the one pipeline and calibrates them by
the shared multiplier bootstrap (:mod:`skmmd._inference._multiplier`) in the
one calibration loop; the models are scores (``_models``: score functions,
log-densities, scipy distributions, fitted scikit-learn mixtures and kernel
densities); its result, :class:`KernelSteinTestResult` (``_results``),
speaks of the squared kernel Stein discrepancy; :func:`goodness_of_fit_test`
(``_api``) is the test in one call. :class:`AggregatedKernelSteinTest`
(``_aggregated``) tests a grid of bandwidths on the same bootstrap signs,
combined by :mod:`skmmd._inference._aggregation` (for a Gaussian mixture,
also on its principal views, ``_mixtures``). A model given as a family
is a composite null (``_composite``; a support that starts at a free
location conditioned on, ``_edges``; a Gaussian mixture's resamples refit
from their own law, ``_mixtures``). What both share (the Stein
features as the pipeline's map, the rows, ``fit`` and ``partial_fit``) is
``_base``.
"""

from ._aggregated import AggregatedKernelSteinTest
from ._api import goodness_of_fit_test
from ._models import log_density_score
from ._results import KernelSteinTestResult
from ._stein import KernelSteinTest

__all__ = [
    "AggregatedKernelSteinTest",
    "KernelSteinTest",
    "KernelSteinTestResult",
    "goodness_of_fit_test",
    "log_density_score",
]
