"""skmmd: scikit-learn-compatible random feature maps and linear-time MMD tests."""

from ._show_versions import show_versions
from .kernel_approximation import (
    NormalizedRandomFourierSampler,
    NystroemSampler,
    RandomFourierSampler,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "NormalizedRandomFourierSampler",
    "NystroemSampler",
    "RandomFourierSampler",
    "__version__",
    "show_versions",
]
