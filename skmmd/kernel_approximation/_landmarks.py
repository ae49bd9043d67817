"""Landmark selection of NystroemSampler: uniform rows, k-means centers,
recursive ridge leverage score sampling (Musco & Musco 2017), landmarks the
user gives, or rows of a precomputed kernel matrix; and the row access they
share for arrays, sparse matrices and sequences of objects."""

import math
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, gen_batches

from .._utils import _array_api, _budgets
from ._base import FLOAT_DTYPES

_STRATEGIES = ("uniform", "kmeans", "leverage")

# Lloyd iterations after the k-means++ seeding: centers move little after a
# few, and each costs as much as one transform of the training set.
_KMEANS_MAX_ITER = 10


def _int32_indices(X):
    """CSR with 32-bit indices when they fit: scikit-learn's sparse Manhattan
    distance (Laplacian kernel, its median heuristic) accepts no others."""
    if sp.issparse(X) and X.indices.dtype != np.int32 and X.nnz < 2**31 - 1:
        X = X.copy()
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def _take(X, indices):
    """Rows of an array / sparse matrix, or items of a sequence, as a list."""
    if sp.issparse(X) or isinstance(X, np.ndarray):
        return X[indices]
    xp, device = _array_api.namespace(X)
    if xp is not None:
        return _array_api.take_rows(X, indices, xp, device)
    return [X[i] for i in indices]


