"""Random graphs and the shortest-path kernel between them: a kernel on
objects that are not vectors, for the callable-kernel paths of Nystroem
features and Nystroem MMD."""

import numpy as np


def shortest_path_histogram(adjacency, max_length=6):
    """Histogram of shortest-path lengths 1..max_length (Floyd-Warshall)."""
    n = adjacency.shape[0]
    D = np.where(adjacency > 0, 1.0, np.inf)
    np.fill_diagonal(D, 0.0)
    for k in range(n):
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    lengths = D[np.triu_indices(n, k=1)]
    return np.array([(lengths == ell).sum() for ell in range(1, max_length + 1)], float)


def shortest_path_kernel(A, B):
    """Shortest-path kernel (Borgwardt & Kriegel 2005), delta on path lengths:
    the inner product of the path-length histograms."""
    HA = np.array([shortest_path_histogram(g) for g in A])
    HB = np.array([shortest_path_histogram(g) for g in B])
    return HA @ HB.T


def random_graphs(rng, n_graphs):
    graphs = []
    for _ in range(n_graphs):
        size = int(rng.integers(4, 9))
        upper = np.triu(rng.uniform(size=(size, size)) < 0.4, k=1)
        graphs.append((upper | upper.T).astype(int))
    return graphs
