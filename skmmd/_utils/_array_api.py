"""Array-API inputs (PyTorch, CuPy, array-api-strict, ...): the one place that
tells them from NumPy and moves arrays between namespaces.

scikit-learn's mechanism is used as is: with
``sklearn.set_config(array_api_dispatch=True)`` (which needs the environment
variable ``SCIPY_ARRAY_API=1`` set before scipy is first imported), an array of
another namespace is computed on in its namespace and on its device. Without
dispatch, or for NumPy arrays, :func:`namespace` answers None and the NumPy
code runs unchanged.

Arrays in host memory (array-api-strict, PyTorch on the CPU) are computed on by
the NumPy/numba engine, as zero-copy NumPy views (:func:`on_host`): numba is
the CPU engine, so their results equal the NumPy path's bit for bit, and only
device arrays (CuPy, PyTorch on a GPU) take the namespace code below.
"""

import functools
import math
from copy import copy as shallow_copy

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.utils.validation import check_is_fitted

from ._compat import (
    check_same_namespace,
    convert_to_numpy,
    get_namespace_and_device,
    is_numpy_namespace,
    max_precision_float_dtype,
)

# Samplers that compute in any namespace; named in the error of the others.
SUPPORTED = (
    "RandomFourierSampler (dense input)",
    "NormalizedRandomFourierSampler",
    "NystroemSampler (vector kernels)",
)


def _candidate(a):
    """An object that may be a non-NumPy array (not a list, sparse matrix,
    DataFrame or dask collection)."""
    return not (
        a is None
        or isinstance(a, (np.ndarray, list, tuple, str))
        or sp.issparse(a)
        or hasattr(a, "iloc")
        or type(a).__module__.split(".")[0] == "dask"
        or not hasattr(a, "shape")
    )


def namespace(*arrays):
    """``(xp, device)`` of array-API arrays that are not NumPy arrays when
    scikit-learn's ``array_api_dispatch`` is on; ``(None, None)`` otherwise."""
    if not get_config()["array_api_dispatch"]:
        return None, None
    arrays = [a for a in arrays if _candidate(a)]
    if not arrays:
        return None, None
    xp, _, device = get_namespace_and_device(*arrays)
    if is_numpy_namespace(xp):
        return None, None
    return xp, device


# Off in tests only: host arrays then take the namespace code that GPUs take.
HOST_ENGINE = True
_DLPACK_CPU = 1  # DLPack's device type of host memory (kDLCPU)


def _in_host_memory(a):
    try:
        return a.__dlpack_device__()[0] == _DLPACK_CPU
    except (AttributeError, TypeError, ValueError, BufferError):
        return False


def on_host(*arrays):
    """Whether the NumPy engine computes on these arrays: every array-API
    array among them (NumPy arrays, lists and None aside) is in host memory."""
    return HOST_ENGINE and all(_in_host_memory(a) for a in arrays if _candidate(a))


def as_numpy(a, name):
    """The array-API array ``a`` (the parameter ``name``) as NumPy: a
    zero-copy view in host memory, a host copy of device memory; anything else
    as is."""
    if not _candidate(a):
        return a
    if not _in_host_memory(a):
        return to_numpy(a, get_namespace_and_device(a)[0])
    try:
        return np.from_dlpack(a)
    except (BufferError, RuntimeError, TypeError) as error:
        raise TypeError(
            f"{name} is in host memory but cannot be shared with NumPy ({error})."
        ) from error


def convert_fitted(estimator, convert):
    """Apply ``convert`` to a sampler's fitted arrays (its
    ``ARRAY_API_ATTRIBUTES``), in place; returns the sampler."""
    for name in getattr(estimator, "ARRAY_API_ATTRIBUTES", None) or ():
        value = getattr(estimator, name, None)
        if value is not None:
            setattr(estimator, name, convert(value))
    return estimator


def convert_maps(test, convert):
    """Replace a two-sample test's fitted maps (``transformer_``,
    ``transformers_``) by shallow copies whose arrays are converted, in place;
    returns the test."""

    def converted(transformer):
        return convert_fitted(shallow_copy(transformer), convert)

    if test.__dict__.get("transformer_") is not None:
        test.transformer_ = converted(test.transformer_)
    if test.__dict__.get("transformers_") is not None:
        test.transformers_ = [converted(t) for t in test.transformers_]
    return test


def to_namespace(xp, device):
    """``convert`` for :func:`convert_fitted`: NumPy arrays to ``xp``."""
    return lambda a: from_numpy(a, xp, device) if isinstance(a, np.ndarray) else a


def fitted_as_numpy(a):
    """``convert`` for :func:`convert_fitted`: every array to NumPy."""
    return as_numpy(a, "a fitted array")


def host_fitted(estimator):
    """A fitted sampler whose host array-API arrays are NumPy views (the NumPy
    engine's view of it); as is when that engine is off."""
    if not HOST_ENGINE:
        return estimator
    return convert_fitted(
        estimator, lambda a: fitted_as_numpy(a) if _in_host_memory(a) else a
    )


def float_dtypes(xp):
    """The dtypes a sampler computes in (float64 first, as ``FLOAT_DTYPES``)."""
    return [xp.float64, xp.float32]


def to_numpy(x, xp):
    """``x`` as a NumPy array on the host."""
    return convert_to_numpy(x, xp)


