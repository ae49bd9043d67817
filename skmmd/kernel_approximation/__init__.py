"""Random feature maps that approximate kernels (scikit-learn transformers)."""

from ._fastfood import FastfoodSampler
from ._fourier import NormalizedRandomFourierSampler, RandomFourierSampler
from ._gcws import GCWSSampler
from ._hdd import HDDSampler
from ._mean_embedding import MeanEmbedding
from ._nystroem import NystroemSampler
from ._tabular import TabularSampler

__all__ = [
    "FastfoodSampler",
    "GCWSSampler",
    "HDDSampler",
    "MeanEmbedding",
    "NormalizedRandomFourierSampler",
    "NystroemSampler",
    "RandomFourierSampler",
    "TabularSampler",
]
