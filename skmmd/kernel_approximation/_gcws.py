"""Generalized consistent weighted sampling (GCWS): random features for the
generalized min-max (GMM) kernel (Li 2017)."""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._compat import Interval, StrOptions, fit_context
from ._base import BaseSampler

# Bytes per tabulated (index, sample) pair: r, ln c, beta in float64.
_TABLE_ENTRY_BYTES = 3 * 8


def _to_sorted_csr(X):
    """CSR with sorted, summed indices (so nonzeros are visited in index order)."""
    if sp.issparse(X):
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()  # also sorts the indices
        return X
    return sp.csr_matrix(X)


def _kernels():
    """The compiled sampling loops (``_gcws_numba``), imported at first use
    with numba: its intrinsics need numba at import."""
    from . import _gcws_numba

    return _gcws_numba


class GCWSSampler(BaseSampler):
    """Generalized consistent weighted sampling for the GMM kernel.

    Maps X to a sparse one-hot matrix whose row inner products are the
    fraction of ``n_components`` hash codes two rows share; its expectation is
    an affine function of the generalized min-max kernel
    ``GMM(u, v) = sum min(u~, v~) / sum max(u~, v~)`` (see
    :func:`skmmd.kernels.gmm_kernel`), so a linear model on the output
    approximates a GMM-kernel machine. The kernel has no parameter to tune.

    Parameters
    ----------
    n_components : int, default=256
        Number of independent samples ``k`` (nonzeros per output row).
    n_bits : int, default=8
        Bits ``b`` kept of each sample's code; the output has
        ``n_components * 2**n_bits`` columns.
    include_t : bool, default=True
        Hash the full ICWS sample ``(i*, t*)``, whose collision probability
        is exactly GMM. ``False`` hashes ``i*`` only, Li's "0-bit" GCWS,
        whose collision probability is slightly above GMM when rows have few
        nonzeros.
    zero_row : {"zeros", "error"}, default="zeros"
        What an all-zero input row gives (it has no sample): an all-zero
        output row (and code -1 in :meth:`hash_codes`), or a ValueError.
    max_table_bytes : int, default=2**26
        Memory cap of the table of per-(index, sample) random values built in
        ``fit`` (24 bytes each). Sign-split indices ``2 * feature`` and
        ``2 * feature + 1`` below ``max_table_bytes / (24 n_components)`` read
        the table; the others compute the same values from hashes on the fly,
        so the codes do not depend on this parameter, only the speed does
        (reading a value is faster than hashing it). The table is kept
        with the fitted sampler (and pickled with it); 0 disables it.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the seed of the hash
        functions. Pass an int for reproducible output across multiple
        function calls.

    Attributes
    ----------
    seed_ : int
        The 64-bit seed of every random number (drawn from ``random_state``).
    n_table_indices_ : int
        Number of sign-split indices whose random values are tabulated.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    skmmd.kernels.gmm_kernel : The exact kernel.
    NormalizedRandomFourierSampler : The paper's competitor for the RBF kernel.

    Notes
    -----
    Each row u is sign-split into ``u~ = [max(u, 0), max(-u, 0)]``, then
    Ioffe's ICWS draws, for sample j and nonzero index i,
    ``r, c ~ Gamma(2, 1)``, ``beta ~ U(0, 1)`` (pure functions of the seed,
    i and j), ``t_i = floor(ln u~_i / r + beta)``,
    ``ln a_i = ln c - r (t_i + 1 - beta)`` and keeps ``(i*, t*)`` of the
    smallest ``ln a_i``: ``P[(i*, t*)(u) = (i*, t*)(v)] = GMM(u, v)``. Code j
    is a hash of ``(i*, t*)`` that is fresh for every j (a hash shared by all
    j, or the raw low bits of i*, make the collision rate depend on the
    data), reduced to ``b`` bits, so two rows share code j with probability
    ``P_b = G + (1 - G) 2^-b`` and :meth:`estimate_kernel` inverts that.
    Output values are ``1 / sqrt(k)`` at column ``j 2^b + code_j``, float64
    whatever the input dtype (the values are exact fractions, which float32
    would round). Cost: ``O(k nnz)`` per row; only nonzeros are visited, any
    ``n_features`` works for sparse input. Codes are identical for float32
    and float64 inputs of equal values, for dense and sparse layouts, and for
    any row order or batch.

    An all-zero row has no sample: its output row is 0, so its inner product
    with itself is 0 (not ``GMM(0, 0) = 1``); with any other row it is
    ``0 = GMM(0, v)``.

    References
    ----------
    .. [1] P. Li. Linearized GMM kernels and normalized random Fourier
       features. KDD 2017.
    .. [2] S. Ioffe. Improved consistent weighted sampling, weighted minhash
       and L1 sketching. ICDM 2010.
    .. [3] P. Li, A. Shrivastava, J. Moore and A. C. Koenig. Hashing
       algorithms for large-scale learning. NIPS 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import GCWSSampler
    >>> from skmmd.kernels import gmm_kernel
    >>> X = np.random.default_rng(0).normal(size=(20, 5))
    >>> gcws = GCWSSampler(n_components=4096, random_state=0).fit(X)
    >>> Xt = gcws.transform(X)
    >>> Xt.shape, Xt.nnz
    ((20, 1048576), 81920)
    >>> bool(np.abs(gcws.estimate_kernel(Xt) - gmm_kernel(X)).max() < 0.1)
    True
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_bits": [Interval(Integral, 1, 24, closed="both")],
        "include_t": ["boolean"],
        "zero_row": [StrOptions({"zeros", "error"})],
        "max_table_bytes": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_components=256,
        n_bits=8,
        include_t=True,
        zero_row="zeros",
        max_table_bytes=2**26,
        random_state=None,
    ):
        self.n_components = n_components
        self.n_bits = n_bits
        self.include_t = include_t
        self.zero_row = zero_row
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the seed and tabulate the random values for X's features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; only its number of features is used.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted sampler.
        """
        X = self._validate_fit_data(X)
        rng = check_random_state(self.random_state)
        self.seed_ = int(rng.randint(0, 2**32, dtype=np.uint64)) << 32 | int(
            rng.randint(0, 2**32, dtype=np.uint64)
        )
        k = self.n_components
        n_index = min(2 * X.shape[1], self.max_table_bytes // (_TABLE_ENTRY_BYTES * k))
        self.n_table_indices_ = int(n_index)
        self._table = np.empty((3, n_index, k))
        _kernels().sample_table(self._streams(), n_index, k, self._table)
        return self

    def _streams(self):
        return _kernels().stream_keys(np.uint64(self.seed_))

    def _sample(self, X, raw):
        """Codes (n, k), and the raw (i*, t*) when ``raw``, of validated X."""
        X = _to_sorted_csr(X)
        n, k = X.shape[0], self.n_components
        codes = np.empty((n, k), dtype=np.int64)
        shape = (n, k) if raw else (0, 0)
        raw_i = np.empty(shape, dtype=np.int64)
        raw_t = np.empty(shape, dtype=np.int64)
        _kernels().gcws_csr(
            X.indptr,
            X.indices,
            X.data,
            self._streams(),
            self._table,
            k,
            self.n_bits,
            self.include_t,
            codes,
            raw_i,
            raw_t,
        )
        if self.zero_row == "error":
            zero = np.flatnonzero(codes[:, 0] < 0)
            if len(zero):
                raise ValueError(
                    f"X has {len(zero)} all-zero row(s) (first: row {zero[0]}), "
                    "which have no GCWS sample; remove them or set "
                    "zero_row='zeros' to map them to all-zero features."
                )
        return codes, raw_i, raw_t

    def hash_codes(self, X, *, raw=False):
        """Integer codes of X's rows, for hash tables and near-neighbor search.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data, dense or sparse.
        raw : bool, default=False
            Return the ICWS samples ``(i*, t*)`` instead of the b-bit codes.

        Returns
        -------
        codes : ndarray of shape (n_samples, n_components), int64
            The b-bit code of each sample, in ``[0, 2**n_bits)``; -1 on
            all-zero rows. Returned when ``raw=False``.
        i_star, t_star : ndarrays of shape (n_samples, n_components), int64
            Sign-split index ``i*`` (``2 * feature``, plus 1 for a negative
            entry; -1 on all-zero rows) and ``t*`` (0 on all-zero rows).
            Returned when ``raw=True``.
        """
        X = self._validate_transform_data(X)
        codes, raw_i, raw_t = self._sample(X, raw)
        return (raw_i, raw_t) if raw else codes

    def transform(self, X):
        """One-hot encode X's GCWS codes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data, dense or sparse.

        Returns
        -------
        Xt : sparse matrix of shape (n_samples, n_components * 2**n_bits)
            CSR, float64, ``n_components`` entries ``1 / sqrt(n_components)``
            per row (none for an all-zero row).
        """
        X = self._validate_transform_data(X)
        codes, _, _ = self._sample(X, raw=False)
        n, k = codes.shape
        n_out = self._n_features_out
        index_dtype = np.int32 if n_out <= np.iinfo(np.int32).max else np.int64
        present = codes[:, 0] >= 0
        columns = codes[present] + (np.arange(k, dtype=np.int64) << self.n_bits)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.where(present, k, 0), out=indptr[1:])
        if indptr[-1] <= np.iinfo(np.int32).max:
            indptr = indptr.astype(index_dtype)
        data = np.full(columns.size, 1.0 / np.sqrt(k))
        return sp.csr_matrix(
            (data, columns.ravel().astype(index_dtype), indptr), shape=(n, n_out)
        )

    def estimate_kernel(self, Xt, Yt=None):
        """Bias-corrected GMM kernel estimate from transformed data.

        Parameters
        ----------
        Xt : {array-like, sparse matrix} of shape (n_samples_X, n_out)
            Output of :meth:`transform` (``n_out = n_components * 2**n_bits``).
        Yt : {array-like, sparse matrix} of shape (n_samples_Y, n_out), default=None
            Output of :meth:`transform`; ``None`` means ``Yt = Xt``.

        Returns
        -------
        K : ndarray of shape (n_samples_X, n_samples_Y)
            ``(P - 2^-b) / (1 - 2^-b)`` with ``P = Xt Yt^T`` the fraction of
            shared codes: unbiased for GMM when ``include_t=True``, with
            variance ``P_b (1 - P_b) / (k (1 - 2^-b)^2)``. Entries involving
            an all-zero row are 0, so the diagonal of such a row is 0.
        """
        check_is_fitted(self)
        Xt = self._check_transformed(Xt, "Xt")
        Yt = Xt if Yt is None else self._check_transformed(Yt, "Yt")
        P = _inner_products(Xt, Yt)
        collide = 2.0**-self.n_bits
        K = (P - collide) / (1.0 - collide)
        K[_is_zero_row(Xt)] = 0.0
        K[:, _is_zero_row(Yt)] = 0.0
        return K

    def _check_transformed(self, Xt, name):
        if not sp.issparse(Xt):
            Xt = np.asarray(Xt, dtype=np.float64)
        if Xt.ndim != 2 or Xt.shape[1] != self._n_features_out:
            raise ValueError(
                f"{name} must be the output of transform, with "
                f"n_components * 2**n_bits = {self._n_features_out} columns; got "
                f"shape {Xt.shape}."
            )
        return Xt

    @property
    def _n_features_out(self):
        return self.n_components << self.n_bits

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # The output is CSR float64 for either input dtype (see Notes).
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


def _inner_products(Xt, Yt):
    """Dense ``Xt @ Yt.T``; sparse inputs on their used columns only, since
    transposing a CSR matrix allocates one pointer per column (2**32 with
    ``n_bits=24``)."""
    if sp.issparse(Xt) and sp.issparse(Yt):
        Xt, Yt = Xt.tocsr(), Yt.tocsr()
        used, columns = np.unique(
            np.concatenate([Xt.indices, Yt.indices]), return_inverse=True
        )
        Xt, Yt = (
            sp.csr_matrix((A.data, cols, A.indptr), shape=(A.shape[0], used.size))
            for A, cols in ((Xt, columns[: Xt.nnz]), (Yt, columns[Xt.nnz :]))
        )
    P = Xt @ Yt.T
    return P.toarray() if sp.issparse(P) else np.asarray(P)


def _is_zero_row(Xt):
    if sp.issparse(Xt):
        return np.diff(Xt.tocsr().indptr) == 0
    return ~Xt.any(axis=1)
