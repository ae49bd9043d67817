"""ConditionalHSICTest: are X and Y dependent once Z is known? At linear cost.

The estimator validates the data and fits the feature maps of x, y, z and
the weights (:mod:`._maps`); the test itself runs on the rows'
features (:func:`~skmmd.conditional._pipeline.calibrated`).
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state

from .._inference._base import SHARED_CONSTRAINTS, set_calibrated
from .._inference._variables import TwoVariableTags, check_variable, numeric_table
from .._tables._labels import is_dataframe
from .._utils import _streams
from .._utils._compat import HasMethods, Interval, StrOptions, fit_context
from ._maps import fit_rows, relevant_columns, screens, weight_map, xy_map, z_map
from ._pipeline import RowFeatures, calibrated
from ._results import ConditionalHSICTestResult


def _refuse_missing(V, name):
    """A ValueError naming the columns of ``V`` with missing values, where
    its map takes numbers (a table with text keeps them: its TabularSampler
    maps them as values of their own)."""
    if V is None or (is_dataframe(V) and not numeric_table(V)):
        return
    if is_dataframe(V):
        labels, mask = list(V.columns), V.isna().to_numpy()
    else:
        values = np.asarray(V)
        if values.dtype.kind not in "fc":
            return
        mask = np.isnan(values.reshape(len(values), -1))
        labels = list(range(mask.shape[1]))
    bad = np.flatnonzero(mask.any(axis=0))
    if bad.size:
        rows = int(mask.any(axis=1).sum())
        raise ValueError(
            f"{name} has missing values (NaN) in column(s) "
            f"{[labels[j] for j in bad]}, in {rows} row{'s' * (rows != 1)}: "
            "the test takes complete rows; drop those (e.g. DataFrame.dropna) or "
            "run a causal search with skmmd.causal.pc, which tests each set of "
            "variables on the rows complete for them."
        )


class ConditionalHSICTest(TwoVariableTags, BaseEstimator):
    """Kernel test of conditional independence of X and y given Z, linear in n.

    The features of X and of y are regressed on the features of Z by ridge
    regression, cross-fitted over ``n_folds`` random folds (each fold's
    residuals from fits on other folds; with 4 folds or more the x- and the
    y-features of a fold are fit on disjoint folds), with each target's penalty
    chosen by cross-validation and divided by 10 (undersmoothing: the test
    needs little bias more than little variance); the test asks whether the
    residual features are uncorrelated, weighted by features ``g(z)`` of Z. Its
    statistic is ``T = n ||(1/n) sum_i r_i g_i' s_i'||^2`` (a conditional
    HSIC of the residuals of the features of ``(x, z)`` and of y, as KCI's),
    calibrated by a multiplier (wild) bootstrap of the per-unit sums of
    ``vec(r_i g_i' s_i')``, its statistics rescaled by the ratio of the
    statistic's null mean to the bootstrap's, estimated by 8 wild re-fits of
    the ridge (the noise of the fits otherwise widens the bootstrap, by about
    ``0.1 Dz / n``: a conservative test; below 100 rows per Z feature). The
    cost is ``O(n Dz^2)`` for ``Dz`` features of Z, never ``n x n``. Without
    Z the regression is on a constant only and the test is an HSIC test of X
    and y.

    Read more in the :ref:`User Guide <conditional>`.

    Parameters
    ----------
    x_transformer, y_transformer : "auto" or object with ``fit`` and \
            ``transform``, default="auto"
        Feature maps of X and of y. ``"auto"``: for one numeric column,
        cosines and sines at 3 fixed frequencies (the quantiles of the Gaussian
        kernel's spectral measure over the median bandwidth: the map depends on
        the data only, so the decision does not hinge on a draw of three
        frequencies); for several, a :class:`RandomFourierSampler` with 6
        features (3 frequencies) at the median bandwidth; a
        :class:`TabularSampler` with 6 for DataFrames with text columns. The
        residual products have ``Dx * Dy`` entries per row.
    z_transformer : "auto" or object with ``fit`` and ``transform``, \
            default="auto"
        Feature map of Z. ``"auto"``: Z standardized, ``n_z_features``
        Nystroem features of Gaussian kernels (landmarks drawn from Z's
        rows): of one column at its median bandwidth times 0.2, 0.5 and 1; of
        several, half of each column alone (its median times 0.2, 0.5, 1) and
        half of all jointly (their median times 0.25, 0.5 and 1), side by
        side: the ridge weighs them; above 2000 rows at smaller multiples as
        well (:func:`z_scales`); a :class:`TabularSampler` of
        ``n_z_features`` for DataFrames with text columns.
    z_weights : "auto", None or object with ``fit`` and ``transform``, \
            default="auto"
        Map of Z to the weights ``g(z)`` of the residual products: the test
        asks ``E[g(Z) r s'] = 0`` for each feature ``g``, so it sees a
        conditional covariance of x and y that changes sign with z (where
        ``E[r s']`` cancels). ``"auto"``: Z standardized, 6 Fourier features
        at its median bandwidth (of one column at 3 fixed frequencies, as
        x's; of several at random ones; a :class:`TabularSampler` of 6 for
        DataFrames with text columns). None: no weights (the products ``r_i
        s_i'``). Ignored without Z.
    n_z_features : "auto" or int, default="auto"
        Features of the default Z map. ``"auto"``: about ``10 sqrt(n)``,
        between 48 and 600 (the regression must get richer as ``n`` grows
        for the level to hold; see Notes).
    z_screen : bool, default=True
        With the default z map and two columns of Z or more: leave out the
        columns independent of x, y and the other columns jointly (each
        tested by HSIC against features of x, of y and of the rest, on the
        rows the z map is fit on, at level 0.1 up to 300 rows and ``0.1 (300
        / m)^2`` on ``m`` beyond); the hypothesis is the same without them, and
        the z map resolves the others better (see Notes). At least one
        column stays. The columns kept are ``z_columns_``.
    n_folds : int, default=5
        Folds of the cross-fitting (``>= 2``).
    penalties : array-like of shape (n_penalties,) or None, default=None
        Candidate ridge penalties ``lambda`` of ``C'C + n lambda I``; None:
        ``logspace(-8, 1, 19)``.
    n_resamples : int or "auto", default=999
        Bootstrap draws ``B``.
        ``"auto"``: drawn in batches, stopped as soon as the decision at
        ``alpha`` is known, at most 999 (a sequential Monte Carlo test, see
        :ref:`sequential`); the number drawn is ``n_resamples_used_``.
    alpha : float, default=0.05
        Level of the test.
    resample_unit : "auto" or int, default="auto"
        Rows per unit of the bootstrap. ``"auto"``: 1 while ``B x n x Dx Dg
        Dy`` stays within about ``2^34`` multiply-adds, else the smallest power
        of two that does.
    block_size : None, "auto" or int, default=None
        For rows in time order (series, lagged variables of a causal search
        on time series): one multiplier per block of this many consecutive
        rows (a dependent wild bootstrap), its statistics widened by the
        correction for the dependence between neighbouring blocks, so that
        the p-value holds when neighbouring rows depend on each other;
        ``"auto"`` chooses the length from the residual products, as every
        family does. The cross-fitting folds stay random, so that every
        fit spans the whole series (contiguous folds extrapolate, and leave
        serially dependent residuals that cost the test its power).
        ``None``: exchangeable rows (a :class:`SerialDependenceWarning` when
        the residual products of the first rows look ordered). See
        :ref:`time_ordered`.
    batch : int or None, default=None
        Bootstrap draws per matrix product (None: about ``2^23`` weights).
    random_state : int, RandomState instance or None, default=None
        Seeds the maps, the folds, the units and the bootstrap weights. Pass
        an int for reproducible results across multiple function calls.
    n_jobs : int or None, default=None
        Threads computing bootstrap batches.
    verbose : int, default=0
        Progress messages.

    Attributes
    ----------
    statistic_ : float
        ``T``, the squared norm of the residual cross-covariance times ``n``.
    p_value_ : float
        ``(1 + #{T_b >= T}) / (B + 1)``.
        With ``n_resamples="auto"``, the sequential p-value: at least the
        fixed test's (the same decision) when all 999 were drawn, above
        ``alpha`` and coarser when the test stopped to accept, at most
        ``alpha`` when it stopped to reject; valid (see :ref:`sequential`).
    null_distribution_ : ndarray of shape (n_resamples,)
        The bootstrap statistics.
    n_resamples_used_ : int
        Resamples drawn: ``n_resamples``, or with ``"auto"`` where the test
        stopped (the rows of ``null_distribution_``).
    reject_ : bool
        ``p_value_ <= alpha``.
    threshold_ : float
        ``statistic_`` above it means rejection: the
        ``floor(alpha (B + 1))``-th largest bootstrap statistic.
    result_ : ConditionalHSICTestResult
        The same values, with the effect size ``conditional_hsic`` (an
        unbiased estimate of ``||E[r g(z)' s']||^2``, the squared norm of the
        conditional cross-covariance of the features of ``(x, z)`` and of y)
        and its jackknife standard error.
    x_transformer_, y_transformer_, z_transformer_, z_weights_ : object or None
        The fitted maps (the last two are None without Z; they take the
        columns ``z_columns_`` of Z).
    z_columns_ : ndarray of int
        The columns of Z conditioned on (all but those ``z_screen`` left
        out; absent without Z).
    penalty_ : ndarray of shape (Dx + Dy,)
        The ridge penalty each feature of x and of y was fit with (a tenth
        of its cross-validated one).
    null_scale_ : float
        The factor of the bootstrap statistics: the wild re-fits' (1 without
        Z, and from 100 rows per Z feature); with ``block_size``,
        ``block_scale_`` alone (the blocks' units hold the cross terms of
        neighbouring rows that the re-fits would correct for).
    resample_unit_ : int
        Rows per bootstrap unit.
    block_size_ : int or None
        With ``block_size``: rows per block.
    block_scale_ : float or None
        With ``block_size``: the factor of the bootstrap statistics that
        corrects for the dependence between neighbouring blocks (at least 1;
        ``null_scale_``).
    n_samples_ : int
        Number of rows.
    n_features_in_ : int
        Number of columns of X.

    See Also
    --------
    conditional_independence_test : The test in one call.
    HSICTest : The (unconditional) permutation test of independence.

    Notes
    -----
    Under ``H0: X independent of Y given Z`` the residuals satisfy ``E[r s']
    = 0`` when the regressions are right; their errors leave a bias of the
    order of the product of the two regressions' errors, which must vanish
    faster than ``n^-1/2`` (Shah & Peters 2020), so the Z map grows with
    ``n`` and the penalty comes from the data. Cross-fitting keeps each
    regression's overfit out of its own residuals. The multiplier bootstrap
    does not assume the residuals independent of each other (RCIT's
    shortcut), so it stays valid when the noise depends on Z. Weighting the
    products by ``g(z)`` tests ``E[r s' | Z] = 0`` against more directions than
    its mean: it detects alternatives where the conditional covariance of x
    and y changes sign with z, which the unweighted mean misses. No test of
    conditional independence has power against every alternative and a
    valid level against every null (Shah & Peters' no-free-lunch theorem):
    the level is measured on the nulls of ``benchmarks/bench_conditional.py``
    (the benchmarks page). Columns of Z on which nothing else depends cost
    the level, not only power: the z map's joint block spreads over them and
    resolves an interaction of the others worse; ``z_screen`` leaves them
    out. The screen sees a column that acts only through an interaction with
    others, but one whose dependence on the rest is too weak to detect on
    the screen's rows is left out.

    References
    ----------
    .. [1] R. D. Shah and J. Peters, "The hardness of conditional independence
       testing and the generalised covariance measure", Annals of Statistics,
       2020.
    .. [2] E. V. Strobl, K. Zhang and S. Visweswaran, "Approximate kernel-based
       conditional independence tests for fast non-parametric causal
       discovery", Journal of Causal Inference, 2019.
    .. [3] K. Zhang, J. Peters, D. Janzing and B. Schoelkopf, "Kernel-based
       conditional independence test and application in causal discovery",
       UAI, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import ConditionalHSICTest
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(2000, 1))
    >>> x = np.sin(2 * z) + 0.3 * rng.normal(size=(2000, 1))
    >>> y = np.cos(2 * z) + 0.3 * rng.normal(size=(2000, 1))
    >>> test = ConditionalHSICTest(random_state=0).fit(x, y, Z=z)
    >>> bool(test.p_value_ > 0.05)  # x and y depend on each other through z only
    True
    >>> ConditionalHSICTest(random_state=0).fit(x, y).p_value_  # not given z
    0.001
    """

    _parameter_constraints: dict = {
        "x_transformer": [StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "y_transformer": [StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "z_transformer": [StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "z_weights": [None, StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "n_z_features": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "z_screen": ["boolean"],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "penalties": [None, "array-like"],
        **{k: v for k, v in SHARED_CONSTRAINTS.items() if k != "statistic"},
    }

    def __init__(
        self,
        x_transformer="auto",
        y_transformer="auto",
        z_transformer="auto",
        *,
        z_weights="auto",
        n_z_features="auto",
        z_screen=True,
        n_folds=5,
        penalties=None,
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        block_size=None,
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.x_transformer = x_transformer
        self.y_transformer = y_transformer
        self.z_transformer = z_transformer
        self.z_weights = z_weights
        self.n_z_features = n_z_features
        self.z_screen = z_screen
        self.n_folds = n_folds
        self.penalties = penalties
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.block_size = block_size
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _check(self, X, y, Z):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None: give the second variable, one row per row of X."
            )
        for V, name in ((X, "X"), (y, "y"), (Z, "Z")):
            _refuse_missing(V, name)
        X = check_variable(self, X, "X", self.x_transformer, True, 1)
        Y = check_variable(self, y, "y", self.y_transformer, True, 1)
        data = [X, Y]
        if Z is not None:
            Z = check_variable(self, Z, "Z", self.z_transformer, True, 1)
            data.append(Z)
        for i, transformer in enumerate(
            (self.x_transformer, self.y_transformer, self.z_transformer)[: len(data)]
        ):
            V = data[i]
            if transformer == "auto" and is_dataframe(V) and numeric_table(V):
                # Numbers only: the default maps of arrays (the scales of Z).
                data[i] = V.to_numpy(dtype=np.float64)
        n = len(X)
        for V, name in zip(data[1:], ("y", "Z")):
            if len(V) != n:
                raise ValueError(
                    f"X, y and Z must be paired row by row; got {n} rows in X and "
                    f"{len(V)} in {name}."
                )
        if n < 2 * self.n_folds:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 rows per fold "
                f"(n_folds={self.n_folds}); got n_samples = {n}."
            )
        for V, name in zip(data, ("X", "y", "Z")):
            constant = (
                V.nunique(dropna=False) <= 1
                if is_dataframe(V)
                else np.all(V == V[:1], axis=0)
            )
            if np.any(constant):
                which = (
                    "a column of Z is constant"
                    if name == "Z"
                    else f"{name} has a constant column"
                )
                raise ValueError(
                    f"{which}: drop it (a constant tells nothing and carries no "
                    "dependence)."
                )
        if Z is not None and Z.shape[1] >= n:
            raise ValueError(
                f"Z has {Z.shape[1]} columns and only {n} rows: the regression on "
                "Z needs more rows than columns."
            )
        return data

    def _screen(self, data, maps, state):
        """The columns of Z the default z map and weights take (all unless
        ``z_screen``: see :func:`relevant_columns`), on the rows the z map is
        fit on."""
        Z = data[2]
        if not screens(self.z_screen, Z.shape[1], is_dataframe(Z)):
            return np.arange(Z.shape[1])
        rng = check_random_state(state)  # the z map's: the same rows
        rows = fit_rows(len(Z), rng)
        x, y = (V.iloc[rows] if is_dataframe(V) else V[rows] for V in data[:2])
        A, B = (np.asarray(m.transform(V), float) for m, V in zip(maps, (x, y)))
        x, y = (None if is_dataframe(V) else V for V in (x, y))
        return relevant_columns(Z[rows], x, y, (A, B), rng)

    def _maps(self, data, rng):
        """Fitted maps of x, y, z and the weights (None for no z), and the
        data with Z's screened columns only."""
        maps = []
        for V, name in zip(data, ("x", "y", "z")):
            transformer = getattr(self, f"{name}_transformer")
            state = _streams.draw_seed(rng)
            if transformer != "auto":
                maps.append(clone(transformer).fit(V))
            elif name != "z":
                maps.append(xy_map(V, state))
            else:
                kept = self._screen(data, maps, state)
                if kept.size < V.shape[1]:
                    data = data[:2] + [V[:, kept]]
                self.z_columns_ = kept
                maps.append(z_map(data[2], self.n_z_features, len(V), state))
        if len(data) < 3 or self.z_weights is None:
            return maps + [None] * (4 - len(maps)), data
        state = _streams.draw_seed(rng)
        if self.z_weights == "auto":
            return maps + [weight_map(data[2], state)], data
        return maps + [clone(self.z_weights).fit(data[2])], data

    def _test_params(self):
        """The parameters of :func:`calibrated`."""
        names = ("n_folds", "penalties", "n_resamples", "resample_unit", "batch")
        names += ("alpha", "block_size")
        return {
            **{name: getattr(self, name) for name in names},
            "n_jobs": self.n_jobs,
            "verbose": self.verbose,
        }

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, Z=None):
        """Regress, compute the statistic, its bootstrap null and the p-value.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n, n_features)
            The first variable (1-D: one column).
        y : DataFrame or array-like of shape (n,) or (n, n_features_y)
            The second variable, row ``i`` paired with row ``i`` of X.
        Z : DataFrame, array-like of shape (n, n_features_z) or None, \
                default=None
            The conditioning variables (None: the unconditional test).
            Missing values (NaN) in the numbers of X, y or Z are refused,
            naming the columns; in a table with text columns its
            TabularSampler maps them as values of their own.

        Returns
        -------
        self : object
            Fitted test.
        """
        data = self._check(X, y, Z)
        rng = check_random_state(self.random_state)
        seed = _streams.draw_seed(rng)
        if len(data) == 3:
            self.z_columns_ = np.arange(data[2].shape[1])
        maps, data = self._maps(data, rng)
        self.x_transformer_, self.y_transformer_, self.z_transformer_ = maps[:3]
        self.z_weights_ = maps[3]
        Z = data[2] if len(data) == 3 else None
        features = RowFeatures(
            *(None if m is None else (m, V) for m, V in zip(maps, data[:2] + [Z, Z]))
        )
        run = calibrated(
            features, len(data[0]), seed, check_order=True, **self._test_params()
        )
        parts, null, observed = run.parts, run.null, run.statistic
        self.penalty_ = run.penalty
        self.null_scale_ = parts.null_scale
        self.resample_unit_ = run.unit
        self.block_size_, self.block_scale_ = run.block, run.block_scale
        self.n_samples_ = len(data[0])
        set_calibrated(self, observed, null, run.p_value)
        effect, se = parts.effect()
        self.result_ = ConditionalHSICTestResult(
            statistic=observed,
            pvalue=self.p_value_,
            null_distribution=null,
            alpha=self.alpha,
            conditional_hsic=effect,
            standard_error=se,
            n_samples=self.n_samples_,
        )
        return self
