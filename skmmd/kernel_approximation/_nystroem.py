"""Nystroem feature map (Williams & Seeger 2001) with dtype-aware eigenvalue
truncation, k-means and ridge-leverage landmarks, and structured inputs."""

from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.utils import check_array, check_random_state, gen_batches
from sklearn.utils.validation import check_is_fitted

from .._utils import _array_api, _budgets
from .._utils._compat import Interval, StrOptions, fit_context, validate_data
from ._base import FLOAT_DTYPES, BaseSampler
from ._landmarks import (
    _STRATEGIES,
    _int32_indices,
    _n_items,
    _numpy_dtype,
    _precomputed_landmark_indices,
    _select_landmarks,
    _take,
)
from ._nystroem_kernel import (
    _BANDWIDTH_KERNELS,
    _CONVENTIONS,
    _SKLEARN_KERNELS,
    _NystroemKernelMixin,
    is_vector_data,
)


class NystroemSampler(_NystroemKernelMixin, BaseSampler):
    """Nystroem feature map ``k(x, S) K_SS^{-1/2}`` from a set of landmarks S.

    Approximates any positive semi-definite kernel with an explicit map whose
    Gram matrix is ``K_XS K_SS^+ K_SX``. Eigenvalues of ``K_SS`` below a
    dtype-aware cutoff are dropped (not floored), so the map stays accurate in
    float32, and duplicated landmarks cost nothing but a smaller output.

    Parameters
    ----------
    kernel : str or callable, default="gaussian"
        ``"gaussian"`` (``exp(-||x-y||^2 / (2 bandwidth^2))``) or
        ``"laplacian"`` (``exp(-||x-y||_1 / bandwidth)``); the name of a
        scikit-learn pairwise kernel (``"rbf"``, ``"poly"``, ``"chi2"``, ...)
        with its parameters in ``kernel_params``; ``"precomputed"``; or a
        callable in the convention set by ``kernel_convention``. With a
        callable, X may be any sequence of objects (graphs, strings): only
        ``k(X, S)`` and ``k(S, S)`` are evaluated.

        ``"precomputed"``: ``fit`` takes the square kernel matrix
        ``K(X_fit, X_fit)`` and chooses landmarks among its rows (all of them
        when ``n_components >= n``: pass ``K(S, S)`` for landmarks S of your
        choice); ``transform`` takes ``K(X, S)``, of shape (n_samples,
        n_landmarks) with the landmarks in the order of
        ``component_indices_`` (increasing), or ``K(X, X_fit)``, of shape
        (n_samples, n), whose landmark columns are used.
    kernel_convention : {"matrix", "pairwise"}, default="matrix"
        How a callable kernel is called. ``"matrix"``: ``kernel(A, B,
        **kernel_params)`` on two sequences of items returns their
        ``(len(A), len(B))`` kernel matrix (fast: one call per pair of
        sequences).
        ``"pairwise"``: scikit-learn's convention, ``kernel(x, y,
        **kernel_params) -> float`` on two rows (or items), called once per
        pair (for vector data through
        :func:`sklearn.metrics.pairwise_kernels`). Ignored unless ``kernel``
        is callable.
    bandwidth : "median" or float, default="median"
        Bandwidth of ``"gaussian"``/``"laplacian"``; ``"median"`` uses the
        median pairwise distance (L1 for the Laplacian kernel) of a subsample
        of the data passed to ``fit``. Other kernels take their parameters
        from ``kernel_params`` and reject a numeric bandwidth.
    n_components : int, default=256
        Number of landmarks ``s`` (capped at ``n_samples``). The output
        dimension is the number of eigenvalues of ``K_SS`` kept, at most
        ``s``. Ignored when ``landmarks`` is an array.
    landmarks : {"uniform", "kmeans", "leverage"} or array-like, default="uniform"
        ``"uniform"``: ``s`` training points drawn without replacement.
        ``"kmeans"``: centers of k-means with k-means++ seeding and a few
        Lloyd iterations (vector data only). ``"leverage"``: training points
        drawn by ridge leverage scores with the recursive algorithm of Musco
        & Musco (2017). An array (or, with a callable kernel, a sequence of
        objects): these landmarks.
    kernel_params : dict, default=None
        Extra keyword arguments of a scikit-learn kernel (e.g. ``gamma``,
        ``degree``, ``coef0``) or of a callable kernel.
    rtol : float, default=None
        Eigenvalues of ``K_SS`` at most ``rtol * lambda_max`` are dropped.
        ``None`` means ``max(s * eps64, eps / s)``, with ``eps`` the machine
        epsilon of the dtype of the data passed to ``fit``: the float64
        eigensolver's accuracy (as ``scipy.linalg.pinvh``) for float64 data,
        the transform's round-off limit for float32 (see Notes).
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the choice of landmarks
        and the subsample of the median heuristic. Pass an int for
        reproducible output across multiple function calls.

    Attributes
    ----------
    components_ : ndarray or sparse matrix of shape (n_landmarks, n_features), or list
        The landmarks S, in the dtype of the training data (a list of
        objects for sequence input). With ``kernel="precomputed"``: the rows
        ``K(S, X_fit)`` of the fitted kernel matrix, as scikit-learn's
        ``Nystroem`` stores them.
    component_indices_ : ndarray of shape (n_landmarks,) or None
        Indices of the landmarks in the training data (increasing with
        ``kernel="precomputed"``); None for ``"kmeans"`` and user-given
        landmarks.
    normalization_ : ndarray of shape (n_landmarks, n_output)
        ``V diag(w)^{-1/2}`` over the kept eigenpairs ``(w, V)`` of ``K_SS``,
        float64 (cast to the input dtype at transform time).
    eigenvalues_ : ndarray of shape (n_output,)
        The kept eigenvalues of ``K_SS``, decreasing.
    bandwidth_ : float or None
        Bandwidth used by ``"gaussian"``/``"laplacian"``; None for other
        kernels.
    n_features_in_ : int
        Number of features seen during ``fit`` (vector data only).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    RandomFourierSampler : Data-independent random features.
    sklearn.kernel_approximation.Nystroem : Floors small eigenvalues at 1e-12,
        which amplifies float32 round-off.

    Notes
    -----
    With ``K_SS = V diag(w) V^T`` and ``r`` kept eigenvalues, the map is
    ``z(x) = k(x, S) V_r diag(w_r)^{-1/2}`` and ``z(x)^T z(y) =
    k(x, S) K_SS^+ k(S, y)`` with the truncated pseudo-inverse. With ``s =
    n`` the map reproduces the Gram matrix of the training set up to the
    dropped eigenvalues.

    ``K_SS`` and its eigendecomposition are always computed in float64,
    ``k(X, S)`` and its product with the normalization in the input dtype.
    That product rounds component i with an error about ``eps k / sqrt(w_i)``
    (``k`` the typical kernel value), whose square adds up over components;
    flooring tiny ``w_i`` (scikit-learn floors at 1e-12) lets it dominate in
    float32. Dropping ``w_i <= (eps / s) lambda_max`` keeps the total below
    about ``eps lambda_max`` while truncating as little as possible (the
    benchmarks page compares the float32 Gram error with scikit-learn's).

    References
    ----------
    .. [1] C. Williams and M. Seeger. Using the Nystroem method to speed up
       kernel machines. NIPS 2001.
    .. [2] K. Zhang, I. Tsang and J. Kwok. Improved Nystroem low-rank
       approximation and error analysis. ICML 2008.
    .. [3] C. Musco and C. Musco. Recursive sampling for the Nystroem method.
       NeurIPS 2017.
    .. [4] A. Gittens and M. Mahoney. Revisiting the Nystroem method for
       improved large-scale machine learning. JMLR 17, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import NystroemSampler
    >>> from skmmd.kernels import gaussian_kernel
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> nys = NystroemSampler(bandwidth=2.0, n_components=50, random_state=0)
    >>> Z = nys.fit_transform(X)
    >>> Z.shape[1] <= 50
    True
    >>> bool(np.abs(Z @ Z.T - gaussian_kernel(X, bandwidth=2.0)).mean() < 1e-3)
    True
    """

    _parameter_constraints: dict = {
        "kernel": [
            StrOptions(
                set(_BANDWIDTH_KERNELS) | set(_SKLEARN_KERNELS) | {"precomputed"}
            ),
            callable,
        ],
        "kernel_convention": [StrOptions(set(_CONVENTIONS))],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "landmarks": [StrOptions(set(_STRATEGIES)), "array-like", "sparse matrix"],
        "kernel_params": [dict, None],
        "rtol": [Interval(Real, 0, 1, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        kernel="gaussian",
        kernel_convention="matrix",
        bandwidth="median",
        n_components=256,
        landmarks="uniform",
        kernel_params=None,
        rtol=None,
        random_state=None,
    ):
        self.kernel = kernel
        self.kernel_convention = kernel_convention
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.landmarks = landmarks
        self.kernel_params = kernel_params
        self.rtol = rtol
        self.random_state = random_state

    @property
    def landmarks_(self):
        """The landmarks S (alias of ``components_``)."""
        return self.components_

    @property
    def _bandwidth_metric(self):
        return "manhattan" if self.kernel == "laplacian" else "euclidean"

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the landmarks and compute the normalization ``K_SS^{-1/2}``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or sequence
            Training data; with a callable kernel, any sequence of objects;
            with ``kernel="precomputed"``, the kernel matrix of shape
            (n_samples, n_samples).
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted sampler.
        """
        self._check_kernel_options()
        xp, device = _array_api.namespace(X)
        if self.kernel == "precomputed":
            return self._fit_precomputed(X)
        self._vector_input = not callable(self.kernel) or is_vector_data(X)
        if self._vector_input:
            X = _int32_indices(self._validate_fit_data(X))
            dtype = _numpy_dtype(X.dtype)
        else:
            if _n_items(X) < 1:
                raise ValueError(
                    "X must contain at least one item; got an empty sequence."
                )
            dtype = np.dtype(np.float64)
        rng = check_random_state(self.random_state)
        self.bandwidth_ = (
            self._resolve_bandwidth(X, rng)
            if self.kernel in _BANDWIDTH_KERNELS
            else None
        )
        S, self.component_indices_ = _select_landmarks(self, X, self._vector_input, rng)
        self.components_ = S
        if xp is not None:
            S64 = _array_api.astype(S, xp.float64, xp)
            K = _array_api.to_numpy(self._kernel(S64, S64), xp)
        else:
            S64 = S.astype(np.float64) if self._vector_input else S
            K = self._kernel(S64, S64)
        self._set_normalization(K, dtype, _n_items(S))
        return self

    def _set_normalization(self, K, dtype, s):
        """``eigenvalues_`` and ``normalization_`` from ``K_SS`` (on the host)."""
        K = K.astype(np.float64, copy=False)
        w, V = scipy.linalg.eigh((K + K.T) / 2.0)
        w, V = w[::-1], V[:, ::-1]
        # Deterministic signs (largest entry positive): round-off-level
        # differences (dense vs sparse input) then give the same features.
        V *= np.sign(V[np.abs(V).argmax(axis=0), np.arange(V.shape[1])])
        rtol = _default_rtol(s, dtype) if self.rtol is None else self.rtol
        keep = w > max(rtol * w[0], 0.0)
        if not keep.any():
            raise ValueError(
                "The kernel matrix of the landmarks has no positive eigenvalue: "
                "the kernel is zero on them, so there is no feature map."
            )
        self.eigenvalues_ = w[keep]
        self.normalization_ = V[:, keep] / np.sqrt(w[keep])

    def _fit_precomputed(self, X):
        """``fit`` on the square kernel matrix ``K(X_fit, X_fit)``."""
        self._vector_input = True
        # n_features_in_ is set to n, the columns of K(X, X_fit).
        K = validate_data(self, X, dtype=FLOAT_DTYPES)
        n = K.shape[0]
        if K.shape[1] != n:
            raise ValueError(
                "With kernel='precomputed', X must be the square kernel matrix "
                f"K(X_fit, X_fit) of shape (n, n); got shape {K.shape}."
            )
        if not isinstance(self.landmarks, str) or self.landmarks == "kmeans":
            raise ValueError(
                "With kernel='precomputed' the landmarks are rows of the kernel "
                "matrix: landmarks must be 'uniform' or 'leverage' (pass K(S, S) "
                f"to choose them yourself); got landmarks={self.landmarks!r}."
            )
        rng = check_random_state(self.random_state)
        self.bandwidth_ = None
        s = min(self.n_components, n)
        indices = _precomputed_landmark_indices(K, self.landmarks, s, rng)
        self.component_indices_ = indices
        self.components_ = K[indices]
        self._set_normalization(K[np.ix_(indices, indices)], K.dtype, s)
        return self

    def _precomputed_transform_data(self, X):
        """``K(X, S)`` from ``K(X, S)`` or ``K(X, X_fit)``."""
        check_is_fitted(self)
        K = check_array(X, dtype=FLOAT_DTYPES)
        n, s = self.n_features_in_, len(self.component_indices_)
        if K.shape[1] == n:
            return K if s == n else K[:, self.component_indices_]
        if K.shape[1] == s:
            return K
        raise ValueError(
            "With kernel='precomputed', transform takes K(X, S), of shape "
            f"(n_samples, {s}) (the landmarks in the order of component_indices_), "
            f"or K(X, X_fit), of shape (n_samples, {n}); got shape {K.shape}."
        )

    def transform(self, X):
        """Apply the Nystroem feature map to X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or sequence
            Data, of the kind passed to ``fit``; with ``kernel="precomputed"``,
            ``K(X, S)`` or ``K(X, X_fit)`` (see ``kernel``).

        Returns
        -------
        Z : ndarray of shape (n_samples, n_output)
            Features, in X's dtype (float64 for sequence input).
        """
        check_is_fitted(self)
        if self.kernel == "precomputed":
            K = self._precomputed_transform_data(X)
            return K @ self.normalization_.astype(K.dtype, copy=False)
        if self._vector_input:
            X = _int32_indices(self._validate_transform_data(X))
            dtype = X.dtype
            S = self.components_.astype(dtype, copy=False)
        else:
            dtype = np.dtype(np.float64)
            S = self.components_
        normalization = self.normalization_.astype(dtype, copy=False)
        n = _n_items(X)
        Z = np.empty((n, normalization.shape[1]), dtype=dtype)
        block = max(1, _budgets.MAP_CHUNK_ENTRIES // _n_items(S))
        for rows in gen_batches(n, block):
            X_block = (
                X[rows]
                if self._vector_input
                else _take(X, range(rows.start, rows.stop))
            )
            np.matmul(self._kernel(X_block, S), normalization, out=Z[rows])
        return Z

    # Array-API inputs (see skmmd._utils._array_api): ``K(S, S)`` is decomposed on
    # the host, the rest stays on X's device.
    ARRAY_API_ATTRIBUTES = (
        "normalization_",
        "eigenvalues_",
        "components_",
        "component_indices_",
    )

    def _array_api_unsupported(self):
        if callable(self.kernel) or self.kernel == "precomputed":
            return (
                "NystroemSampler takes array-API inputs with vector kernels only, "
                f"not with kernel={self.kernel!r}"
            )
        return super()._array_api_unsupported()

    def _transform_array_api(self, X, xp, device):
        X = self._validate_transform_data(X)
        S = _array_api.astype(self.components_, X.dtype, xp)
        normalization = _array_api.astype(self.normalization_, X.dtype, xp)
        n = X.shape[0]
        Z = xp.empty((n, normalization.shape[1]), dtype=X.dtype, device=device)
        block = max(1, _budgets.MAP_CHUNK_ENTRIES // S.shape[0])
        for lo in range(0, n, block):
            rows = slice(lo, min(lo + block, n))
            Z[rows, :] = self._kernel(X[rows, :], S) @ normalization
        return Z

    @property
    def _n_features_out(self):
        return self.normalization_.shape[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A precomputed kernel matrix is split on both axes by cross-validation.
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


def _default_rtol(s, dtype):
    """Relative eigenvalue cutoff: the larger of the float64 eigensolver's
    accuracy (``s eps64``, scipy's ``pinvh``) and the transform's round-off
    limit ``eps(dtype) / s`` (see the Notes of NystroemSampler)."""
    return max(s * np.finfo(np.float64).eps, np.finfo(dtype).eps / s)
