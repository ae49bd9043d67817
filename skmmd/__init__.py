"""skmmd: scikit-learn-compatible random feature maps and linear-time kernel
tests (two-sample MMD, independence HSIC, goodness of fit by the kernel
Stein discrepancy)."""

from ._inference._blocks import SerialDependenceWarning
from ._utils._show_versions import show_versions
from .change_points import ChangePointResult, KernelChangePoints, change_point_test
from .conditional import (
    ConditionalHSICTest,
    ConditionalHSICTestResult,
    conditional_independence_test,
)
from .drift import OnlineMMDDetector
from .goodness_of_fit import (
    AggregatedKernelSteinTest,
    KernelSteinTest,
    KernelSteinTestResult,
    goodness_of_fit_test,
    log_density_score,
)
from .independence import (
    AggregatedHSICTest,
    HSICTest,
    HSICTestResult,
    hsic_test,
)
from .kernel_approximation import (
    FastfoodSampler,
    GCWSSampler,
    HDDSampler,
    MeanEmbedding,
    NormalizedRandomFourierSampler,
    NystroemSampler,
    RandomFourierSampler,
    TabularSampler,
)
from .kernel_learning import LearnedFourierSampler
from .two_sample import AggregatedMMDTest, MMDTest, MMDTestResult, mmd_test

__version__ = "0.1.0.dev0"

__all__ = [
    "ChangePointResult",
    "AggregatedHSICTest",
    "AggregatedKernelSteinTest",
    "AggregatedMMDTest",
    "ConditionalHSICTest",
    "ConditionalHSICTestResult",
    "FastfoodSampler",
    "GCWSSampler",
    "HDDSampler",
    "HSICTest",
    "HSICTestResult",
    "KernelSteinTest",
    "KernelChangePoints",
    "KernelSteinTestResult",
    "LearnedFourierSampler",
    "MMDTest",
    "MMDTestResult",
    "MeanEmbedding",
    "NormalizedRandomFourierSampler",
    "NystroemSampler",
    "OnlineMMDDetector",
    "RandomFourierSampler",
    "SerialDependenceWarning",
    "TabularSampler",
    "__version__",
    "change_point_test",
    "conditional_independence_test",
    "goodness_of_fit_test",
    "hsic_test",
    "log_density_score",
    "mmd_test",
    "show_versions",
]
