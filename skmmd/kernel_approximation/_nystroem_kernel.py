"""The kernel of :class:`NystroemSampler`: skmmd's bandwidth kernels,
scikit-learn's pairwise kernels and callables in either convention, evaluated
between blocks of items, with one dense implementation for NumPy and array-API
inputs."""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import (
    KERNEL_PARAMS,
    manhattan_distances,
    pairwise_kernels,
)
from sklearn.utils import gen_batches

from .._utils import _array_api
from .._utils._compat import get_namespace_and_device, is_numpy_namespace
from ..kernels import gaussian_kernel, laplacian_kernel
from ._base import FLOAT_DTYPES
from ._landmarks import _n_items, _take

# skmmd's own kernels take ``bandwidth``; scikit-learn's ``"laplacian"`` (with
# ``gamma``) is shadowed by skmmd's, which is the same kernel with
# ``bandwidth = 1 / gamma``.
_BANDWIDTH_KERNELS = {"gaussian": gaussian_kernel, "laplacian": laplacian_kernel}
_SKLEARN_KERNELS = {
    name: params
    for name, params in KERNEL_PARAMS.items()
    if name not in _BANDWIDTH_KERNELS
}

_CONVENTIONS = ("matrix", "pairwise")

_CONVENTION_HINT = (
    "skmmd calls a callable kernel on two sequences of items for their kernel "
    "matrix (kernel_convention='matrix'); for scikit-learn's convention, k(x, y) -> "
    "float on two rows, pass kernel_convention='pairwise'."
)


def is_vector_data(X):
    """True for a 2-D numeric array-like or sparse matrix (else: a sequence of
    objects, for a callable kernel)."""
    if sp.issparse(X) or hasattr(X, "iloc"):
        return True
    try:
        arr = np.asarray(X)
    except (ValueError, TypeError):  # ragged sequences of arrays
        return False
    return arr.ndim == 2 and arr.dtype.kind in "biuf"


def _rbf(A, B, gamma):
    """``exp(-gamma ||a - b||^2)`` between the rows of dense A and B, in A's
    dtype, in any array namespace.

    The one implementation for NumPy and array-API inputs, so that both give
    the same bits: the landmarks' eigendecomposition amplifies any round-off
    difference in ``K(S, S)`` and ``K(X, S)``. Squared distances by the norm
    expansion in the most precise float (scikit-learn upcasts float32 the
    same way), the exponential in A's dtype.
    """
    xp, _, device = get_namespace_and_device(A, B)
    A64 = _array_api.float64(A, xp, device)
    B64 = _array_api.float64(B, xp, device)
    D = A64 @ B64.T
    D *= -2.0
    D += xp.sum(A64 * A64, axis=1)[:, None]
    D += xp.sum(B64 * B64, axis=1)[None, :]
    if is_numpy_namespace(xp):  # the same operations, in place
        np.maximum(D, 0.0, out=D)
        D = D.astype(A.dtype, copy=False)
        D *= -gamma
        return np.exp(D, out=D)
    D = _array_api.astype(xp.clip(D, min=0.0), A.dtype, xp)
    D *= -gamma
    return xp.exp(D)


def _laplacian(A, B, bandwidth):
    """``exp(-||a - b||_1 / bandwidth)`` between the rows of dense A and B, in
    A's dtype, in any array namespace: one implementation for both paths (see
    :func:`_rbf`), with the operations of :func:`skmmd.kernels.laplacian_kernel`
    (distances in float64, divided by ``-bandwidth``)."""
    xp, _, device = get_namespace_and_device(A, B)
    D = manhattan_distances(
        _array_api.float64(A, xp, device), _array_api.float64(B, xp, device)
    )
    D /= -bandwidth
    return _array_api.astype(xp.exp(D), A.dtype, xp)


def _cosine(A, B):
    """``<a, b> / (||a|| ||b||)`` (0 for a zero row) between the rows of dense
    A and B, in A's dtype, in any array namespace (one implementation for both
    paths, see :func:`_rbf`)."""
    xp, _, _ = get_namespace_and_device(A, B)
    normalized = []
    for M in (A, B):
        norms = xp.sqrt(xp.sum(M * M, axis=1))
        norms = xp.where(norms == 0, xp.ones_like(norms), norms)
        normalized.append(M / norms[:, None])
    return _array_api.astype(normalized[0] @ normalized[1].T, A.dtype, xp)


