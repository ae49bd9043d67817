"""skmmd: scikit-learn-compatible random feature maps and linear-time MMD tests."""

from ._utils._show_versions import show_versions
from .drift import OnlineMMDDetector
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
from .two_sample import AggregatedMMDTest, HSICTest, MMDTest
from .two_sample._api import hsic_test, mmd_test
from .two_sample._results import MMDTestResult

__version__ = "0.1.0.dev0"

__all__ = [
    "AggregatedMMDTest",
    "FastfoodSampler",
    "GCWSSampler",
    "HDDSampler",
    "HSICTest",
    "LearnedFourierSampler",
    "MMDTest",
    "MMDTestResult",
    "MeanEmbedding",
    "NormalizedRandomFourierSampler",
    "NystroemSampler",
    "OnlineMMDDetector",
    "RandomFourierSampler",
    "TabularSampler",
    "__version__",
    "hsic_test",
    "mmd_test",
    "show_versions",
]
