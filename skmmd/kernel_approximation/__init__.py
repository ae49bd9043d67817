"""Random feature maps that approximate kernels (scikit-learn transformers)."""

from ._fourier import NormalizedRandomFourierSampler, RandomFourierSampler
from ._gcws import GCWSSampler

__all__ = ["GCWSSampler", "NormalizedRandomFourierSampler", "RandomFourierSampler"]
