"""Random feature maps that approximate kernels (scikit-learn transformers)."""

from ._fourier import NormalizedRandomFourierSampler, RandomFourierSampler
from ._nystroem import NystroemSampler

__all__ = ["NormalizedRandomFourierSampler", "NystroemSampler", "RandomFourierSampler"]
