"""The statistics of every family of tests, as functions of features or of a
kernel.

Two-sample: the squared MMD from explicit features in linear time
(``_features``: the estimator, the power criterion used for kernel
selection, the witness function), exact from a kernel in row blocks with the
linear-time and B-test baselines (``_exact``), the regularized Nystroem MMD
with its three-sample decision rule (``_nystroem``). Independence: HSIC, the
MMD between a joint distribution and the product of its marginals
(``_hsic``), and the conditional HSIC of cross-fitted residuals
(``_conditional``). Goodness of fit: the kernel Stein discrepancy
(``_stein``). The conditional HSIC and the Stein discrepancy are both the
squared norm of a mean of row features that vanish under H0
(``_mean_norm``). The tests in :mod:`skmmd.two_sample`,
:mod:`skmmd.independence` and :mod:`skmmd.goodness_of_fit` compute the same
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
