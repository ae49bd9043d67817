"""What the tests of independence of two variables share: the paired
input checked, the maps fit on (a subsample of) the pairs, the stream of their
unit sums (in memory, ``partial_fit``, Dask)."""

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._inference import _engines, _inputs
from .._inference._base import (
    CALIBRATED,
    StreamedResults,
    fit_indices,
    head,
    order_features,
    unfitted_on_error,
    warn_if_ordered,
)
from .._inference._calibration import n_max
from .._inference._explain import needs_pandas
from .._inference._variables import TwoVariableTags, check_variable
from .._tables._labels import is_dataframe
from .._utils import _budgets
from .._utils._compat import fit_context
from .._utils._streams import draw_seed
from ..statistics._hsic import MAX_OBSERVATIONS
from . import _explain
from ._observations import _auto_unit


def _constant(name):
    return ValueError(
        f"{name} is constant: it is independent of everything, and HSIC is 0 "
        "for every pairing (no test)."
    )


def _fitted(transformer):
    if isinstance(transformer, str):
        return False
    try:
        check_is_fitted(transformer)
    except NotFittedError:
        return False
    return True


class _BaseHSICTest(TwoVariableTags, StreamedResults, BaseEstimator):
    """What the tests of independence of two variables share: the paired
    input, the maps fit on (a subsample of) the pairs, the stream of their
    unit sums (in memory, ``partial_fit``, Dask), and the column report
    (:meth:`explain`). Subclasses fit their maps and start the stream
    (``_start``), calibrate it (``_calibrate``) and give the maps the column
    report starts from (``_report_maps``)."""

    _RESULTS = (
        *CALIBRATED,
        "result_",
        "resample_unit_",
        "block_size_",
        "n_samples_",
    )

    def _pairs(self, X, y, reset, min_rows=_budgets.MIN_UNITS, fit_maps=True):
        """Validated ``(X, Y)``; ``fit_maps``: the maps will be fit on them, so
        a constant variable is an error now."""
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None: give the second variable, one row per row of X."
            )
        X = check_variable(self, X, "X", self._map_of("x"), reset, 1)
        Y = check_variable(self, y, "y", self._map_of("y"), reset, 1)
        if len(X) != len(Y):
            raise ValueError(
                f"X and y must be paired row by row; got {len(X)} rows in X and "
                f"{len(Y)} in y."
            )
        if len(X) < min_rows:
            raise ValueError(
                f"{type(self).__name__} needs at least {min_rows} pairs (rows of X "
                "and y); "
                f"got n_samples = {len(X)}."
            )
        for V, name in ((X, "X"), (Y, "y")) if fit_maps else ():
            constant = (
                (V.nunique(dropna=False) <= 1).all()
                if is_dataframe(V)
                else np.all(V == V[:1])
            )
            if constant:
                raise _constant(name)
        return X, Y

    def _map_of(self, name):
        """The map of variable ``name`` ("x" or "y") its input is checked for."""
        return getattr(self, f"{name}_transformer")

    def _map(self, transformer, V, random_state):
        if isinstance(transformer, str):  # "auto"
            return _inputs.auto_transformer(is_dataframe(V), random_state)
        return clone(transformer)

    def _unit(self, n_rows):
        if self.resample_unit == "auto":
            unit = _auto_unit(n_rows, n_max(self.n_resamples), self._max_units())
            return max(self._stream.state.unit, unit)
        return self.resample_unit

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Compute HSIC, its permutation null distribution and the p-value.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n, n_features)
            The first variable (a dask array: reduced on the workers).
        y : DataFrame or array-like of shape (n,) or (n, n_features_y)
            The second variable, row ``i`` paired with row ``i`` of X.

        Returns
        -------
        self : object
            Fitted test.
        """
        engine = _engines.engine_for(X)
        if self._exact() and engine.lazy:
            raise TypeError(
                "The exact test (x_transformer=None or y_transformer=None) is "
                "quadratic and takes in-memory arrays; give feature maps to test "
                "dask arrays."
            )
        pairs = engine.pairs(self, X, y, validate=self._pairs)
        engine = engine.paired()
        rng = check_random_state(self.random_state)
        seed = draw_seed(rng)
        n = engine.n_rows(pairs)
        if self._exact():
            return self._fit_exact(engine.rows.to_host(pairs), seed, rng)
        fit_rows = engine.rows_of(pairs, fit_indices(n, seed))
        self._start(engine, pairs, seed, rng, fit_rows)
        self._check_order(engine, pairs, seed)
        engine.add(self._stream, pairs, None, self._unit(n))
        self.n_train_ = 0
        self._calibrate()
        return self

    def _check_order(self, engine, pairs, seed):
        """Warn when the pairs look ordered and ``block_size`` is None: the
        features of the first pairs of each variable under its (first) map."""
        if self.block_size is None:
            x_map, y_map = (self._stream.transformers[k] for k in self._check_maps())
            rows, to_host = head(engine, pairs), engine.rows.inner.to_host
            features = [order_features(t, rows, to_host, seed) for t in (x_map, y_map)]
            warn_if_ordered(features, seed, paired=True)

    def _check_maps(self):
        """Positions in the stream of the x and y maps the order check reads."""
        return 0, 1

    def _max_units(self):
        """Most units ``resample_unit="auto"`` makes (the Grams' size)."""
        return MAX_OBSERVATIONS

    def _exact(self):
        return False

    def _prefit(self):
        """Whether the maps are given fitted (used as they are)."""
        return False

    def _streams(self):
        # partial_fit streams feature maps; the exact test takes all pairs at
        # once.
        return not self._exact()

    @available_if(_streams)
    @fit_context(prefer_skip_nested_validation=False)
    @unfitted_on_error
    def partial_fit(self, X, y):
        """Add a chunk of pairs to the test (out-of-core or streamed data).

        As :meth:`MMDTest.partial_fit`: maps that are not fitted yet are fit
        on the first chunk, whose pairs are then held out (``n_train_``);
        fitted maps are used as given. Results are computed from all pairs so
        far when first read; for the same seed, maps that do not depend on the
        data and the same pairs in the same order, they equal those of
        :meth:`fit`, whatever the chunks.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_chunk, n_features)
            Rows of the first variable.
        y : DataFrame or array-like of shape (n_chunk,) or (n_chunk, n_features_y)
            The paired rows of the second variable.

        Returns
        -------
        self : object
            The test, updated.
        """
        first = getattr(self, "_stream", None) is None
        prefit = first and self._prefit()
        try:
            X, Y = self._pairs(X, y, first, 1, fit_maps=first and not prefit)
        except ValueError as error:
            if first:
                raise
            raise ValueError(
                f"partial_fit chunk after {self._stream.n_rows[0]} pairs (nothing "
                f"was added): {error}"
            ) from error
        engine = _engines.InMemory(_engines.PairRows())
        pairs = (X, Y)
        if first:
            rng = check_random_state(self.random_state)
            seed = draw_seed(rng)
            # Fitted maps are used as given; others are fit on this chunk.
            self._start(engine, pairs, seed, rng, None if prefit else pairs)
            self.n_train_ = 0 if prefit else len(X)
            self._mark_stale()
            if not prefit:
                return self
        stream = self._stream
        if not stream.n_rows[0]:  # the first pairs: is their order a concern?
            self._check_order(engine, pairs, stream.seed)
        stream.add((pairs, None), self._unit(stream.n_rows[0] + len(X)))
        self._mark_stale()
        return self

    def explain(self, X, y, *, columns=None):
        """Which columns of X depend on y: feature screening.

        A test per column, adjusted for testing them all, as
        :meth:`MMDTest.explain` does (the same maps of the columns, the same
        ``correction``, see :ref:`explain`): each column (group) against y
        with the fitted y map (for an exact y kernel, random Fourier features
        of it; for :class:`AggregatedHSICTest`, the middle map of its y
        grid), all on the same random pairings, at the resampling unit a
        test of one column against y would use. By default, flagging every
        column with ``adjusted_p_value <= alpha`` wrongly flags some column
        independent of y with probability at most ``alpha``. Each column
        tests its marginal dependence on y, not given the other columns.
        With ``n_resamples="auto"`` and ``"fwer"`` the resamples stop early
        only when no column can be flagged (the number drawn is
        ``report.n_resamples_used``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n, n_features)
            The first variable, with the columns seen in ``fit``.
        y : DataFrame or array-like of shape (n,) or (n, n_features_y)
            The second variable (the target), paired with X row by row.
        columns : None, list or dict, default=None
            ``None``: every column alone. A list of columns and lists of
            columns (groups tested together), or a dict ``{label: columns}``.

        Returns
        -------
        report : ColumnReport
            A pandas DataFrame that records what its numbers mean
            (:class:`skmmd.inspection.ColumnReport`). One row per column
            (group), most evidence first: ``column``, ``statistic`` (its
            HSIC with y), ``p_value``, ``pooled_p_value``,
            ``adjusted_p_value`` (by ``report.correction``), ``depends``
            (``adjusted_p_value <= report.alpha``), ``z`` (the statistic
            standardized over the pairings) and ``hsic_low``, ``hsic_high``
            (95 % confidence interval of its HSIC, from the unbiased
            estimate).

        Examples
        --------
        >>> import numpy as np
        >>> from skmmd import HSICTest
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(500, 3))
        >>> y = np.cos(2 * X[:, 1]) + 0.3 * rng.normal(size=500)
        >>> test = HSICTest(n_resamples=199, random_state=0).fit(X, y)
        >>> report = test.explain(X, y)
        >>> report[["column", "adjusted_p_value"]]
          column  adjusted_p_value
        0      1             0.005
        1      0             0.885
        2      2             0.890
        """
        check_is_fitted(self)
        needs_pandas("explain")
        X, Y = self._pairs(X, y, reset=False, fit_maps=False)
        return _explain.column_report(self, X, Y, columns)