def from_numpy(x, xp, device):
    """A NumPy array (or None) in ``xp`` on ``device``; float64 becomes the
    most precise float the device has (float32 on some GPUs)."""
    if x is None:
        return None
    x = np.asarray(x)
    if not x.flags.writeable:  # a view of read-only memory, which PyTorch rejects
        x = x.copy()
    if x.dtype == np.float64:
        return xp.asarray(x, dtype=max_precision_float_dtype(xp, device), device=device)
    return xp.asarray(x, device=device)


def astype(x, dtype, xp):
    """``x`` in ``dtype`` (no copy when it already is)."""
    return x if x.dtype == dtype else xp.astype(x, dtype)


def float64(x, xp, device):
    """``x`` in the most precise float of its device."""
    return astype(x, max_precision_float_dtype(xp, device), xp)


def take_rows(X, rows, xp, device):
    """Rows of ``X`` by a slice or NumPy indices."""
    if isinstance(rows, slice):
        return X[rows, ...]
    return xp.take(
        X, xp.asarray(np.asarray(rows), dtype=xp.int64, device=device), axis=0
    )


def concat(parts, xp):
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)


def copy(X, xp):
    return xp.asarray(X, copy=True)


def grouped_sums(Z, groups, n_groups, xp, device):
    """Per-group sums of the feature rows ``Z`` and of their squared norms,
    computed on ``Z``'s device and returned as NumPy float64 ``(S, q)``.

    The rows of each group are gathered in their order, padded with zero rows
    to the largest group, and summed along the group axis: the same sequential
    sums as the NumPy path's sparse product (adding zeros is exact), in one
    gather and one reduction on the device.
    """
    Z = float64(Z, xp, device)
    n_rows, D = Z.shape
    groups = np.asarray(groups)
    counts = np.bincount(groups, minlength=n_groups)
    width = int(counts.max()) if n_rows else 0
    order = np.argsort(groups, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(n_rows) - np.repeat(starts, counts)
    index = np.full((n_groups, max(width, 1)), n_rows, dtype=np.int64)
    index[groups[order], slot] = order
    padded = xp.concat([Z, xp.zeros((1, D), dtype=Z.dtype, device=device)], axis=0)
    index = xp.asarray(index.ravel(), device=device)
    blocks = xp.reshape(xp.take(padded, index, axis=0), (n_groups, -1, D))
    S = xp.sum(blocks, axis=1)
    norms = xp.sum(padded * padded, axis=1)
    q = xp.sum(xp.reshape(xp.take(norms, index), (n_groups, -1)), axis=1)
    return (
        np.asarray(to_numpy(S, xp), dtype=np.float64),
        np.asarray(to_numpy(q, xp), dtype=np.float64),
    )


def trig_features(X, W, feature, n_components, offset, xp, device, block_rows):
    """The Fourier-type map of :func:`skmmd.kernel_approximation._base.trig_features`
    in ``xp``: ``scale [cos(XW), sin(XW)]`` or ``scale cos(XW + offset)``, row
    block by row block as on the NumPy path."""
    n = X.shape[0]
    out = xp.empty((n, n_components), dtype=X.dtype, device=device)
    scale = math.sqrt(2.0 / n_components)
    n_pairs = n_components // 2 if feature == "cos_sin" else 0
    if offset is not None:
        offset = astype(offset, X.dtype, xp)
    for lo in range(0, n, block_rows):
        rows = slice(lo, min(lo + block_rows, n))
        P = X[rows, :] @ W
        if n_pairs:
            out[rows, :n_pairs] = xp.cos(P[:, :n_pairs]) * scale
            out[rows, n_pairs : 2 * n_pairs] = xp.sin(P[:, :n_pairs]) * scale
        if offset is not None:
            out[rows, 2 * n_pairs :] = xp.cos(P[:, n_pairs:] + offset) * scale
    return out


def dispatching(method):
    """Wrap a sampler's ``fit`` or ``transform`` for arrays of other namespaces.

    ``fit`` runs the sampler's own code (its random draws in NumPy, as always),
    then moves the fitted arrays named in ``ARRAY_API_ATTRIBUTES`` to the
    input's namespace and device; ``transform`` calls the sampler's
    ``_transform_array_api``, or for host arrays its NumPy ``transform`` on
    views. Samplers that say why not (``_array_api_unsupported``) raise a
    TypeError.
    """

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        attributes = getattr(self, "ARRAY_API_ATTRIBUTES", None)
        transform = method.__name__ == "transform"
        if transform and attributes is not None and get_config()["array_api_dispatch"]:
            # X in the namespace and on the device of the fitted arrays.
            check_is_fitted(self)
            check_same_namespace(X, self, attribute=attributes[0], method="transform")
        xp, device = namespace(X)
        if xp is None:
            return method(self, X, *args, **kwargs)
        reason = self._array_api_unsupported()
        if reason is not None:
            raise TypeError(
                f"{reason}; X is an array of namespace {xp.__name__} "
                f"(array_api_dispatch is on). Array-API inputs work with "
                f"{', '.join(SUPPORTED)}; convert X to NumPy for this one."
            )
        if on_host(X):
            X = as_numpy(X, "X")
            if transform:
                Z = method(host_fitted(shallow_copy(self)), X, *args, **kwargs)
                return from_numpy(Z, xp, device)
        elif transform:
            return self._transform_array_api(X, xp, device)
        out = method(self, X, *args, **kwargs)
        convert_fitted(self, to_namespace(xp, device))
        return out

    return wrapper
