"""Rows summed per group through a sparse 0/1 matrix: the unit sums of a
map's features where no fused kernel sums them (the pipeline's fallback, the
table map's Fourier block, the columnwise cells of small groups)."""

import numpy as np
import scipy.sparse as sp


def indicator(groups, n_groups):
    """The (n_groups, n) CSR matrix with a 1 at ``(groups[i], i)``."""
    n = len(groups)
    return sp.csr_matrix((np.ones(n), (groups, np.arange(n))), shape=(n_groups, n))


def summed(Z, groups, n_groups):
    """``(S, q)``: the dense float64 rows of ``Z`` summed per group, and their
    squared norms summed per group."""
    M = indicator(groups, n_groups)
    return M @ Z, M @ np.einsum("ij,ij->i", Z, Z)