def _n_items(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _numpy_dtype(dtype):
    """The NumPy float dtype of the same name (of any namespace's dtype)."""
    return np.dtype(np.float32) if "float32" in str(dtype) else np.dtype(np.float64)


class _PrecomputedKernel:
    """The kernel of ``kernel="precomputed"`` during ``fit``: items are the
    indices of the training rows, ``k(A, B) = K[A][:, B]``; it stands in for
    the sampler in the landmark selection (uniform, leverage)."""

    _vector_input = False

    def __init__(self, K):
        self.K = K

    def _kernel(self, A, B):
        return self.K[np.ix_(np.asarray(A), np.asarray(B))].astype(np.float64)

    def _kernel_diagonal(self, X):
        return np.diagonal(self.K)[np.asarray(X)].astype(np.float64)


def _kmeans_centers(X, s, rng):
    """k-means++ seeding refined by a few Lloyd iterations, in float64."""
    from sklearn.cluster import KMeans  # a slow import, for k-means only

    km = KMeans(
        n_clusters=s,
        init="k-means++",
        n_init=1,
        max_iter=_KMEANS_MAX_ITER,
        random_state=rng,
    )
    with warnings.catch_warnings():
        # Fewer distinct points than s: duplicate centers, whose eigenvalues
        # are then dropped.
        warnings.simplefilter("ignore", ConvergenceWarning)
        km.fit(X.astype(np.float64))
    return km.cluster_centers_.astype(X.dtype, copy=False)


def _as64(sampler, X):
    return X.astype(np.float64) if sampler._vector_input else X


def _leverage_scores(sampler, X, candidates, sampled, weights, lam, diag):
    """Ridge leverage scores of ``candidates`` against the weighted ``sampled``
    points: ``(k(x,x) - k(x,S) (K_SS + lam W^-2)^{-1} k(S,x)) / lam``."""
    S = _take(X, sampled)
    K_SS = sampler._kernel(S, S).astype(np.float64, copy=False)
    chol = scipy.linalg.cholesky(K_SS + np.diag(lam / weights**2), lower=True)
    scores = np.empty(len(candidates))
    block = max(1, _budgets.MAP_CHUNK_ENTRIES // len(sampled))
    for rows in gen_batches(len(candidates), block):
        K = sampler._kernel(_take(X, candidates[rows]), S).astype(
            np.float64, copy=False
        )
        B = scipy.linalg.solve_triangular(chol, K.T, lower=True)
        scores[rows] = diag[candidates[rows]] - np.einsum("ij,ij->j", B, B)
    return np.maximum(scores, 0.0) / lam


def _recursive_rls(sampler, X, s, rng):
    """Recursive ridge leverage score sampling (Musco & Musco 2017, Alg. 2).

    Halves the data ``log2(n / s)`` times; from the smallest uniform subset
    up, each level samples points by their ridge leverage scores estimated
    from the previous level's sample, the ridge ``lam`` set so that about
    ``s`` points are kept. The top level draws exactly s distinct indices.
    """
    X = _as64(sampler, X)
    n = _n_items(X)
    if s >= n:
        return rng.permutation(n)
    oversample = max(math.log(s), 1.0)
    k = max(1, math.ceil(s / (4.0 * oversample)))
    sizes = [n]
    while sizes[-1] > s:
        sizes.append(math.ceil(sizes[-1] / 2))
    perm = rng.permutation(n)
    diag = sampler._kernel_diagonal(X)[perm]
    Xp = _take(X, perm)
    sampled = np.arange(sizes[-1])
    weights = np.ones(len(sampled))
    for level in range(len(sizes) - 2, -1, -1):
        candidates = np.arange(sizes[level])
        if k >= len(sampled):
            lam = 1e-5  # too few points to estimate the tail: a tiny ridge
        else:
            S = _take(Xp, sampled)
            K_SS = sampler._kernel(S, S).astype(np.float64, copy=False)
            top = scipy.linalg.eigvalsh(
                K_SS * np.outer(weights, weights),
                subset_by_index=[len(sampled) - k, len(sampled) - 1],
            )
            # The ridge that makes the effective dimension about k.
            lam = max(
                (np.sum(diag[sampled] * weights**2) - np.sum(np.abs(top))) / k, 1e-10
            )
        scores = _leverage_scores(sampler, Xp, candidates, sampled, weights, lam, diag)
        if level > 0:
            probs = np.minimum(1.0, oversample * scores)
            sampled = np.flatnonzero(rng.random_sample(len(candidates)) < probs)
            if sampled.size == 0:  # very unlikely; fall back to uniform
                probs[:] = s / len(candidates)
                sampled = np.sort(rng.choice(len(candidates), s, replace=False))
            weights = 1.0 / np.sqrt(probs[sampled])
        else:
            probs = np.minimum(1.0, scores)
            # Every point needs a positive probability to draw s distinct ones.
            probs += probs.max() * 1e-12 + np.finfo(float).tiny
            sampled = rng.choice(n, s, replace=False, p=probs / probs.sum())
    return perm[sampled]


def _select_landmarks(sampler, X, vector, rng):
    """Landmarks S of ``sampler.landmarks`` and their indices in X (None when
    not training points); ``sampler`` evaluates the kernel of the leverage
    scores."""
    n = _n_items(X)
    xp, device = _array_api.namespace(X)
    if not isinstance(sampler.landmarks, str):
        S = _user_landmarks(sampler.landmarks, X if xp is None else X[:1, :], vector)
        return (S if xp is None else _array_api.from_numpy(S, xp, device)), None
    s = min(sampler.n_components, n)
    if xp is not None and sampler.landmarks != "uniform":
        # k-means and leverage scores run on a NumPy copy, on the host.
        S, indices = _select_landmarks(sampler, _array_api.to_numpy(X, xp), True, rng)
        if indices is not None:
            return _take(X, indices), indices
        return _array_api.from_numpy(S, xp, device), None
    if sampler.landmarks == "uniform":
        indices = rng.permutation(n)[:s]
    elif sampler.landmarks == "leverage":
        indices = _recursive_rls(sampler, X, s, rng)
    else:
        if not vector:
            raise ValueError(
                "landmarks='kmeans' needs vector data (a 2-D array); with "
                "a sequence of objects use 'uniform', 'leverage' or an "
                "explicit sequence of landmarks."
            )
        return _kmeans_centers(X, s, rng), None
    return _take(X, indices), indices


def _user_landmarks(landmarks, X, vector):
    """The landmarks a user gave, checked against X."""
    if not vector:
        S = list(landmarks)
        if not S:
            raise ValueError("landmarks must contain at least one landmark.")
        return S
    S = check_array(
        landmarks,
        accept_sparse="csr",
        dtype=FLOAT_DTYPES,
        input_name="landmarks",
    )
    if S.shape[1] != X.shape[1]:
        raise ValueError(
            f"landmarks must have as many features as X ({X.shape[1]}); got "
            f"landmarks with {S.shape[1]}."
        )
    return _int32_indices(S.astype(_numpy_dtype(X.dtype), copy=False))


def _precomputed_landmark_indices(K, landmarks, s, rng):
    """Indices of ``s`` landmarks among the rows of the square kernel matrix
    ``K`` (``landmarks`` "uniform" or "leverage"), increasing, so that
    ``K(X, S)`` has the columns of ``K(X, X_fit)`` in order."""
    n = K.shape[0]
    if landmarks == "uniform":
        indices = rng.permutation(n)[:s]
    else:
        indices = _recursive_rls(_PrecomputedKernel(K), np.arange(n), s, rng)
    return np.sort(indices)
