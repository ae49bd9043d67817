"""HSICTest: a test of independence of two variables at linear cost."""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import validate_data

from .._utils._compat import HasMethods, Interval, StrOptions, _fit_context
from ..kernel_approximation import RandomFourierSampler, TabularSampler
from ..kernel_approximation._base import BaseSampler
from ..kernel_approximation._tabular import _is_dataframe
from ..mmd._hsic import MAX_OBSERVATIONS, HSICParts
from . import _calibration, _engines, _streaming
from ._base import fit_indices
from ._results import MMDTestResult

# Pairings times observations^2 (the permutation null's cost) at most this:
# about a second on two cores.
_PAIRING_BUDGET = 2**30
# Fewest observations (units): the jackknife of the unbiased HSIC needs 5.
_MIN_UNITS = 5


class _Half:
    """A fitted feature map of one variable of the pairs ``(X, Y)``."""

    def __init__(self, transformer, which):
        self.transformer, self.which = transformer, which
        fused = getattr(transformer, "_grouped_sums", None)
        if fused is not None:  # the map's own fused per-unit sums

            def grouped(P, groups, n_groups, out=None):
                return fused(P[which], groups, n_groups, out=out)

            self._grouped_sums = grouped

    def transform(self, P):
        return self.transformer.transform(P[self.which])


def _auto_unit(n_rows, n_resamples):
    """The smallest power of two keeping ``n_resamples x units^2`` within the
    pairing budget and the units within the Gram limit (nondecreasing in
    ``n_rows``, so a stream may coarsen its units as rows come)."""
    unit = 1
    while True:
        units = n_rows // unit
        if units <= MAX_OBSERVATIONS and n_resamples * units**2 <= _PAIRING_BUDGET:
            return unit
        unit *= 2


