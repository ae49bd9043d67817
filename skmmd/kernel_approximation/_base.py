"""What every sampler shares: input validation, bandwidth resolution, dtype
handling, feature names and the blockwise cos/sin evaluation."""

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_is_fitted

from .._utils import _array_api, _budgets, _dask
from .._utils._compat import validate_data
from ..kernels import median_bandwidth
from . import _trig

FLOAT_DTYPES = [np.float64, np.float32]


class FusedSums:
    """Mixin of the samplers whose features can be summed per group without
    being stored (each implements ``_sums_per_group``): the public
    ``grouped_sums`` that the test pipeline calls on any feature map that
    has it (a map without it is transformed, then summed)."""

    def grouped_sums(self, X, groups, n_groups, out=None):
        """Sum the features of the rows of each group, never storing them.

        ``transform(X)`` summed over the rows of each group, and the rows'
        squared norms summed the same way, computed block by block so that
        memory stays bounded whatever the number of rows: the per-unit sums
        of the tests' streaming pipeline. A custom feature map may define a
        method of this name and signature to be summed the same way.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to map.
        groups : ndarray of shape (n_samples,) of int
            The group of each row, in ``0 .. n_groups - 1``.
        n_groups : int
            Number of groups.
        out : tuple of two ndarrays, default=None
            ``(S, q)`` of shapes (n_groups, n_features_out) and (n_groups,),
            float64: the sums are added into them in place. None starts
            from zeros.

        Returns
        -------
        S : ndarray of shape (n_groups, n_features_out)
            The feature rows of each group, summed (float64).
        q : ndarray of shape (n_groups,)
            The squared norms of the feature rows of each group, summed.
        """
        return self._sums_per_group(X, groups, n_groups, out=out)


class BaseSampler(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base class of the vector-input samplers (not public).

    Subclasses set ``_bandwidth_metric`` (the distance of their median
    heuristic) and implement ``fit``, ``transform`` and ``_n_features_out``.
    """

    _bandwidth_metric = "euclidean"

    def __init_subclass__(cls, **kwargs):
        # fit and transform take dask arrays too (see skmmd._utils._dask): transform
        # maps the blocks lazily, fit reads a seeded bounded subsample.
        super().__init_subclass__(**kwargs)
        # With array_api_dispatch, arrays of other namespaces (PyTorch, CuPy)
        # go to the samplers that declare ``ARRAY_API_ATTRIBUTES``.
        for name in ("fit", "transform"):
            if name in cls.__dict__:
                method = _array_api.dispatching(cls.__dict__[name])
                setattr(cls, name, _dask.dispatching(method))

    # Fitted arrays moved to the input's namespace after fit (None: NumPy only).
    ARRAY_API_ATTRIBUTES = None

    def _array_api_unsupported(self):
        """Why this sampler takes no array-API input (None: it takes them)."""
        if self.ARRAY_API_ATTRIBUTES is None:
            return f"{type(self).__name__} computes with NumPy only"
        return None

    def _float_dtypes(self, X):
        xp, _ = _array_api.namespace(X)
        return FLOAT_DTYPES if xp is None else _array_api.float_dtypes(xp)

    def _validate_fit_data(self, X):
        return validate_data(self, X, accept_sparse="csr", dtype=self._float_dtypes(X))

    def _validate_transform_data(self, X):
        check_is_fitted(self)
        return validate_data(
            self, X, accept_sparse="csr", dtype=self._float_dtypes(X), reset=False
        )

    def _resolve_bandwidth(self, X, rng):
        """``bandwidth_``: the float given, or the median heuristic on X."""
        if isinstance(self.bandwidth, str):  # "median", checked by the constraints
            return median_bandwidth(X, random_state=rng, metric=self._bandwidth_metric)
        return float(self.bandwidth)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.array_api_support = self._array_api_unsupported() is None
        return tags


def n_frequencies(feature, n_components):
    """Frequencies a Fourier-type map draws for ``n_components`` output columns.

    ``cos_sin``: ``ceil(D / 2)`` (a cos/sin pair each, the last one a
    random-phase column when D is odd); ``cos_phase``: D.
    """
    return -(-n_components // 2) if feature == "cos_sin" else n_components


def random_phases(rng, feature, n_components):
    """Phases of the random-phase columns of :func:`trig_features`, or None."""
    n_phases = n_components if feature == "cos_phase" else n_components % 2
    return rng.uniform(0.0, 2.0 * np.pi, size=n_phases) if n_phases else None


def trig_features(X, project, feature, n_components, offset=None, weights=None):
    """Evaluate a Fourier-type map blockwise: ``project`` then cos/sin.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated input, float32 or float64.
    project : callable
        ``project(X_block) -> P`` of shape (block, n_frequencies), in ``X.dtype``.
    feature : {"cos_sin", "cos_phase"}
        ``cos_sin`` gives ``sqrt(2 / D) [cos P, sin P]`` with ``D // 2``
        frequencies; for odd ``D`` one more frequency gives a random-phase
        column, so every column has scale ``sqrt(2 / D)`` and the kernel estimate
        stays unbiased (weights ``2 / D`` per pair, ``1 / D`` for the extra one).
        ``cos_phase`` gives ``sqrt(2 / D) cos(P + offset)``.
    n_components : int
        Output dimension ``D``.
    offset : ndarray, default=None
        Random phases of the ``cos_phase`` columns (all of them for
        ``cos_phase``, the extra one for ``cos_sin`` with odd ``D``).
    weights : ndarray of shape (n_features, n_frequencies), default=None
        When ``project`` is ``X_block @ weights``: large dense inputs are then
        projected and evaluated in one pass (:func:`_trig.project_trig`).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_components), dtype of X
    """
    n = X.shape[0]
    out = np.empty((n, n_components), dtype=X.dtype)
    scale = np.sqrt(2.0 / n_components)
    if offset is not None:
        offset = offset.astype(X.dtype, copy=False)
    n_pairs = n_components // 2 if feature == "cos_sin" else 0
    if (
        weights is not None
        and isinstance(X, np.ndarray)
        and n * weights.shape[1] >= _trig._PARALLEL_MIN_SIZE
    ):
        _trig.project_trig(X, weights, n_pairs, offset, scale, out)
        return out
    for rows in gen_batches(n, max(1, _budgets.MAP_CHUNK_ENTRIES // n_components)):
        P = np.ascontiguousarray(project(X[rows]), dtype=X.dtype)
        block = out[rows]
        if n_pairs:
            _trig.cos_sin(P[:, :n_pairs], scale, block[:, : 2 * n_pairs])
        if offset is not None:
            _trig.cos_phase(P[:, n_pairs:], offset, scale, block[:, 2 * n_pairs :])
    return out
