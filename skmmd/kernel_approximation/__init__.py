"""Random feature maps that approximate kernels (scikit-learn transformers)."""

from ._fastfood import FastfoodSampler
from ._fourier import NormalizedRandomFourierSampler, RandomFourierSampler

__all__ = ["FastfoodSampler", "NormalizedRandomFourierSampler", "RandomFourierSampler"]
