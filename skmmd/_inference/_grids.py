"""The default kernels of the aggregated tests: random Fourier maps at each
bandwidth of a grid spanning the data's pairwise distances, shared by
:class:`~skmmd.AggregatedMMDTest` (a grid per kernel) and
:class:`~skmmd.AggregatedHSICTest` (a grid per variable)."""

from .._utils._streams import draw_seed
from ..kernel_approximation import RandomFourierSampler
from ..kernels import bandwidth_grid


def bandwidth_maps(V, n_bandwidths, n_components, rng, kernel="gaussian"):
    """Random Fourier maps of ``kernel`` at each bandwidth of V's grid
    (:func:`~skmmd.kernels.bandwidth_grid`; Manhattan distances for the
    Laplacian kernel), each seeded from ``rng`` in turn: ``(maps,
    bandwidths)``."""
    metric = "manhattan" if kernel == "laplacian" else "euclidean"
    bandwidths = bandwidth_grid(V, n_bandwidths, random_state=rng, metric=metric)
    maps = [
        RandomFourierSampler(
            kernel=kernel,
            bandwidth=float(bandwidth),
            n_components=n_components,
            random_state=draw_seed(rng),
        )
        for bandwidth in bandwidths
    ]
    return maps, bandwidths