class HSICTest(BaseEstimator):
    """Kernel test of independence (HSIC) with explicit feature maps.

    Tests ``H0: X and y are independent`` from paired rows ``(x_i, y_i)``.
    The statistic is HSIC, the MMD between the joint distribution and the
    product of the marginals, of the feature maps ``phi(x)`` and ``psi(y)``
    (Zhang, Filippi, Gretton & Sejdinovic 2018): the squared norm of their
    cross-covariance. Rows are mapped chunk by chunk and summed into
    resampling units (the pipeline of :class:`MMDTest`); the null
    distribution pairs the y units with the x units by random permutations
    in the same calibration loop. Cost ``O(n D)`` for the features plus
    ``O(B G^2)`` for ``B`` permutations of ``G`` units, whatever ``n``.

    Parameters
    ----------
    x_transformer : "auto" or object with ``fit`` and ``transform``, \
            default="auto"
        Feature map of X. ``"auto"``: :class:`RandomFourierSampler`
        (Gaussian kernel, median bandwidth) for arrays, :class:`TabularSampler`
        for DataFrames.
    y_transformer : "auto" or object with ``fit`` and ``transform``, \
            default="auto"
        Feature map of y, likewise.
    statistic : {"biased", "unbiased"}, default="biased"
        The HSIC estimator (both give valid tests).
    n_resamples : int, default=999
        Number of random pairings ``B``.
    alpha : float, default=0.05
        Level of the test.
    resample_unit : "auto" or int, default="auto"
        Rows per resampling unit. ``"auto"``: 1 (every row an observation)
        while ``B x n^2`` stays within about 10^9, else the smallest power
        of two that brings it there (at most 4096 units). With units of
        ``u > 1`` rows the observations are the unit means (rows grouped at
        random, seeded), and the rows of an incomplete last unit are left out.
    batch : int, default=None
        Pairings per batch (``None``: bounded to about 2^23 entries).
    random_state : int, RandomState instance or None, default=None
        Seeds the feature maps, the units and the pairings.
    n_jobs : int, default=None
        Threads computing batches of pairings.
    verbose : int, default=0
        Progress messages.

    Attributes
    ----------
    statistic_ : float
        HSIC of the observed pairs.
    p_value_ : float
        ``(1 + #{T_b >= T}) / (B + 1)``.
    null_distribution_ : ndarray of shape (n_resamples,)
        HSIC of each random pairing.
    reject_ : bool
        ``p_value_ <= alpha``.
    threshold_ : float
        The null's upper ``alpha`` quantile (reject when the statistic exceeds
        it).
    result_ : MMDTestResult
        The same values, with the unbiased HSIC and its jackknife standard
        error (``mmd2``, ``standard_error``: HSIC is an MMD^2).
    x_transformer_, y_transformer_ : object
        The fitted feature maps.
    resample_unit_ : int
        Rows per unit.
    n_samples_ : int
        Number of pairs.
    n_features_in_ : int
        Number of columns of X.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the columns of X, when it has string column names.

    See Also
    --------
    hsic_test : The test in one call.
    MMDTest : The two-sample test on the same pipeline.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import HSICTest
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 1))
    >>> y = x**2 + 0.5 * rng.normal(size=(500, 1))  # uncorrelated, dependent
    >>> test = HSICTest(random_state=0).fit(x, y)
    >>> test.p_value_
    0.001
    >>> bool(abs(np.corrcoef(x[:, 0], y[:, 0])[0, 1]) < 0.1)
    True
    """

    _parameter_constraints: dict = {
        "x_transformer": [StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "y_transformer": [StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "statistic": [StrOptions({"biased", "unbiased"})],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "resample_unit": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "batch": [None, Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        x_transformer="auto",
        y_transformer="auto",
        *,
        statistic="biased",
        n_resamples=999,
        alpha=0.05,
        resample_unit="auto",
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.x_transformer = x_transformer
        self.y_transformer = y_transformer
        self.statistic = statistic
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.resample_unit = resample_unit
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _variable(self, V, name, transformer, reset):
        """One variable, validated: a DataFrame kept as it is (its map reads
        it), else a 2-D float array (a 1-D one becomes a column)."""
        if _is_dataframe(V):
            numeric = all(kind in "biuf" for kind in V.dtypes.map(lambda t: t.kind))
            if not numeric and isinstance(transformer, BaseSampler):
                raise TypeError(
                    f"{name} has non-numeric columns and {name}_transformer="
                    f"{type(transformer).__name__} maps numbers only: give "
                    f"{name}_transformer='auto' (a TabularSampler) or encode them."
                )
            if name == "X":
                validate_data(self, V, reset=reset, skip_check_array=True)
            return V
        if sp.issparse(V):
            raise TypeError(f"{name} must be dense; got a sparse matrix.")
        params = {"dtype": [np.float64, np.float32], "ensure_min_samples": 1}
        if np.ndim(V) == 1:  # one variable of one column (like scipy.stats)
            V = np.reshape(check_array(V, ensure_2d=False, input_name=name), (-1, 1))
        if name == "X":
            return validate_data(self, V, reset=reset, **params)
        return check_array(V, input_name=name, **params)

    def _pairs(self, X, y, reset):
        if y is None:
            raise ValueError(
                "HSICTest requires y to be passed, but the target y is None: give "
                "the second variable, one row per row of X."
            )
        X = self._variable(X, "X", self.x_transformer, reset)
        Y = self._variable(y, "y", self.y_transformer, reset)
        if len(X) != len(Y):
            raise ValueError(
                f"X and y must be paired row by row; got {len(X)} rows in X and "
                f"{len(Y)} in y."
            )
        if len(X) < _MIN_UNITS:
            raise ValueError(
                f"HSICTest needs at least {_MIN_UNITS} pairs (rows of X and y); "
                f"got n_samples = {len(X)}."
            )
        for V, name in ((X, "X"), (Y, "y")):
            constant = (
                (V.nunique(dropna=False) <= 1).all()
                if _is_dataframe(V)
                else np.all(V == V[:1])
            )
            if constant:
                raise ValueError(
                    f"{name} is constant: it is independent of everything, and "
                    "HSIC is 0 for every pairing (no test)."
                )
        return X, Y

    def _map(self, transformer, V, random_state):
        if isinstance(transformer, str):  # "auto"
            if _is_dataframe(V):
                return TabularSampler(random_state=random_state)
            return RandomFourierSampler(random_state=random_state)
        return clone(transformer)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Compute HSIC, its permutation null distribution and the p-value.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n, n_features)
            The first variable.
        y : DataFrame or array-like of shape (n,) or (n, n_features_y)
            The second variable, row ``i`` paired with row ``i`` of X.

        Returns
        -------
        self : object
            Fitted test.
        """
        X, Y = self._pairs(X, y, reset=True)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.int32).max)
        rows = _engines.PairRows()
        pairs = (X, Y)
        idx = fit_indices(len(X), seed)
        fit_x, fit_y = pairs if idx is None else rows.take(pairs, idx)
        self.x_transformer_ = self._map(self.x_transformer, X, rng.randint(2**31))
        self.y_transformer_ = self._map(self.y_transformer, Y, rng.randint(2**31))
        self.x_transformer_.fit(fit_x)
        self.y_transformer_.fit(fit_y)
        maps = [_Half(self.x_transformer_, 0), _Half(self.y_transformer_, 1)]
        widths = [_streaming.transformer_width(t, pairs, rows) for t in maps]
        unit = self.resample_unit
        if unit == "auto":
            unit = _auto_unit(len(X), self.n_resamples)
        elif len(X) // unit < _MIN_UNITS:
            raise ValueError(
                f"resample_unit={unit} leaves {len(X) // unit} units of "
                f"{len(X)} pairs; at least {_MIN_UNITS} are needed."
            )
        stream = _streaming.Stream(maps, widths, unit, seed, rows)
        stream.add((pairs, rows.take(pairs, slice(0, 0))), unit)
        self._set_results(stream, seed)
        return self

    def _set_results(self, stream, seed):
        sums = stream.sums()
        unit = stream.state.unit
        # The observations: unit means of each variable's features, pairs
        # kept together; incomplete units are left out.
        a, b = (s.U / unit for s in sums)
        parts = HSICParts(a, b, self.statistic == "unbiased")
        if self.verbose:
            print(
                f"HSICTest: n={stream.n_rows[0]}, {a.shape[0]} units of {unit}, "
                f"{self.n_resamples} pairings"
            )
        observed, null, tolerance = _calibration.resampled_hsic(
            parts,
            n_resamples=self.n_resamples,
            batch=self.batch,
            seed=seed,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
        )
        self.statistic_ = observed
        self.null_distribution_ = null
        self.p_value_ = float(_calibration.p_value(observed, null, tolerance))
        self.reject_ = bool(self.p_value_ <= self.alpha)
        k = int(np.floor(self.alpha * (self.n_resamples + 1) + 1e-9))
        self.threshold_ = float(np.sort(null)[::-1][k - 1]) if k >= 1 else np.inf
        self.resample_unit_ = unit
        self.n_samples_ = stream.n_rows[0]
        hsic_u, se = parts.jackknife()
        self.result_ = MMDTestResult(
            statistic=self.statistic_,
            pvalue=self.p_value_,
            null_distribution=null,
            alpha=self.alpha,
            mmd2=hsic_u,
            standard_error=se,
            n_samples_x=self.n_samples_,
            n_samples_y=self.n_samples_,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        return tags
