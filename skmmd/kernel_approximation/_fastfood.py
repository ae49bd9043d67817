"""Fastfood (Le, Sarlos & Smola 2013): Gaussian random Fourier features in
O(n_components log d) time per sample through Walsh-Hadamard transforms."""

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state, gen_batches

from .._utils import _budgets
from .._utils._compat import Interval, StrOptions, fit_context
from .._utils._jit import njit, num_threads, prange
from ._base import (
    BaseSampler,
    FusedSums,
    n_frequencies,
    random_phases,
    trig_features,
)
from ._grouped import sampler_group_sums
from ._hadamard import fwht_row


@njit(parallel=True, cache=True)
def _fastfood_project(X, signs, permutation, gaussian, scaling, out, n_chunks):
    """``out[i] = (V x_i)[:L]`` for every row, V stacked from the Fastfood blocks.

    Each (row, block) pair runs in two length-d buffers that stay in cache:
    B x (zero padded), H, Pi, G, H, S (with the 1 / (bandwidth sqrt(d)) folded
    into ``scaling``). Rows go in ``n_chunks`` parallel chunks, one pair of
    buffers each.
    """
    n, d0 = X.shape
    n_blocks, d = signs.shape
    L = out.shape[1]
    for c in prange(n_chunks):
        buf = np.empty(d, dtype=X.dtype)
        tmp = np.empty(d, dtype=X.dtype)
        for i in range(c * n // n_chunks, (c + 1) * n // n_chunks):
            for b in range(n_blocks):
                for j in range(d0):
                    buf[j] = X[i, j] * signs[b, j]
                buf[d0:] = 0
                fwht_row(buf)
                for j in range(d):
                    tmp[j] = buf[permutation[b, j]] * gaussian[b, j]
                fwht_row(tmp)
                lo = b * d
                for j in range(min(d, L - lo)):
                    out[i, lo + j] = tmp[j] * scaling[b, j]


class FastfoodSampler(FusedSums, BaseSampler):
    """Fastfood random features for the Gaussian kernel.

    The Gaussian random Fourier map of :class:`RandomFourierSampler` with the
    dense frequency matrix replaced by products of diagonal, permutation and
    Walsh-Hadamard matrices: ``O(n_components log d)`` time per sample instead
    of ``O(n_components d)``, and ``O(n_components)`` memory for the map.

    Parameters
    ----------
    bandwidth : "median" or float, default="median"
        Bandwidth ``sigma`` of the kernel ``exp(-||x-y||^2 / (2 sigma^2))``.
        ``"median"`` uses the median pairwise Euclidean distance of (a
        subsample of 1000 points of) the data passed to ``fit``. The value used
        is stored in ``bandwidth_``.
    n_components : int, default=1024
        Output dimension. With ``feature="cos_sin"`` there are
        ``n_components // 2`` frequencies, each giving a cosine and a sine (an
        odd ``n_components`` adds one random-phase column, keeping the
        estimate unbiased).
    feature : {"cos_sin", "cos_phase"}, default="cos_sin"
        ``"cos_sin"``: ``z(x) = L^{-1/2} [cos(Vx), sin(Vx)]``, lower variance and
        ``||z(x)|| = 1`` exactly. ``"cos_phase"``:
        ``z(x) = sqrt(2/D) cos(Vx + b)``, the map of scikit-learn's
        ``RBFSampler``.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the generation of the random
        signs, permutations, Gaussian and chi diagonals and phases, and the
        subsample of the median heuristic. Pass an int for reproducible output
        across multiple function calls.

    Attributes
    ----------
    bandwidth_ : float
        The bandwidth used.
    n_features_padded_ : int
        ``d``: the number of input features rounded up to a power of two.
    random_signs_ : ndarray of shape (n_blocks, d)
        Diagonals ``B`` of random signs, one row per ``d x d`` block
        (``n_blocks = ceil(L / d)``, ``L`` the number of frequencies).
    random_permutation_ : ndarray of shape (n_blocks, d)
        Permutations ``Pi``: ``(Pi v)_j = v[random_permutation_[b, j]]``.
    random_gaussian_ : ndarray of shape (n_blocks, d)
        Diagonals ``G`` of i.i.d. standard normal values.
    random_scaling_ : ndarray of shape (n_blocks, d)
        Diagonals ``S`` times ``1 / (bandwidth_ sqrt(d))``:
        ``r_i / (||G_b|| bandwidth_ sqrt(d))`` with ``r_i ~ chi_d``.
    random_offset_ : ndarray of shape (n_phases,) or None
        Phases ``b`` of the random-phase columns: all ``n_components`` of them
        for ``feature="cos_phase"``, the extra one for ``"cos_sin"`` with odd
        ``n_components``, else None.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    RandomFourierSampler : The same map with a dense Gaussian frequency matrix.
    sklearn.kernel_approximation.RBFSampler : The ``cos_phase`` map, dense.

    Notes
    -----
    The input is zero-padded to ``d = 2^ceil(log2 d0)`` features. Each block of
    ``d`` frequencies is

    .. math:: V = \\frac{1}{\\sigma \\sqrt{d}} S H G \\Pi H B,

    ``H`` the unnormalized ``d x d`` Hadamard matrix; blocks are stacked and the
    first ``L`` rows kept. Row ``j`` of ``H G Pi H B`` is a combination of the
    orthogonal rows of ``H B`` with i.i.d. normal weights, hence
    ``N(0, d I_d)``, with norm ``sqrt(d) ||G||``; ``S`` replaces that norm by
    an independent ``chi_d`` draw, so every row of ``V`` is exactly
    ``N(0, sigma^-2 I_d)`` and ``E[z(x)^T z(y)]`` is the Gaussian kernel. Rows
    of one block are dependent (not independent as in
    :class:`RandomFourierSampler`); the variance of the Gram estimate is that
    of i.i.d. features up to ``O(1/d)`` terms ([1]_, Theorem 7). ``transform``
    costs ``O(n (n_blocks d log d + n_components))``.

    References
    ----------
    .. [1] Q. Le, T. Sarlos and A. Smola. Fastfood - approximating kernel
       expansions in loglinear time. ICML 2013.
    .. [2] J. Zhao and D. Meng. FastMMD: ensemble of circular discrepancy for
       efficient two-sample test. Neural Computation 27(6), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import FastfoodSampler
    >>> from skmmd.kernels import gaussian_kernel
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> ff = FastfoodSampler(bandwidth=2.0, n_components=4096, random_state=0)
    >>> Z = ff.fit_transform(X)
    >>> Z.shape
    (50, 4096)
    >>> bool(np.abs(Z @ Z.T - gaussian_kernel(X, bandwidth=2.0)).max() < 0.1)
    True
    """

    _parameter_constraints: dict = {
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "feature": [StrOptions({"cos_sin", "cos_phase"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        bandwidth="median",
        n_components=1024,
        feature="cos_sin",
        random_state=None,
    ):
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.feature = feature
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the Fastfood blocks (and resolve the bandwidth) for X's shape.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; only its number of features matters unless
            ``bandwidth="median"``.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted sampler.
        """
        X = self._validate_fit_data(X)
        rng = check_random_state(self.random_state)
        n_freq = self._n_frequencies
        d = 1 << (X.shape[1] - 1).bit_length()  # next power of two, 1 for d0 = 1
        n_blocks = -(-n_freq // d)
        # All draws before the median subsample, for unit bandwidth, so a fixed
        # seed gives the same directions whatever the bandwidth (as RFF).
        signs = rng.choice([-1.0, 1.0], size=(n_blocks, d))
        permutation = np.argsort(rng.random_sample((n_blocks, d)), axis=1)
        gaussian = rng.standard_normal(size=(n_blocks, d))
        chi = np.sqrt(rng.chisquare(d, size=(n_blocks, d)))
        self.random_offset_ = random_phases(rng, self.feature, self.n_components)
        self.bandwidth_ = self._resolve_bandwidth(X, rng)
        row_norms = np.linalg.norm(gaussian, axis=1, keepdims=True)
        self.n_features_padded_ = d
        self.random_signs_ = signs
        self.random_permutation_ = permutation
        self.random_gaussian_ = gaussian
        self.random_scaling_ = chi / (row_norms * self.bandwidth_ * np.sqrt(d))
        return self

    @property
    def _n_frequencies(self):
        return n_frequencies(self.feature, self.n_components)

    def _project(self, X):
        """``X V^T`` (first L frequencies), dense rows in bounded chunks."""
        dtype = X.dtype
        signs, gaussian, scaling = (
            np.ascontiguousarray(a, dtype=dtype)
            for a in (self.random_signs_, self.random_gaussian_, self.random_scaling_)
        )
        out = np.empty((X.shape[0], self._n_frequencies), dtype=dtype)
        # Sparse rows are densified a chunk at a time, never all at once.
        for rows in gen_batches(
            X.shape[0], max(1, _budgets.MAP_CHUNK_ENTRIES // X.shape[1])
        ):
            block = X[rows]
            block = block.toarray() if sparse.issparse(block) else block
            _fastfood_project(
                np.ascontiguousarray(block),
                signs,
                self.random_permutation_,
                gaussian,
                scaling,
                out[rows],
                min(block.shape[0], 4 * num_threads()),
            )
        return out

    def transform(self, X):
        """Apply the Fastfood feature map to X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data, dense or CSR.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Features, in X's dtype (float32 stays float32).
        """
        X = self._validate_transform_data(X)
        return trig_features(
            X,
            self._project,
            self.feature,
            self.n_components,
            offset=self.random_offset_,
        )

    def _sums_per_group(self, X, groups, n_groups, out=None):
        """``transform(X)`` summed per group, and the squared norms, projecting
        a bounded block of rows at a time (added into ``out = (S, q)`` when
        given; see :meth:`skmmd._inference._streaming.HostRows.grouped_sums`)."""
        X = self._validate_transform_data(X)
        return sampler_group_sums(self, X, groups, n_groups, out, project=self._project)

    @property
    def _n_features_out(self):
        return self.n_components
