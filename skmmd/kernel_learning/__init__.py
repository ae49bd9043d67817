"""Feature maps whose kernel is learned from labelled samples for test power."""

from ._fourier import LearnedFourierSampler

__all__ = ["LearnedFourierSampler"]
