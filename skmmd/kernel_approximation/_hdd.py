"""Random features for sets of samples: homogeneous density distance (HDD)
kernels (Jensen-Shannon, Hellinger, total variation) between the sets'
densities (Sutherland, Oliva, Poczos and Schneider 2016)."""

from numbers import Integral, Real

import numpy as np
from scipy.stats import qmc as scipy_qmc
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.validation import check_is_fitted

from .._utils import _budgets
from .._utils._compat import Interval, StrOptions, fit_context
from .._utils._streams import draw_seed
from ..kernels import median_bandwidth
from . import _trig
from ._bags import BagTransformerMixin
from ._base import trig_features
from ._cosine_basis import basis_at, cosine_index_set, project
from ._kde import cross_validate_kde_bandwidth, grid_kde, kde_at_points

# Z = mu(R) = kappa(1, 0): the total mass of each divergence's measure mu
# (see the Notes of HDDSampler).
_MEASURE_MASS = {"js": 0.5 * np.log(2.0), "hellinger": 0.5, "tv": 1.0}
_DEFAULT_LAMBDAS = {"js": 20, "hellinger": 1, "tv": 50}
# Frequency cutoff t per dimension: |V_t| = 41, 335, 648 basis functions
# (``benchmarks/bench_hdd.py --sweep`` varies t).
_DEFAULT_CUTOFF = {1: 40, 2: 20, 3: 10}
# Midpoints per axis of the default integration grid (spacing well below the
# KDE bandwidths that cross-validation picks for a few hundred points).
_DEFAULT_GRID = {1: 1024, 2: 128, 3: 32}


def sample_lambdas(divergence, n_lambdas, rng):
    """Draw ``n_lambdas`` values from the normalised measure ``mu / Z``.

    JS: rejection from the hyperbolic secant law (density ``sech(pi l)``,
    drawn as ``ln(tan(pi U / 2)) / pi``), accepting with ``1 / (1 + 4 l^2)``;
    TV: Cauchy(0, 1/2); Hellinger: the point mass at 0.
    """
    if divergence == "hellinger":
        return np.zeros(n_lambdas)
    if divergence == "tv":
        return 0.5 * np.tan(np.pi * (rng.uniform(size=n_lambdas) - 0.5))
    out = np.empty(0)
    while out.size < n_lambdas:
        # acceptance rate ln 2, so 2 n proposals almost always suffice
        lam = np.log(np.tan(0.5 * np.pi * rng.uniform(size=2 * n_lambdas))) / np.pi
        keep = rng.uniform(size=lam.size) < 1.0 / (1.0 + 4.0 * lam**2)
        out = np.concatenate([out, lam[keep]])
    return out[:n_lambdas]


