"""Random Fourier features (Rahimi & Recht 2007) and normalized ones (Li 2017)."""

from numbers import Integral, Real

import numpy as np
from scipy import stats
from scipy.stats import qmc as scipy_qmc
from sklearn.utils import check_random_state
from sklearn.utils.extmath import safe_sparse_dot

from .._utils import _array_api, _budgets
from .._utils._compat import Interval, Options, StrOptions, fit_context
from .._utils._streams import draw_seed
from ._base import (
    BaseSampler,
    FusedSums,
    n_frequencies,
    random_phases,
    trig_features,
)
from ._grouped import sampler_group_sums

_RADIAL_KERNELS = ("gaussian", "matern")


def _spectral_radius_factor(kernel, nu, u):
    """Per-frequency factor turning a Gaussian draw into a Matern (Student-t) one.

    ``u`` are chi2(2 nu) draws, one per frequency; Gaussian needs none.
    """
    if kernel == "matern":
        return np.sqrt(2.0 * nu / u)
    return 1.0


def _iid_frequencies(kernel, nu, n_features, n_freq, rng):
    if kernel == "laplacian":
        return rng.standard_cauchy(size=(n_features, n_freq))
    W = rng.standard_normal(size=(n_features, n_freq))
    if kernel == "matern":
        W *= _spectral_radius_factor(kernel, nu, rng.chisquare(2.0 * nu, size=n_freq))
    return W


