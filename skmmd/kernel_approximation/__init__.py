"""Random feature maps that approximate kernels (scikit-learn transformers)."""

from ._fourier import NormalizedRandomFourierSampler, RandomFourierSampler
from ._hdd import HDDSampler
from ._mean_embedding import MeanEmbedding

__all__ = [
    "HDDSampler",
    "MeanEmbedding",
    "NormalizedRandomFourierSampler",
    "RandomFourierSampler",
]
