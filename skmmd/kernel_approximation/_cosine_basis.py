"""The cosine basis of ``[0,1]^d`` truncated to ``V_t`` and the projection
of functions on it (midpoint-rule DCT on a grid, or a Monte Carlo average),
for :class:`HDDSampler`."""

import itertools

import numpy as np


def cosine_index_set(n_features, cutoff):
    """``V_t = {alpha in {0..t}^d : sum(alpha^2) <= t^2}``, shape (|V|, d)."""
    grid = np.array(list(itertools.product(range(cutoff + 1), repeat=n_features)))
    return grid[(grid**2).sum(axis=1) <= cutoff**2]


def cosine_basis_1d(u, cutoff):
    """``phi_0 = 1, phi_k(u) = sqrt(2) cos(pi k u)``, shape (len(u), t + 1)."""
    B = np.sqrt(2.0) * np.cos(np.pi * np.outer(u, np.arange(cutoff + 1)))
    B[:, 0] = 1.0
    return B


def basis_at(points, V, cutoff):
    """The basis ``prod_d phi_{alpha_d}(u_d)`` of ``V`` at ``points``,
    shape (n_points, |V|)."""
    d = points.shape[1]
    Phi = np.ones((points.shape[0], V.shape[0]))
    for j in range(d):
        Phi *= cosine_basis_1d(points[:, j], cutoff)[:, V[:, j]]
    return Phi


def project(F, V, grid_size=None, basis_values=None):
    """Cosine-basis coefficients on ``V`` of functions given at the
    integration points, shape (B, |V| n_functions).

    ``F`` (B, n_mc, n_functions) holds the values on the midpoint grid of
    ``grid_size`` points per axis, or at the points where ``basis_values``
    (from :func:`basis_at`) holds the basis.
    """
    B, _, nf = F.shape
    d = V.shape[1]
    t = int(V.max()) if V.size else 0
    if grid_size is not None:
        G = grid_size
        # Midpoint-rule DCT along each axis: C[g, k] = phi_k(u_g) / G.
        C = cosine_basis_1d((np.arange(G) + 0.5) / G, t) / G
        # T is (B, (t+1)^j, G, G^(d-1-j) nf) before step j: each step is
        # one batched GEMM on a contiguous view, no transposed copies.
        T = F
        for j in range(d):
            T = np.matmul(C.T, T.reshape(B * (t + 1) ** j, G, -1))
        T = T.reshape(B, -1, nf)  # (B, (t+1)^d, nf), row-major in alpha
        flat = np.ravel_multi_index(tuple(V.T), (t + 1,) * d)
        coef = T[:, flat]  # (B, |V|, nf)
    else:
        Phi = basis_values
        coef = np.matmul(Phi.T, F) / Phi.shape[0]
    return coef.reshape(B, -1)