class HDDSampler(BagTransformerMixin, BaseEstimator):
    """Random features for sets of samples under HDD kernels (JS, Hellinger, TV).

    Each input is a set of points (a "bag") drawn from a density ``p`` on a
    low-dimensional space. The features ``z`` satisfy
    ``z(p)^T z(q) ~ exp(-rho^2(p, q) / (2 bandwidth^2))``, where ``rho^2`` is
    the Jensen-Shannon divergence, the squared Hellinger distance or the L1
    (total variation) distance between the sets' densities, so a linear model
    on ``z`` approximates a kernel machine on distributions, in time linear in
    the number of sets.

    Parameters
    ----------
    divergence : {"js", "hellinger", "tv"}, default="js"
        ``rho^2``: Jensen-Shannon divergence (nats), squared Hellinger
        distance ``1 - integral sqrt(p q)``, or ``integral |p - q|``.
        TV has a heavy-tailed ``lambda`` law and is the least accurate with a
        truncated basis (see Notes).
    n_lambdas : int or "auto", default="auto"
        Number ``M`` of draws ``lambda ~ mu / Z``: 20 for JS, 50 for TV.
        Hellinger needs exactly one (``lambda = 0``) and ignores it.
    cutoff : int or "auto", default="auto"
        Frequency cutoff ``t`` of the cosine basis
        ``V_t = {alpha : sum(alpha_d^2) <= t^2}``: 40, 20, 10 for d = 1, 2, 3,
        and 5 above.
    n_mc : int or "auto", default="auto"
        Number of integration points. With ``mc="grid"`` it is rounded to
        ``G^d`` (``G`` midpoints per axis, at least ``cutoff + 1``); "auto"
        is ``G = 1024, 128, 32`` for d = 1, 2, 3 (16 above). For Sobol and
        uniform points "auto" is ``max(2^14, 50 |V|)``.
    mc : {"grid", "sobol", "uniform"}, default="grid"
        Integration points shared by all sets. The midpoint grid makes the
        cosine basis exactly discrete-orthonormal (no Monte Carlo noise) and
        lets the KDE and the projection factorise over axes, which is much
        faster; ``"uniform"`` is the paper's i.i.d. choice, ``"sobol"`` a
        scrambled Sobol sequence.
    kde_bandwidth : "cv" or float, default="cv"
        Bandwidth of the truncated-Gaussian KDE of each set, in the scaled
        ``[0,1]^d`` units. ``"cv"`` picks one bandwidth shared by all sets by
        leave-one-out ISE cross-validation on up to ``n_cv_bags`` training sets,
        times ``kde_undersmoothing``.
    kde_undersmoothing : float in (0, 1], default=0.7
        Factor applied to the cross-validated KDE bandwidth. The ISE-optimal
        bandwidth oversmooths for divergence estimation: smoothing pulls the
        densities together and biases ``rho^2`` low, while the extra variance
        of a smaller bandwidth partly cancels that bias
        (``benchmarks/bench_hdd.py --sweep`` varies the factor).
    n_cv_bags : int, default=20
        Number of training sets used by the bandwidth cross-validation.
    bandwidth : "median" or float, default="median"
        ``sigma`` of the kernel ``exp(-rho^2 / (2 sigma^2))``. ``"median"`` is
        the median distance between the training sets' embeddings ``A``
        (about ``median sqrt(rho^2)``); ``sqrt(Z)`` if ``fit`` sees one set.
    n_components : int or None, default=1024
        Number of random features (even: a cosine and a sine per frequency).
        ``None`` returns the embedding ``A`` itself (dimension
        ``M_f |V|``, ``M_f = 2 M`` or 1 for Hellinger), whose Euclidean
        distances approximate ``sqrt(rho^2)``; use it with any vector kernel
        or sampler.
    scale : bool, default=True
        Min-max scale the data to ``[0,1]^d`` with the ranges seen in ``fit``.
        With ``False`` the data must already live in ``[0,1]^d``. In both
        cases points outside the box are clipped to it.
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the draws of ``lambda``,
        of the integration points, of the sets used by cross-validation, of
        the random frequencies and of the median subsample. Pass an int for
        reproducible output across multiple function calls.

    Attributes
    ----------
    data_min_, data_range_ : ndarray of shape (n_features,)
        The min-max scaling (``x -> (x - data_min_) / data_range_``).
    lambdas_ : ndarray of shape (M,)
        The draws from ``mu / Z`` (``[0.]`` for Hellinger).
    measure_mass_ : float
        ``Z = mu(R) = kappa(1, 0)``: ``ln(2)/2``, ``1/2`` or 1.
    basis_indices_ : ndarray of shape (n_basis, n_features)
        The multi-indices ``alpha`` of ``V_t``.
    integration_points_ : ndarray of shape (n_mc, n_features)
        The shared integration points in ``[0,1]^d``.
    basis_values_ : ndarray of shape (n_mc, n_basis)
        The basis at the integration points (``mc="sobol"`` or ``"uniform"``
        only; the grid uses the separable 1-D tables).
    kde_bandwidth_ : float
        KDE bandwidth used.
    bandwidth_ : float or None
        ``sigma`` used (None when ``n_components=None``).
    random_weights_ : ndarray of shape (n_embedding, n_components // 2) or None
        RKS frequencies, ``N(0, bandwidth_^-2)``.
    n_features_in_ : int
        Dimension ``d`` of the points.

    See Also
    --------
    MeanEmbedding : The mean map of a set under a vector sampler (MMD kernel).
    skmmd.kernels.hdd_kernel : The exact kernel between known densities.

    Notes
    -----
    ``rho^2(p, q) = integral kappa(p(x), q(x)) dx`` with ``kappa``
    homogeneous; by Fuglede's theorem
    ``kappa(x, y) = integral |x^(1/2 + i l) - y^(1/2 + i l)|^2 dmu(l)``, with
    ``dmu = sech(pi l) / (2 (1 + 4 l^2))`` (JS), ``delta_0 / 2`` (Hellinger)
    and ``2 / (pi (1 + 4 l^2))`` (TV). With ``M`` draws ``lambda_j ~ mu / Z``,
    ``rho^2`` is the squared L2 distance of the ``2M`` real functions
    ``sqrt(Z / M) sqrt(p) [cos, sin](lambda_j ln p)``; ``A(p)`` stacks their
    cosine-basis coefficients on ``V_t``, computed from a KDE ``p_hat`` at the
    integration points, and random kitchen sinks turn
    ``exp(-||A(p) - A(q)||^2 / (2 sigma^2))`` into ``z``.

    ``||A(p) - A(q)||^2`` underestimates ``rho^2``: projection on ``V_t`` can
    only shrink distances, and the KDE smooths the densities toward each
    other. TV's Cauchy ``lambda`` law gives highly oscillatory functions that
    the basis cannot resolve, so its ``rho^2`` is biased lowest.

    Time per set: ``O(n G d + n G^d)`` for the KDE on the grid (``O(n n_mc)``
    for other points), ``O(n_mc M (t + 1))`` for the projection and
    ``O(M |V| n_components)`` for the random features.

    References
    ----------
    .. [1] D. J. Sutherland, J. B. Oliva, B. Poczos and J. Schneider.
       Linear-time learning on distributions with approximate kernel
       embeddings. AAAI 2016.
    .. [2] M. Hein and O. Bousquet. Hilbertian metrics and positive definite
       kernels on probability measures. AISTATS 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import HDDSampler
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.beta(a, 2.0, size=(300, 1)) for a in (1.0, 2.0, 5.0)]
    >>> hdd = HDDSampler(n_components=2048, random_state=0).fit(bags)
    >>> Z = hdd.transform(bags)
    >>> Z.shape
    (3, 2048)
    >>> K = Z @ Z.T
    >>> bool(K[0, 1] > K[0, 2])  # Beta(1,2) is closer to Beta(2,2) than Beta(5,2)
    True
    """

    _parameter_constraints: dict = {
        "divergence": [StrOptions({"js", "hellinger", "tv"})],
        "n_lambdas": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "cutoff": [StrOptions({"auto"}), Interval(Integral, 0, None, closed="left")],
        "n_mc": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "mc": [StrOptions({"grid", "sobol", "uniform"})],
        "kde_bandwidth": [
            StrOptions({"cv"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "kde_undersmoothing": [Interval(Real, 0, 1, closed="right")],
        "n_cv_bags": [Interval(Integral, 1, None, closed="left")],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_components": [None, Interval(Integral, 2, None, closed="left")],
        "scale": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        divergence="js",
        n_lambdas="auto",
        cutoff="auto",
        n_mc="auto",
        mc="grid",
        kde_bandwidth="cv",
        kde_undersmoothing=0.7,
        n_cv_bags=20,
        bandwidth="median",
        n_components=1024,
        scale=True,
        random_state=None,
    ):
        self.divergence = divergence
        self.n_lambdas = n_lambdas
        self.cutoff = cutoff
        self.n_mc = n_mc
        self.mc = mc
        self.kde_bandwidth = kde_bandwidth
        self.kde_undersmoothing = kde_undersmoothing
        self.n_cv_bags = n_cv_bags
        self.bandwidth = bandwidth
        self.n_components = n_components
        self.scale = scale
        self.random_state = random_state

    def _resolve_sizes(self, d):
        t = _DEFAULT_CUTOFF.get(d, 5) if self.cutoff == "auto" else self.cutoff
        if self.divergence == "hellinger":
            M = 1
        else:
            M = _DEFAULT_LAMBDAS[self.divergence]
            M = M if self.n_lambdas == "auto" else self.n_lambdas
        V = cosine_index_set(d, t)
        if self.mc == "grid":
            if self.n_mc == "auto":
                G = _DEFAULT_GRID.get(d, 16)
            else:
                G = int(round(self.n_mc ** (1.0 / d)))
            if G <= t:
                raise ValueError(
                    f"The integration grid needs more than cutoff={t} points per "
                    f"axis to resolve the basis; n_mc={self.n_mc} gives {G}. "
                    f"Increase n_mc to at least {(t + 1) ** d}."
                )
            n_mc = G**d
        else:
            G = None
            n_mc = max(2**14, 50 * len(V)) if self.n_mc == "auto" else self.n_mc
        return t, M, V, G, n_mc

    @fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit to X and return its features, embedding each set once.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, n_features)
            Training sets.
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_sets, n_components) or (n_sets, n_embedding)
            As :meth:`transform` would return.
        """
        A, dtype = self._fit(X, embed_all=True)
        return self._features(A, dtype)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the scaling, draw the lambdas, points and frequencies.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, n_features)
            Training sets, of any sizes ``n_i >= 1``.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted sampler.
        """
        self._fit(X)
        return self

    def _fit(self, X, embed_all=False):
        """Fit; with ``embed_all``, also return the embedding of every set."""
        if self.n_components is not None and self.n_components % 2:
            raise ValueError(
                "n_components must be even (a cosine and a sine per frequency) or "
                f"None; got n_components={self.n_components}."
            )
        bags, dtype = self._check_bags(X, reset=True)
        d = self.n_features_in_
        rng = check_random_state(self.random_state)
        t, M, V, G, n_mc = self._resolve_sizes(d)
        if self.scale:
            pooled = np.concatenate(bags)
            self.data_min_ = pooled.min(axis=0).astype(np.float64)
            rng_ = pooled.max(axis=0) - self.data_min_
            self.data_range_ = np.where(rng_ > 0, rng_, 1.0).astype(np.float64)
        else:
            self.data_min_ = np.zeros(d)
            self.data_range_ = np.ones(d)
        self.measure_mass_ = _MEASURE_MASS[self.divergence]
        self.lambdas_ = sample_lambdas(self.divergence, M, rng)
        self.basis_indices_ = V
        self._grid_size = G
        if self.mc == "grid":
            nodes = (np.arange(G) + 0.5) / G
            mesh = np.meshgrid(*([nodes] * d), indexing="ij")
            self.integration_points_ = np.stack([m.ravel() for m in mesh], axis=1)
        elif self.mc == "sobol":
            seed = np.random.default_rng(draw_seed(rng))
            engine = scipy_qmc.Sobol(d, scramble=True, rng=seed)
            m = int(np.ceil(np.log2(n_mc)))
            self.integration_points_ = engine.random_base2(m)[:n_mc]
        else:
            self.integration_points_ = rng.uniform(size=(n_mc, d))

        if self.mc != "grid":
            self.basis_values_ = basis_at(self.integration_points_, V, t)
        scaled = [self._scale(b) for b in bags]
        if self.kde_bandwidth == "cv":
            n_cv = min(len(scaled), self.n_cv_bags)
            subset = rng.choice(len(scaled), size=n_cv, replace=False)
            cv_grid = G if G is not None else _DEFAULT_GRID.get(d, 16)
            h = cross_validate_kde_bandwidth([scaled[i] for i in subset], cv_grid, rng)
            if h is None:  # only 1-point sets: Scott's rule on the pooled points
                pooled = np.concatenate(scaled)
                h = float(
                    max(pooled.std(axis=0).mean(), 1e-3)
                    * max(pooled.shape[0], 2) ** (-1.0 / (d + 4))
                )
            self.kde_bandwidth_ = h * self.kde_undersmoothing
        else:
            self.kde_bandwidth_ = float(self.kde_bandwidth)

        A_all = None
        if self.n_components is None:
            self.bandwidth_ = None
            self.random_weights_ = None
        else:
            # Frequencies first: a fixed seed gives the same directions
            # whatever the bandwidth.
            W = rng.standard_normal(size=(self._n_embedding, self.n_components // 2))
            if self.bandwidth == "median" and len(scaled) < 2:
                # no pair of sets: sqrt(Z) is the scale of sqrt(rho^2)
                self.bandwidth_ = float(np.sqrt(self.measure_mass_))
            elif self.bandwidth == "median":
                # median_bandwidth looks at 1000 rows at most: embed only those
                n_med = min(len(scaled), 1000)
                keep = np.sort(rng.choice(len(scaled), size=n_med, replace=False))
                A = self._embed([scaled[i] for i in keep])
                if n_med == len(scaled):
                    A_all = A  # keep is then every set, in order
                self.bandwidth_ = median_bandwidth(A, random_state=rng)
            else:
                self.bandwidth_ = float(self.bandwidth)
            self.random_weights_ = W / self.bandwidth_
        if embed_all and A_all is None:
            A_all = self._embed(scaled)
        return A_all, dtype

    @property
    def _n_functions(self):
        return 1 if self.divergence == "hellinger" else 2 * self.lambdas_.size

    @property
    def _n_embedding(self):
        return self._n_functions * self.basis_indices_.shape[0]

    def _scale(self, bag):
        scaled = (bag.astype(np.float64) - self.data_min_) / self.data_range_
        return np.clip(scaled, 0.0, 1.0)

    def _kde(self, bag):
        """KDE values at the integration points, shape (n_mc,)."""
        h = self.kde_bandwidth_
        if self.mc == "grid":
            G = self._grid_size
            return grid_kde(bag, (np.arange(G) + 0.5) / G, h)[0]
        return kde_at_points(bag, self.integration_points_, h)

    def _functions(self, P):
        """The ``2M`` real functions (or ``sqrt(Z p)``) at the points.

        P : (B, n_mc) density values -> (B, n_mc, n_functions)
        """
        Z = self.measure_mass_
        if self.divergence == "hellinger":
            return np.sqrt(Z * P)[:, :, None]
        M = self.lambdas_.size
        B, n_mc = P.shape
        logP = np.log(np.where(P > 0, P, 1.0))
        phase = logP.reshape(-1, 1) * self.lambdas_
        out = np.empty((B * n_mc, 2 * M))
        _trig.cos_sin(phase, np.sqrt(Z / M), out)  # compiled cos and sin together
        # sqrt(p) -> 0 makes the features vanish where p = 0, whatever the phase
        out *= np.sqrt(P).reshape(-1, 1)
        return out.reshape(B, n_mc, 2 * M)

    def _project(self, F):
        """Cosine-basis coefficients on V_t, shape (B, |V| n_functions)."""
        if self.mc == "grid":
            return project(F, self.basis_indices_, grid_size=self._grid_size)
        return project(F, self.basis_indices_, basis_values=self.basis_values_)

    def _embed_density_values(self, P):
        """Embedding ``A`` of densities given at the integration points.

        P : ndarray of shape (n_densities, n_mc) -> (n_densities, n_embedding)
        """
        P = np.atleast_2d(np.asarray(P, dtype=np.float64))
        n_mc = self.integration_points_.shape[0]
        A = np.empty((P.shape[0], self._n_embedding))
        step = max(1, _budgets.MAP_CHUNK_ENTRIES // (n_mc * self._n_functions))
        for rows in gen_batches(P.shape[0], step):
            A[rows] = self._project(self._functions(P[rows]))
        return A

    def _embed(self, scaled_bags):
        """The embedding of each bag: its density estimate at the integration
        points, embedded by :meth:`_embed_density_values`, a block of bags at
        a time."""
        n_mc = self.integration_points_.shape[0]
        A = np.empty((len(scaled_bags), self._n_embedding))
        step = max(1, _budgets.MAP_CHUNK_ENTRIES // (n_mc * self._n_functions))
        for rows in gen_batches(len(scaled_bags), step):
            P = np.stack([self._kde(b) for b in scaled_bags[rows]])
            A[rows] = self._embed_density_values(P)
        return A

    def transform(self, X):
        """Map each set to its HDD random features.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, n_features)
            Sets of any sizes ``n_i >= 1``; points outside the fitted box are
            clipped to it.

        Returns
        -------
        Z : ndarray of shape (n_sets, n_components) or (n_sets, n_embedding)
            Features (the embedding ``A`` when ``n_components=None``); float32
            when every set is float32.
        """
        check_is_fitted(self)
        bags, dtype = self._check_bags(X, reset=False)
        return self._features(self._embed([self._scale(b) for b in bags]), dtype)

    def _features(self, A, dtype):
        if self.n_components is None:
            return A.astype(dtype, copy=False)
        A = A.astype(dtype, copy=False)
        W = self.random_weights_.astype(dtype, copy=False)
        return trig_features(
            A, lambda block: block @ W, "cos_sin", self.n_components, weights=W
        )

    @property
    def _n_features_out(self):
        if self.n_components is None:
            return self._n_embedding
        return self.n_components
