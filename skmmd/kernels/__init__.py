"""Exact kernels: the ground truth of the feature maps and the exact tests.

Vector kernels (:func:`gaussian_kernel`, :func:`laplacian_kernel`,
:func:`matern_kernel`, :func:`gmm_kernel`) and their bandwidth heuristics live
in ``_pairwise``; the homogeneous density distances of :class:`HDDSampler`
in ``_densities``. Nothing here knows of feature maps or tests.
"""

from ._densities import (
    density_divergence,
    hdd_divergence_matrix,
    hdd_integrand,
    hdd_kernel,
)
from ._pairwise import (
    bandwidth_grid,
    gaussian_kernel,
    gmm_kernel,
    kernel_chunks,
    laplacian_kernel,
    matern_kernel,
    median_bandwidth,
)

__all__ = [
    "bandwidth_grid",
    "density_divergence",
    "gaussian_kernel",
    "gmm_kernel",
    "hdd_divergence_matrix",
    "hdd_integrand",
    "hdd_kernel",
    "kernel_chunks",
    "laplacian_kernel",
    "matern_kernel",
    "median_bandwidth",
]
