"""Maximum mean discrepancy (MMD) statistics.

From explicit features in linear time (``_features``: the estimator, the power
criterion used for kernel selection, the witness function), exact from a kernel
in row blocks with the linear-time and B-test baselines (``_exact``), the
regularized Nystroem MMD with its three-sample decision rule (``_nystroem``),
HSIC, the MMD between a joint distribution and the product of its marginals
(``_hsic``), and the conditional HSIC statistic of cross-fitted residuals with
its multiplier bootstrap (``_conditional``).
These are functions of features or kernels; the tests in
:mod:`skmmd.two_sample` and :mod:`skmmd.independence` compute the same
statistics from streamed unit sums.
"""

from ._exact import mmd2_block, mmd2_exact, mmd2_linear
from ._features import mmd2_features, power_criterion, witness
from ._hsic import hsic_features
from ._nystroem import ThreeSampleResult, nystroem_mmd2, three_sample_test

__all__ = [
    "ThreeSampleResult",
    "hsic_features",
    "mmd2_block",
    "mmd2_exact",
    "mmd2_features",
    "mmd2_linear",
    "nystroem_mmd2",
    "power_criterion",
    "three_sample_test",
    "witness",
]
