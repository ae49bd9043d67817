"""Random feature maps that approximate kernels (scikit-learn transformers)."""

from ._fourier import NormalizedRandomFourierSampler, RandomFourierSampler

__all__ = ["NormalizedRandomFourierSampler", "RandomFourierSampler"]