class _NystroemKernelMixin:
    """``k(A, B)`` (``_kernel``) and ``k(x, x)`` (``_kernel_diagonal``) from
    the estimator's ``kernel``, ``kernel_params``, ``kernel_convention`` and
    fitted ``bandwidth_`` and ``_vector_input``, and the check that these
    parameters go together. The landmark selection calls the two methods on
    the sampler, or on a ``_landmarks._PrecomputedKernel``, which has them too."""

    def _check_kernel_options(self):
        params = self.kernel_params or {}
        if self.kernel == "precomputed" and params:
            raise ValueError(
                "kernel_params is not used by kernel='precomputed' (the kernel "
                f"matrix is given); got kernel_params={params!r}."
            )
        if isinstance(self.kernel, str) and self.kernel in _BANDWIDTH_KERNELS:
            if params:
                raise ValueError(
                    f"kernel_params is not used by kernel={self.kernel!r}, whose "
                    f"only parameter is bandwidth; got kernel_params={params!r}."
                )
        elif not isinstance(self.bandwidth, str):
            raise ValueError(
                "bandwidth applies to kernel='gaussian' or 'laplacian' only; pass "
                f"the parameters of kernel={self.kernel!r} in kernel_params "
                f"(got bandwidth={self.bandwidth!r})."
            )
        if isinstance(self.kernel, str) and self.kernel in _SKLEARN_KERNELS:
            unknown = set(params) - set(_SKLEARN_KERNELS[self.kernel])
            if unknown:
                raise ValueError(
                    f"kernel_params has parameters {sorted(unknown)} that "
                    f"kernel={self.kernel!r} does not take; it takes "
                    f"{sorted(_SKLEARN_KERNELS[self.kernel])}."
                )

    def _kernel(self, A, B):
        """``k(A, B)``: float in the dtype of the (vector) inputs."""
        params = self.kernel_params or {}
        if callable(self.kernel):
            if self.kernel_convention == "pairwise":
                K = self._pairwise_callable(A, B, params)
            else:
                K = self._matrix_callable(A, B, params)
            dtype = A.dtype if hasattr(A, "dtype") and A.dtype in FLOAT_DTYPES else None
            return K.astype(dtype or np.float64, copy=False)
        dense = not (sp.issparse(A) or sp.issparse(B))
        if dense and self.kernel == "gaussian":
            return _rbf(A, B, 0.5 / self.bandwidth_**2)
        if dense and self.kernel == "rbf":
            gamma = params.get("gamma")
            return _rbf(A, B, 1.0 / A.shape[1] if gamma is None else gamma)
        if dense and self.kernel == "laplacian":
            return _laplacian(A, B, self.bandwidth_)
        if dense and self.kernel == "cosine":
            return _cosine(A, B)
        xp, _ = _array_api.namespace(A)
        if xp is None and self.kernel in _BANDWIDTH_KERNELS:
            return _BANDWIDTH_KERNELS[self.kernel](A, B, bandwidth=self.bandwidth_)
        K = pairwise_kernels(A, B, metric=self.kernel, **params)
        if xp is not None:
            return _array_api.astype(K, A.dtype, xp)
        return K.astype(A.dtype, copy=False)

    def _matrix_callable(self, A, B, params):
        try:
            K = np.asarray(self.kernel(A, B, **params))
        except Exception as exc:
            # A pairwise function fails inside, e.g. with a matmul error.
            if hasattr(exc, "add_note"):
                exc.add_note(_CONVENTION_HINT)
            raise
        shape = (_n_items(A), _n_items(B))
        if K.shape != shape:
            raise ValueError(
                f"The callable kernel must return the kernel matrix of its two "
                f"arguments, of shape {shape}; got an array of shape {K.shape}. "
                + _CONVENTION_HINT
            )
        return K

    def _pairwise_callable(self, A, B, params):
        def k(x, y):
            value = self.kernel(x, y, **params)
            if np.ndim(value) != 0:
                raise ValueError(
                    "With kernel_convention='pairwise' the callable kernel must "
                    "return a float, of shape (), for two rows; got an array of "
                    f"shape {np.shape(value)}. A callable returning the kernel "
                    "matrix of two sequences needs kernel_convention='matrix'."
                )
            return value

        if self._vector_input:
            # Y=None when both are the same: scikit-learn then evaluates the
            # upper triangle only.
            return pairwise_kernels(A, None if B is A else B, metric=k)
        return np.array([[k(a, b) for b in B] for a in A], dtype=np.float64)

    def _kernel_diagonal(self, X):
        """``k(x, x)`` for every item of X, in float64."""
        n = _n_items(X)
        if self.kernel in _BANDWIDTH_KERNELS:
            return np.ones(n)
        diag = np.empty(n)
        for rows in gen_batches(n, 256):
            block = _take(X, np.arange(rows.start, rows.stop))
            diag[rows] = np.diagonal(self._kernel(block, block))
        return diag