def _orthogonal_frequencies(kernel, nu, n_features, n_freq, rng):
    """Orthogonal random features (Yu et al. 2016): Haar-random orthonormal
    directions per d x d block, with norms drawn from the radial law."""
    d = n_features
    blocks = []
    for _ in range(-(-n_freq // d)):
        Q, R = np.linalg.qr(rng.standard_normal(size=(d, d)))
        Q *= np.sign(np.diag(R))  # makes Q Haar-distributed
        norms = np.sqrt(rng.chisquare(d, size=d))  # chi_d: norms of N(0, I_d)
        blocks.append(Q * norms)  # column j of Q scaled by norms[j]
    W = np.hstack(blocks)[:, :n_freq]
    if kernel == "matern":
        W *= _spectral_radius_factor(kernel, nu, rng.chisquare(2.0 * nu, size=n_freq))
    return W


def _qmc_frequencies(kernel, nu, n_features, n_freq, rng, sequence):
    """Quasi-Monte Carlo frequencies (Yang et al. 2014): a scrambled low
    discrepancy sequence through the inverse CDF of the spectral law."""
    dim = n_features + (kernel == "matern")
    seed = np.random.default_rng(draw_seed(rng))
    if sequence == "sobol":
        engine = scipy_qmc.Sobol(dim, scramble=True, rng=seed)
        # Sobol points are balanced in blocks of powers of two.
        U = engine.random_base2(int(np.ceil(np.log2(max(n_freq, 1)))))[:n_freq]
    else:
        U = scipy_qmc.Halton(dim, scramble=True, rng=seed).random(n_freq)
    tiny = np.finfo(np.float64).eps
    U = np.clip(U, tiny, 1.0 - tiny)
    if kernel == "laplacian":
        return stats.cauchy.ppf(U).T
    W = stats.norm.ppf(U[:, :n_features]).T
    if kernel == "matern":
        W *= _spectral_radius_factor(kernel, nu, stats.chi2.ppf(U[:, -1], 2.0 * nu))
    return W


class RandomFourierSampler(FusedSums, BaseSampler):
    """Random Fourier features for shift-invariant kernels.

    Maps X to ``z(X)`` with ``E[z(x)^T z(y)] = k(x - y)`` (Bochner's theorem),
    so a linear model or a linear-time MMD on ``z(X)`` approximates the kernel
    method.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        ``exp(-||x-y||^2 / (2 bandwidth^2))``, ``exp(-||x-y||_1 / bandwidth)``,
        or the Matern kernel with smoothness ``nu`` and length scale
        ``bandwidth``.
    bandwidth : "median" or float, default="median"
        Kernel bandwidth. ``"median"`` uses the median pairwise distance of (a
        subsample of 1000 points of) the data passed to ``fit`` (L1 distance for
        the Laplacian kernel). The value used is stored in ``bandwidth_``.
    n_components : int, default=1024
        Output dimension. With ``feature="cos_sin"`` there are
        ``n_components // 2`` frequencies, each giving a cosine and a sine (an
        odd ``n_components`` adds one random-phase column, keeping the
        estimate unbiased).
    feature : {"cos_sin", "cos_phase"}, default="cos_sin"
        ``"cos_sin"``: ``z(x) = L^{-1/2} [cos(Wx), sin(Wx)]``, lower variance and
        ``||z(x)|| = 1`` exactly. ``"cos_phase"``:
        ``z(x) = sqrt(2/D) cos(Wx + b)``, scikit-learn's ``RBFSampler`` map.
    orthogonal : bool, default=False
        Draw the frequencies as orthogonal random features (Gaussian and Matern
        kernels): lower variance at equal ``n_components``.
    qmc : {None, "sobol", "halton"}, default=None
        Draw the frequencies from a scrambled quasi-Monte Carlo sequence instead
        of i.i.d.; most useful in low dimension. Not combinable with
        ``orthogonal``.
    nu : {0.5, 1.5, 2.5}, default=1.5
        Smoothness of the Matern kernel; ignored by the other kernels.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the generation of the random
        frequencies and phases, and the subsample of the median heuristic.
        Pass an int for reproducible output across multiple function calls.

    Attributes
    ----------
    bandwidth_ : float
        The bandwidth used.
    random_weights_ : ndarray of shape (n_features, n_frequencies)
        Frequencies divided by ``bandwidth_`` (float64; cast to the input dtype
        at transform time, so one seed gives the same map in both dtypes).
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
    NormalizedRandomFourierSampler : Random Fourier features scaled to unit norm.
    FastfoodSampler : The same Gaussian map in O(n_components log d) time.
    sklearn.kernel_approximation.RBFSampler : The ``cos_phase`` map, Gaussian only.

    Notes
    -----
    Frequencies: Gaussian ``w ~ N(0, bandwidth^-2 I)``; Laplacian i.i.d.
    Cauchy(0, 1/bandwidth) coordinates; Matern multivariate Student-t with
    ``2 nu`` degrees of freedom. The variance of one Gram entry at distance
    ``delta`` is ``(1 + k(2 delta) - 2 k(delta)^2) / D`` for ``cos_sin`` and
    ``(1 + k(2 delta) / 2 - k(delta)^2) / D`` for ``cos_phase``.

    References
    ----------
    .. [1] A. Rahimi and B. Recht. Random features for large-scale kernel
       machines. NIPS 2007.
    .. [2] D. J. Sutherland and J. Schneider. On the error of random Fourier
       features. UAI 2015.
    .. [3] F. X. Yu et al. Orthogonal random features. NIPS 2016.
    .. [4] J. Yang et al. Quasi-Monte Carlo feature maps for shift-invariant
       kernels. ICML 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import RandomFourierSampler
    >>> from skmmd.kernels import gaussian_kernel
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> rff = RandomFourierSampler(bandwidth=2.0, n_components=4096, random_state=0)
    >>> Z = rff.fit_transform(X)
    >>> Z.shape
    (50, 4096)
    >>> bool(np.abs(Z @ Z.T - gaussian_kernel(X, bandwidth=2.0)).max() < 0.1)
    True
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"gaussian", "laplacian", "matern"})],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "feature": [StrOptions({"cos_sin", "cos_phase"})],
        "orthogonal": ["boolean"],
        "qmc": [None, StrOptions({"sobol", "halton"})],
        "nu": [Options(Real, {0.5, 1.5, 2.5})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        kernel="gaussian",
        bandwidth="median",
        n_components=1024,
        feature="cos_sin",
        orthogonal=False,
        qmc=None,
        nu=1.5,
        random_state=None,
    ):
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.feature = feature
        self.orthogonal = orthogonal
        self.qmc = qmc
        self.nu = nu
        self.random_state = random_state

    @property
    def _bandwidth_metric(self):
        return "manhattan" if self.kernel == "laplacian" else "euclidean"

    def _check_options(self):
        if self.orthogonal and self.qmc is not None:
            raise ValueError(
                "orthogonal=True and qmc are alternative ways to draw the "
                f"frequencies; set one of them (got qmc={self.qmc!r})."
            )
        if self.orthogonal and self.kernel not in _RADIAL_KERNELS:
            raise ValueError(
                "orthogonal=True needs a radial spectral law: kernel must be one of "
                f"{_RADIAL_KERNELS}; got kernel={self.kernel!r}."
            )

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the random frequencies (and resolve the bandwidth) for X's shape.

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
        self._check_options()
        X = self._validate_fit_data(X)
        rng = check_random_state(self.random_state)
        n_freq = self._n_frequencies
        d = X.shape[1]
        # Frequencies are drawn for unit bandwidth before the median subsample,
        # so a fixed seed gives the same directions whatever the bandwidth.
        if self.qmc is not None:
            W = _qmc_frequencies(self.kernel, self.nu, d, n_freq, rng, self.qmc)
        elif self.orthogonal:
            W = _orthogonal_frequencies(self.kernel, self.nu, d, n_freq, rng)
        else:
            W = _iid_frequencies(self.kernel, self.nu, d, n_freq, rng)
        self.random_offset_ = random_phases(rng, self.feature, self.n_components)
        self.bandwidth_ = self._resolve_bandwidth(X, rng)
        self.random_weights_ = W / self.bandwidth_
        return self

    @property
    def _n_frequencies(self):
        return n_frequencies(self.feature, self.n_components)

    def column_draws(self):
        """Label each output column with the independent draw behind it.

        The tests estimate how much a statistic varies over the draw of the
        random features from these groups (a jackknife over the draws).

        Returns
        -------
        draws : ndarray of shape (n_components,) or None
            The frequency of each column (its orthogonal block with
            ``orthogonal=True``); None for quasi-Monte Carlo frequencies,
            which are not independent.
        """
        if self.qmc is not None:
            return None
        n_pairs = self.n_components // 2 if self.feature == "cos_sin" else 0
        frequency = np.r_[np.arange(n_pairs), np.arange(self.n_components - n_pairs)]
        if self.orthogonal:
            return frequency // self.n_features_in_
        return frequency

    # Array-API inputs (see skmmd._utils._array_api): the draws move to X's device.
    ARRAY_API_ATTRIBUTES = ("random_weights_", "random_offset_")

    def _transform_array_api(self, X, xp, device):
        X = self._validate_transform_data(X)
        return _array_api.trig_features(
            X,
            _array_api.astype(self.random_weights_, X.dtype, xp),
            self.feature,
            self.n_components,
            self.random_offset_,
            xp,
            device,
            max(1, _budgets.MAP_CHUNK_ENTRIES // self.n_components),
        )

    def transform(self, X):
        """Apply the random feature map to X.

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
        W = self.random_weights_.astype(X.dtype, copy=False)
        return trig_features(
            X,
            lambda block: safe_sparse_dot(block, W),
            self.feature,
            self.n_components,
            offset=self.random_offset_,
            weights=W,
        )

    def transform_columns(self, X, columns):
        """Apply the random feature map to X, only the given output columns.

        ``transform(X)[:, columns]`` (to rounding), from the frequencies
        behind ``columns`` alone: ``O(n d k)`` for ``k`` columns where
        :meth:`transform` costs ``O(n d D)``. The tests' order check reads
        a sample of a wide map's columns this way.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data, dense or CSR.
        columns : array-like of int
            Output columns, in ``0 .. n_components - 1``.

        Returns
        -------
        Z : ndarray of shape (n_samples, len(columns))
            Those columns of the features, in X's dtype.

        Examples
        --------
        >>> import numpy as np
        >>> from skmmd import RandomFourierSampler
        >>> X = np.random.default_rng(0).normal(size=(20, 3))
        >>> rff = RandomFourierSampler(n_components=64, random_state=0).fit(X)
        >>> Z = rff.transform_columns(X, [0, 33, 63])
        >>> bool(np.allclose(Z, rff.transform(X)[:, [0, 33, 63]]))
        True
        """
        X = self._validate_transform_data(X)
        columns = np.asarray(columns, dtype=np.intp)
        n_pairs = self.n_components // 2 if self.feature == "cos_sin" else 0
        # Columns n_pairs .. 2 n_pairs - 1 are the sines of the first
        # frequencies; the random-phase columns after them take the rest.
        frequency = np.where(columns < n_pairs, columns, columns - n_pairs)
        # Each frequency projected once (a cos/sin pair's two columns share it).
        unique, at = np.unique(frequency, return_inverse=True)
        W = self.random_weights_.astype(X.dtype, copy=False)[:, unique]
        P = np.asarray(safe_sparse_dot(X, W), dtype=X.dtype)[:, at]
        phase = columns >= 2 * n_pairs
        if phase.any():
            offset = self.random_offset_[columns[phase] - 2 * n_pairs]
            P[:, phase] += offset.astype(X.dtype)
        sine = (columns >= n_pairs) & ~phase
        P[:, sine] = np.sin(P[:, sine])
        P[:, ~sine] = np.cos(P[:, ~sine])
        P *= np.asarray(np.sqrt(2.0 / self.n_components), dtype=X.dtype)
        return P

    def _sums_per_group(self, X, groups, n_groups, out=None):
        """``transform(X)`` summed per group, and the squared norms, without
        storing the features (added into ``out = (S, q)`` when given; see
        :meth:`skmmd._inference._streaming.HostRows.grouped_sums`)."""
        X = self._validate_transform_data(X)
        # Rounded as transform rounds them, then carried in float64.
        W = self.random_weights_.astype(X.dtype).astype(np.float64)
        return sampler_group_sums(self, X, groups, n_groups, out, weights=W)

    @property
    def _n_features_out(self):
        return self.n_components


class NormalizedRandomFourierSampler(RandomFourierSampler):
    """Normalized random Fourier features (NRFF, Li 2017).

    Random-phase Fourier features ``sqrt(2/D) cos(Wx + b)`` with each output
    row divided by its Euclidean norm, so ``z(x)^T z(x) = 1 = k(x, x)`` exactly
    and the estimate of ``k(x, y)`` has lower variance, the more so the closer
    x and y are (Li 2017, Theorem 3).

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "matern"}, default="gaussian"
        Shift-invariant kernel, as in :class:`RandomFourierSampler`.
    bandwidth : "median" or float, default="median"
        Kernel bandwidth; ``"median"`` is the median heuristic on the data passed
        to ``fit``. For unit-norm inputs and Li's kernel ``exp(-gamma (1 - rho))``
        use ``bandwidth = 1 / sqrt(gamma)``.
    n_components : int, default=1024
        Output dimension (number of frequencies).
    orthogonal : bool, default=False
        Orthogonal random frequencies (Gaussian and Matern kernels).
    qmc : {None, "sobol", "halton"}, default=None
        Quasi-Monte Carlo frequencies.
    nu : {0.5, 1.5, 2.5}, default=1.5
        Smoothness of the Matern kernel.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the generation of the random
        frequencies and phases, and the subsample of the median heuristic.
        Pass an int for reproducible output across multiple function calls.

    Attributes
    ----------
    bandwidth_ : float
        The bandwidth used.
    random_weights_ : ndarray of shape (n_features, n_components)
        Frequencies divided by ``bandwidth_``.
    random_offset_ : ndarray of shape (n_components,)
        Random phases ``b``.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    RandomFourierSampler : The unnormalized map.

    Notes
    -----
    With ``rho`` the cosine similarity of unit vectors and the Gaussian kernel
    ``exp(-gamma (1 - rho))``, the per-component asymptotic variances are
    ``V = 1/2 + 1/2 (1 - e^{-2 gamma (1 - rho)})^2`` for plain random-phase
    features and ``V - 1/4 e^{-2 gamma (1-rho)} (3 - e^{-4 gamma (1-rho)})``
    after normalization (Theorem 3 of [1]). ``cos_sin`` features already have
    unit norm, which is why this class has no ``feature`` parameter.

    References
    ----------
    .. [1] P. Li. Linearized GMM kernels and normalized random Fourier features.
       KDD 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import NormalizedRandomFourierSampler
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> nrff = NormalizedRandomFourierSampler(n_components=256, random_state=0)
    >>> Z = nrff.fit_transform(X)
    >>> np.allclose((Z**2).sum(axis=1), 1.0)
    True
    """

    _parameter_constraints: dict = {
        key: value
        for key, value in RandomFourierSampler._parameter_constraints.items()
        if key != "feature"
    }

    def __init__(
        self,
        *,
        kernel="gaussian",
        bandwidth="median",
        n_components=1024,
        orthogonal=False,
        qmc=None,
        nu=1.5,
        random_state=None,
    ):
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.orthogonal = orthogonal
        self.qmc = qmc
        self.nu = nu
        self.random_state = random_state

    # Random-phase features are the ones normalization improves (see Notes).
    feature = "cos_phase"
    # Normalization needs each whole feature row: summed after transform,
    # and no column computed alone.
    grouped_sums = None
    transform_columns = None
    # column_draws is inherited: normalization couples the columns only
    # through each row's norm, which is close to 1.

    def transform(self, X):
        """Apply the normalized random feature map to X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data, dense or CSR.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Unit-norm rows, in X's dtype.
        """
        Z = super().transform(X)
        norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        Z /= np.maximum(norms, np.finfo(Z.dtype).tiny)[:, None]
        return Z

    def _transform_array_api(self, X, xp, device):
        Z = super()._transform_array_api(X, xp, device)
        norms = xp.sqrt(xp.sum(Z * Z, axis=1))
        return Z / xp.clip(norms, min=xp.finfo(Z.dtype).smallest_normal)[:, None]
